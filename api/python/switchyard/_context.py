"""Contexts, devices and the plugin load report.

Most programs use the default context, made on first use from the
environment (SWITCHYARD_PLUGIN_PATH, SWITCHYARD_PLUGINS, …). Make your own
with sy.Context(...) to choose plugins explicitly.
"""

import ctypes
import json
import threading
from dataclasses import dataclass

from . import _library as _l
from ._errors import check


@dataclass(frozen=True)
class LoadRecord:
    """One plugin load attempt (sy_plugin_record_t)."""

    name: str
    manifest_path: str
    library_path: str
    outcome: str  # "loaded", "loaded, no devices", "failed", "skipped"
    requested: bool
    stage: str
    reason: str
    description: str  # one paragraph in plain words
    plugin_version: str
    num_devices: int
    num_schemas: int
    num_kernels: int
    load_ms: float


@dataclass(frozen=True)
class AllocatorStats:
    allocated_bytes: int
    reserved_bytes: int
    peak_allocated_bytes: int
    num_allocations: int
    cache_hits: int
    device_allocations: int
    device_frees: int


def _strings(values):
    values = [str(v).encode() for v in (values or ())]
    return (ctypes.c_char_p * max(len(values), 1))(*values), len(values)


class Device:
    """A device of a context ("cpu:0"). Compare with ==; str() gives its label."""

    def __init__(self, context, handle):
        self.context = context
        self._handle = handle
        info = _l.DeviceInfo(struct_size=ctypes.sizeof(_l.DeviceInfo))
        check(_l.lib.sy_device_get_info(handle, ctypes.byref(info)))
        self.label = _l.text(info.label)
        self.type = _l.text(info.type)
        self.index = info.index
        self.plugin = _l.text(info.plugin)
        self.name = _l.text(info.name)
        self.vendor = _l.text(info.vendor)
        self.driver_version = _l.text(info.driver_version)
        self.total_memory_bytes = info.total_memory_bytes
        self.compute_units = info.compute_units
        self.dlpack_device = (info.dl_device.device_type, info.dl_device.device_id)

    def synchronize(self):
        """Waits for every op queued on this device."""
        check(_l.lib.sy_device_synchronize(self._handle))

    def allocator_stats(self):
        stats = _l.AllocatorStats(struct_size=ctypes.sizeof(_l.AllocatorStats))
        check(_l.lib.sy_device_allocator_stats(self._handle, ctypes.byref(stats)))
        return AllocatorStats(*(getattr(stats, f) for f in AllocatorStats.__dataclass_fields__))

    def empty_cache(self):
        """Returns the allocator's cached blocks to the device."""
        check(_l.lib.sy_device_empty_cache(self._handle))

    def __eq__(self, other):
        return isinstance(other, Device) and other._handle == self._handle

    def __hash__(self):
        return hash(self._handle)

    def __str__(self):
        return self.label

    def __repr__(self):
        return f"switchyard.Device('{self.label}', name='{self.name}')"


class Context:
    """An independent runtime: its plugins, devices, ops and tensors.

    Context(plugin_paths=..., plugin_manifests=..., allow=..., deny=...,
            use_environment=True, use_default_path=True, cpu_fallback=None)
    follows sy_context_options_t. Closing (or garbage-collecting) the context
    makes its tensors unusable; tensors exported through DLPack stay valid."""

    def __init__(self, plugin_paths=(), plugin_manifests=(), allow=(), deny=(),
                 use_environment=True, use_default_path=True, cpu_fallback=None):
        # What the header's inline sy_context_options_init does.
        options = _l.ContextOptions(struct_size=ctypes.sizeof(_l.ContextOptions))
        keep = []  # the arrays must outlive the call
        for field, values in (("plugin_paths", plugin_paths),
                              ("plugin_manifests", plugin_manifests),
                              ("allow", allow), ("deny", deny)):
            array, count = _strings(values)
            keep.append(array)
            setattr(options, field, ctypes.cast(array, ctypes.POINTER(ctypes.c_char_p)))
            setattr(options, "num_" + field, count)
        options.use_environment = int(bool(use_environment))
        options.use_default_path = int(bool(use_default_path))
        options.cpu_fallback = -1 if cpu_fallback is None else int(bool(cpu_fallback))
        handle = _l.c_handle()
        check(_l.lib.sy_context_create(ctypes.byref(options), ctypes.byref(handle)))
        self._handle = handle.value
        self._devices = {}
        self._lock = threading.Lock()
        self._ops = None
        self._ops_generation = 0  # bumped by every load and unload

    # ---- lifetime ----------------------------------------------------------
    @property
    def handle(self):
        if self._handle is None:
            from ._errors import FailedPreconditionError
            raise FailedPreconditionError("this switchyard.Context was closed")
        return self._handle

    def close(self):
        """Destroys the context now (otherwise the garbage collector does)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            check(_l.lib.sy_context_destroy(handle))

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and _l is not None and _l.lib is not None:
            _l.lib.sy_context_destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- plugins -----------------------------------------------------------
    def load_plugin(self, manifest_path):
        """Loads a plugin by its manifest; its ops appear in ctx.ops."""
        try:
            check(_l.lib.sy_context_load_plugin(self.handle, str(manifest_path).encode()))
        finally:
            self._ops_changed()

    def unload_plugin(self, name):
        try:
            check(_l.lib.sy_context_unload_plugin(self.handle, name.encode()))
        finally:
            self._ops_changed()
            with self._lock:
                self._devices.clear()

    def _ops_changed(self):
        with self._lock:
            self._ops_generation += 1
            self._ops = None

    def load_report(self):
        """Every plugin load attempt, as LoadRecord objects."""
        count = ctypes.c_int32()
        check(_l.lib.sy_context_plugin_record_count(self.handle, ctypes.byref(count)))
        records = []
        outcomes = {0: "loaded", 1: "failed", 2: "skipped", 3: "loaded, no devices"}
        for i in range(count.value):
            r = _l.PluginRecord(struct_size=ctypes.sizeof(_l.PluginRecord))
            check(_l.lib.sy_context_plugin_record(self.handle, i, ctypes.byref(r)))
            records.append(LoadRecord(
                _l.text(r.name), _l.text(r.manifest_path), _l.text(r.library_path),
                outcomes.get(r.outcome, str(r.outcome)), bool(r.requested),
                _l.text(r.stage), _l.text(r.reason), _l.text(r.description),
                _l.text(r.plugin_version), r.num_devices, r.num_schemas,
                r.num_kernels, r.load_ms))
        return records

    def info(self):
        """What `switchyard info --json` shows, as a dict."""
        text = ctypes.c_char_p()
        check(_l.lib.sy_context_info_json(self.handle, ctypes.byref(text)))
        return json.loads(_l.text(text.value))

    # ---- devices -----------------------------------------------------------
    def _device(self, handle):
        with self._lock:
            device = self._devices.get(handle)
            if device is None:
                device = self._devices[handle] = Device(self, handle)
            return device

    def device(self, spec="cpu"):
        """The device for "cpu", "cpu:0", "cuda:1", or a Device (returned as is)."""
        if isinstance(spec, Device):
            if spec.context is not self:
                from ._errors import InvalidArgumentError
                raise InvalidArgumentError(
                    f"device {spec.label} belongs to another switchyard.Context")
            return spec
        handle = _l.c_handle()
        check(_l.lib.sy_device_find(self.handle, str(spec).encode(), ctypes.byref(handle)))
        return self._device(handle.value)

    def devices(self):
        count = ctypes.c_int32()
        check(_l.lib.sy_device_count(self.handle, ctypes.byref(count)))
        result = []
        for i in range(count.value):
            handle = _l.c_handle()
            check(_l.lib.sy_device_get(self.handle, i, ctypes.byref(handle)))
            result.append(self._device(handle.value))
        return result

    def synchronize(self):
        """Waits for the queued work of every device."""
        check(_l.lib.sy_context_synchronize(self.handle))

    # ---- ops ---------------------------------------------------------------
    @property
    def ops(self):
        """Every op of this context as Python functions (see sy.ops)."""
        ops = self._ops
        if ops is not None:
            return ops
        from ._ops import build_namespace
        with self._lock:
            generation = self._ops_generation
        ops = build_namespace(self)
        # A load or unload on another thread while this one was building
        # made `ops` stale: use it for this access, but do not keep it.
        with self._lock:
            if self._ops_generation == generation:
                self._ops = ops
        return ops

    def __repr__(self):
        state = "closed" if self._handle is None else f"{len(self.devices())} device(s)"
        return f"<switchyard.Context {state}>"


_default = None
_default_lock = threading.Lock()


def default_context():
    """The process's default context, made on first use."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Context()
    return _default
