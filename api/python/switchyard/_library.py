"""Finding libswitchyard.so and declaring the C API to ctypes.

The library is looked for, in order:
  1. $SWITCHYARD_LIBRARY — a path to libswitchyard.so (or its folder);
  2. inside the package (a self-contained bundle);
  3. three folders up, as installed: <prefix>/lib/switchyard/python/switchyard
     finds <prefix>/lib/libswitchyard.so.0;
  4. the build trees of a source checkout (build/release, build/debug) when
     the package is used from api/python;
  5. the dynamic loader's own search (LD_LIBRARY_PATH, ldconfig).
Plugins are then found by the library itself (next to it, or
SWITCHYARD_PLUGIN_PATH).
"""

import ctypes
import os
from pathlib import Path

_NAMES = ("libswitchyard.so.0", "libswitchyard.so")


def _candidates():
    env = os.environ.get("SWITCHYARD_LIBRARY")
    if env:
        path = Path(env)
        if path.is_dir():
            yield from (path / name for name in _NAMES)
        else:
            yield path
        return  # an explicit choice is the only one
    package = Path(__file__).resolve().parent
    for folder in (package, package.parents[2]):
        yield from (folder / name for name in _NAMES)
    checkout = package.parents[2]  # api/python/switchyard -> repository root
    for preset in ("release", "debug", "asan", "tsan"):
        yield checkout / "build" / preset / "lib" / _NAMES[0]
    yield from (Path(name) for name in _NAMES)  # the loader's search


def _load():
    tried = []
    for candidate in _candidates():
        if candidate.is_absolute() and not candidate.exists():
            tried.append(f"{candidate} (absent)")
            continue
        try:
            return ctypes.CDLL(str(candidate)), str(candidate)
        except OSError as error:
            tried.append(f"{candidate} ({error})")
    raise ImportError(
        "switchyard: cannot load libswitchyard.so; tried:\n  "
        + "\n  ".join(tried)
        + "\nSet SWITCHYARD_LIBRARY to the library's path (e.g. "
        "build/release/lib/libswitchyard.so)."
    )


lib, path = _load()

# ---- Types ------------------------------------------------------------------
c_status = ctypes.c_int
c_handle = ctypes.c_void_p  # every sy_*_t handle is an opaque 64-bit token
c_dtype = ctypes.c_uint32
MAX_RANK = 8


class Attr(ctypes.Structure):
    """sy_attr_t."""

    class _Ints(ctypes.Structure):
        _fields_ = [("data", ctypes.POINTER(ctypes.c_int64)), ("size", ctypes.c_int64)]

    class _Str(ctypes.Structure):
        _fields_ = [("data", ctypes.c_char_p), ("size", ctypes.c_int64)]

    class _Value(ctypes.Union):
        pass

    _Value._fields_ = [
        ("i", ctypes.c_int64),
        ("f", ctypes.c_double),
        ("b", ctypes.c_int32),
        ("dtype", ctypes.c_uint32),
        ("ints", _Ints),
        ("str", _Str),
    ]
    _fields_ = [("kind", ctypes.c_int32), ("reserved", ctypes.c_int32), ("value", _Value)]


ATTR_DEFAULT = -1
ATTR_NONE, ATTR_INT, ATTR_FLOAT, ATTR_BOOL, ATTR_INTS, ATTR_STRING, ATTR_DTYPE = range(7)


class DeviceT(ctypes.Structure):
    """sy_device_t (DLPack's DLDevice)."""

    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class ContextOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("extension", ctypes.c_void_p),
        ("plugin_paths", ctypes.POINTER(ctypes.c_char_p)),
        ("num_plugin_paths", ctypes.c_int32),
        ("plugin_manifests", ctypes.POINTER(ctypes.c_char_p)),
        ("num_plugin_manifests", ctypes.c_int32),
        ("allow", ctypes.POINTER(ctypes.c_char_p)),
        ("num_allow", ctypes.c_int32),
        ("deny", ctypes.POINTER(ctypes.c_char_p)),
        ("num_deny", ctypes.c_int32),
        ("use_environment", ctypes.c_int32),
        ("use_default_path", ctypes.c_int32),
        ("cpu_fallback", ctypes.c_int32),
    ]


class PluginRecord(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("extension", ctypes.c_void_p),
        ("name", ctypes.c_char_p),
        ("manifest_path", ctypes.c_char_p),
        ("library_path", ctypes.c_char_p),
        ("outcome", ctypes.c_int32),
        ("requested", ctypes.c_int32),
        ("stage", ctypes.c_char_p),
        ("reason", ctypes.c_char_p),
        ("description", ctypes.c_char_p),
        ("plugin_version", ctypes.c_char_p),
        ("host_abi_major", ctypes.c_uint32),
        ("host_abi_minor", ctypes.c_uint32),
        ("plugin_abi_major", ctypes.c_uint32),
        ("plugin_abi_minor", ctypes.c_uint32),
        ("num_devices", ctypes.c_int32),
        ("num_schemas", ctypes.c_int32),
        ("num_kernels", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("load_ms", ctypes.c_double),
    ]


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("extension", ctypes.c_void_p),
        ("label", ctypes.c_char_p),
        ("type", ctypes.c_char_p),
        ("plugin", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("vendor", ctypes.c_char_p),
        ("driver_version", ctypes.c_char_p),
        ("index", ctypes.c_int32),
        ("compute_units", ctypes.c_int32),
        ("total_memory_bytes", ctypes.c_uint64),
        ("dl_device", DeviceT),
    ]


class AllocatorStats(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("extension", ctypes.c_void_p),
        ("allocated_bytes", ctypes.c_uint64),
        ("reserved_bytes", ctypes.c_uint64),
        ("peak_allocated_bytes", ctypes.c_uint64),
        ("num_allocations", ctypes.c_uint64),
        ("cache_hits", ctypes.c_uint64),
        ("device_allocations", ctypes.c_uint64),
        ("device_frees", ctypes.c_uint64),
    ]


class OpInfo(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("extension", ctypes.c_void_p),
        ("full_name", ctypes.c_char_p),
        ("ns", ctypes.c_char_p),
        ("name", ctypes.c_char_p),
        ("overload", ctypes.c_char_p),
        ("schema", ctypes.c_char_p),
        ("owner", ctypes.c_char_p),
        ("num_args", ctypes.c_int32),
        ("num_tensor_args", ctypes.c_int32),
        ("num_attrs", ctypes.c_int32),
        ("num_outputs", ctypes.c_int32),
        ("list_arg", ctypes.c_int32),
        ("live", ctypes.c_int32),
    ]


class OpArg(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("extension", ctypes.c_void_p),
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int32),
        ("optional", ctypes.c_int32),
        ("has_default", ctypes.c_int32),
        ("tensor_index", ctypes.c_int32),
        ("attr_index", ctypes.c_int32),
        ("reserved", ctypes.c_int32),
        ("default_value", Attr),
        ("default_text", ctypes.c_char_p),
        ("kind_name", ctypes.c_char_p),
    ]


(ARG_TENSOR, ARG_TENSOR_LIST, ARG_INT, ARG_INT_LIST, ARG_FLOAT, ARG_BOOL,
 ARG_SCALAR, ARG_STRING, ARG_DTYPE) = range(9)

DLPACK_SHARE_OR_COPY, DLPACK_SHARE, DLPACK_COPY = range(3)

# ---- Prototypes -------------------------------------------------------------
P = ctypes.POINTER
_c = ctypes
_PROTOTYPES = {
    "sy_api_version": (c_status, [P(_c.c_uint32), P(_c.c_uint32)]),
    "sy_library_version": (_c.c_char_p, []),
    "sy_last_error_code": (c_status, []),
    "sy_last_error_message": (_c.c_char_p, []),
    "sy_status_code_name": (_c.c_char_p, [_c.c_int]),
    "sy_dtype_name": (_c.c_char_p, [c_dtype]),
    "sy_dtype_from_name": (c_status, [_c.c_char_p, P(c_dtype)]),
    "sy_dtype_size": (_c.c_size_t, [c_dtype]),
    "sy_context_create": (c_status, [P(ContextOptions), P(c_handle)]),
    "sy_context_destroy": (c_status, [c_handle]),
    "sy_context_load_plugin": (c_status, [c_handle, _c.c_char_p]),
    "sy_context_unload_plugin": (c_status, [c_handle, _c.c_char_p]),
    "sy_context_plugin_record_count": (c_status, [c_handle, P(_c.c_int32)]),
    "sy_context_plugin_record": (c_status, [c_handle, _c.c_int32, P(PluginRecord)]),
    "sy_context_info_json": (c_status, [c_handle, P(_c.c_char_p)]),
    "sy_context_synchronize": (c_status, [c_handle]),
    "sy_device_count": (c_status, [c_handle, P(_c.c_int32)]),
    "sy_device_get": (c_status, [c_handle, _c.c_int32, P(c_handle)]),
    "sy_device_find": (c_status, [c_handle, _c.c_char_p, P(c_handle)]),
    "sy_device_get_info": (c_status, [c_handle, P(DeviceInfo)]),
    "sy_device_synchronize": (c_status, [c_handle]),
    "sy_device_allocator_stats": (c_status, [c_handle, P(AllocatorStats)]),
    "sy_device_empty_cache": (c_status, [c_handle]),
    "sy_tensor_empty": (c_status, [c_handle, c_dtype, P(_c.c_int64), _c.c_int32, P(c_handle)]),
    "sy_tensor_from_host": (c_status, [c_handle, c_dtype, P(_c.c_int64), _c.c_int32,
                                       _c.c_void_p, _c.c_size_t, P(c_handle)]),
    "sy_tensor_to_host": (c_status, [c_handle, _c.c_void_p, _c.c_size_t]),
    "sy_tensor_to_device": (c_status, [c_handle, c_handle, P(c_handle)]),
    "sy_tensor_retain": (c_status, [c_handle]),
    "sy_tensor_release": (c_status, [c_handle]),
    "sy_tensor_dtype": (c_status, [c_handle, P(c_dtype)]),
    "sy_tensor_ndim": (c_status, [c_handle, P(_c.c_int32)]),
    "sy_tensor_shape": (c_status, [c_handle, P(_c.c_int64), _c.c_int32]),
    "sy_tensor_strides": (c_status, [c_handle, P(_c.c_int64), _c.c_int32]),
    "sy_tensor_numel": (c_status, [c_handle, P(_c.c_int64)]),
    "sy_tensor_nbytes": (c_status, [c_handle, P(_c.c_size_t)]),
    "sy_tensor_device": (c_status, [c_handle, P(c_handle)]),
    "sy_tensor_data_ptr": (c_status, [c_handle, P(_c.c_void_p)]),
    "sy_tensor_to_dlpack": (c_status, [c_handle, P(_c.c_void_p)]),
    "sy_tensor_from_dlpack": (c_status, [c_handle, _c.c_void_p, _c.c_int32, P(c_handle)]),
    "sy_op_find": (c_status, [c_handle, _c.c_char_p, P(c_handle)]),
    "sy_op_count": (c_status, [c_handle, P(_c.c_int32)]),
    "sy_op_get": (c_status, [c_handle, _c.c_int32, P(c_handle)]),
    "sy_op_get_info": (c_status, [c_handle, P(OpInfo)]),
    "sy_op_get_arg": (c_status, [c_handle, _c.c_int32, P(OpArg)]),
    "sy_op_call": (c_status, [c_handle, P(c_handle), _c.c_int32, P(Attr), _c.c_int32,
                              P(c_handle), _c.c_int32]),
    "sy_op_call_out": (c_status, [c_handle, P(c_handle), _c.c_int32, P(Attr), _c.c_int32,
                                  P(c_handle), _c.c_int32]),
    "sy_op_explain": (c_status, [c_handle, P(c_handle), _c.c_int32, P(Attr), _c.c_int32,
                                 P(_c.c_char_p)]),
}

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _function = getattr(lib, _name)
    _function.restype = _restype
    _function.argtypes = _argtypes

def _api_version():
    major, minor = ctypes.c_uint32(), ctypes.c_uint32()
    lib.sy_api_version(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


api_version = _api_version()
if api_version[0] != 1:
    raise ImportError(
        f"switchyard: {path} speaks C API {api_version[0]}.{api_version[1]}, but this "
        "package needs 1.x; use the package that came with that library"
    )


def text(raw):
    """A C string (bytes or None) as str."""
    return raw.decode("utf-8", "replace") if raw is not None else ""


INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def int64(value, what):
    """`value` (any Python or NumPy integer) as an int that fits a C int64_t,
    or InvalidArgumentError naming `what`. ctypes would wrap it silently:
    c_int64(2**64 + 3) is 3, which would defeat the C side's range checks."""
    number = int(value)
    if not INT64_MIN <= number <= INT64_MAX:
        from ._errors import InvalidArgumentError
        raise InvalidArgumentError(
            f"{what} is {number}, outside the int64 range [-2**63, 2**63 - 1]")
    return number
