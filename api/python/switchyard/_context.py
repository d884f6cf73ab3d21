"""Contexts, devices and the plugin load report.

Most programs use the default context, made on first use from the
environment (SWITCHYARD_PLUGIN_PATH, SWITCHYARD_PLUGINS, …). Make your own
with sy.Context(...) to choose plugins explicitly.
"""

import json
import threading
from dataclasses import dataclass

from ._autotune import AutotuneMethods
from ._library import _C

_OUTCOMES = {0: "loaded", 1: "failed", 2: "skipped", 3: "loaded, no devices"}


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


# Device.float_flags bits (SY_FLOAT_FLUSHES_* in switchyard/common.h).
FLOAT_FLUSHES_F32_SUBNORMALS = 1
FLOAT_FLUSHES_F16_SUBNORMALS = 2
FLOAT_FLUSHES_F64_SUBNORMALS = 4


@dataclass(frozen=True)
class AllocatorStats:
    allocated_bytes: int
    reserved_bytes: int
    peak_allocated_bytes: int
    num_allocations: int
    cache_hits: int
    device_allocations: int
    device_frees: int


class Device:
    """A device of a context ("cpu:0"). Compare with ==; str() gives its label.

    `float_flags` says which subnormals the device's arithmetic may flush to
    zero: a mask of FLOAT_FLUSHES_F32_SUBNORMALS, FLOAT_FLUSHES_F16_SUBNORMALS
    and FLOAT_FLUSHES_F64_SUBNORMALS (0: it keeps them all, as the cpu does).
    """

    def __init__(self, context, handle):
        self.context = context
        self._handle = handle
        (self.label, self.type, self.plugin, self.name, self.vendor, self.driver_version,
         self.index, self.compute_units, self.total_memory_bytes,
         self.dlpack_device, self.float_flags) = _C.device_info(handle)

    def synchronize(self):
        """Waits for every op queued on this device."""
        _C.device_synchronize(self._handle)

    def allocator_stats(self):
        return AllocatorStats(*_C.device_allocator_stats(self._handle))

    def empty_cache(self):
        """Returns the allocator's cached blocks to the device."""
        _C.device_empty_cache(self._handle)

    def __eq__(self, other):
        return isinstance(other, Device) and other._handle == self._handle

    def __hash__(self):
        return hash(self._handle)

    def __str__(self):
        return self.label

    def __repr__(self):
        return f"switchyard.Device('{self.label}', name='{self.name}')"


class Context(AutotuneMethods, _C.ContextBase):
    """An independent runtime: its plugins, devices, ops and tensors.

    Context(plugin_paths=..., plugin_manifests=..., allow=..., deny=...,
            use_environment=True, use_default_path=True, cpu_fallback=None,
            plugin_options=())
    follows sy_context_options_t. The autotuner's methods (ctx.autotune,
    ctx.tune_cases, ctx.autotune_export, …) come from _autotune.py. Closing (or garbage-collecting) the context
    makes its tensors unusable; tensors exported through DLPack stay valid."""

    def __init__(self, plugin_paths=(), plugin_manifests=(), allow=(), deny=(),
                 use_environment=True, use_default_path=True, cpu_fallback=None,
                 plugin_options=()):
        self._handle = None
        if isinstance(plugin_options, dict):  # {"cpu.num_threads": 2}
            plugin_options = [f"{k}={v}" for k, v in plugin_options.items()]
        self._handle = _C.context_create(
            list(plugin_paths), list(plugin_manifests), list(allow), list(deny),
            bool(use_environment), bool(use_default_path),
            -1 if cpu_fallback is None else int(bool(cpu_fallback)),
            list(plugin_options))
        self._devices = {}
        self._lock = threading.Lock()
        self._ops_generation = 0  # bumped by every load and unload
        self._ops_listeners = []  # called after each (sy.ops forgets its names)

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
        self._forget_ops()
        self.__dict__.pop("ops", None)
        if handle is not None:
            _C.context_destroy(handle)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and _C is not None:
            try:
                _C.context_destroy(handle)
            except Exception:  # noqa: BLE001 — a finalizer must not raise
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- plugins -----------------------------------------------------------
    def load_plugin(self, manifest_path):
        """Loads a plugin by its manifest; its ops appear in ctx.ops."""
        try:
            _C.context_load_plugin(self.handle, str(manifest_path))
        finally:
            self._ops_changed()

    def unload_plugin(self, name):
        try:
            _C.context_unload_plugin(self.handle, name)
        finally:
            self._ops_changed()
            with self._lock:
                self._devices.clear()

    def _ops_changed(self):
        with self._lock:
            self._ops_generation += 1
            self.__dict__.pop("ops", None)
            self._forget_ops()
        for listener in self._ops_listeners:
            listener()

    def load_report(self):
        """Every plugin load attempt, as LoadRecord objects."""
        records = []
        for r in _C.context_records(self.handle):
            records.append(LoadRecord(r[0], r[1], r[2], _OUTCOMES.get(r[3], str(r[3])),
                                      bool(r[4]), *r[5:]))
        return records

    def info(self):
        """What `switchyard info --json` shows, as a dict."""
        return json.loads(_C.context_info_json(self.handle))

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
        return self._device(_C.device_find(self.handle, str(spec)))

    def devices(self):
        return [self._device(h) for h in _C.context_devices(self.handle)]

    def synchronize(self):
        """Waits for the queued work of every device."""
        _C.context_synchronize(self.handle)

    # ---- ops ---------------------------------------------------------------
    def __getattr__(self, name):
        # ctx.ops is built on first use and kept as a plain attribute (so
        # later reads cost a dict lookup); a load or unload drops it.
        if name != "ops":
            raise AttributeError(f"'Context' object has no attribute '{name}'")
        from ._ops import build_namespace
        with self._lock:
            generation = self._ops_generation
        ops = build_namespace(self)
        # A load or unload on another thread while this one was building
        # made `ops` stale: use it for this access, but do not keep it.
        with self._lock:
            if self._ops_generation == generation:
                self.__dict__["ops"] = ops
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
