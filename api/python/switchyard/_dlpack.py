"""DLPack capsules over ctypes: the "dltensor" PyCapsule protocol that
NumPy (>= 1.22), PyTorch and others speak, without a compiled extension.

Producer side: wrap a DLManagedTensor* from sy_tensor_to_dlpack in a capsule
named "dltensor" whose destructor calls the tensor's deleter unless a
consumer took it (consumers rename the capsule "used_dltensor").
Consumer side: take the pointer out of another library's capsule and, once
Switchyard owns it, rename the capsule so its destructor leaves it alone.
"""

import ctypes

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# The destructor sees a capsule whose reference count is already zero: it
# must not make a Python object of it (the wrapper's decref would free it a
# second time), so it gets its own prototypes that take the raw address.
_is_valid_raw = _api["PyCapsule_IsValid"]
_is_valid_raw.restype = ctypes.c_int
_is_valid_raw.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_get_pointer_raw = _api["PyCapsule_GetPointer"]
_get_pointer_raw.restype = ctypes.c_void_p
_get_pointer_raw.argtypes = [ctypes.c_void_p, ctypes.c_char_p]

# A capsule keeps a pointer to its name, never a copy: these buffers live as
# long as the process.
_DLTENSOR = ctypes.create_string_buffer(b"dltensor")
_USED = ctypes.create_string_buffer(b"used_dltensor")

_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", _Deleter),
    ]


_Destructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_Destructor
def _capsule_destructor(capsule_address):
    # Runs when a capsule we made dies. If no consumer renamed it, the
    # tensor was never taken: run its deleter so the export is freed.
    try:
        if _is_valid_raw(capsule_address, _DLTENSOR):
            pointer = _get_pointer_raw(capsule_address, _DLTENSOR)
            managed = DLManagedTensor.from_address(pointer)
            if managed.deleter:
                managed.deleter(pointer)
    except Exception:  # noqa: BLE001 — a destructor must not raise
        pass


def make_capsule(managed_pointer):
    """A "dltensor" capsule that owns `managed_pointer` (a DLManagedTensor*)."""
    return _api.PyCapsule_New(
        managed_pointer, _DLTENSOR,
        ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def open_capsule(capsule):
    """The DLManagedTensor* inside an unused "dltensor" capsule."""
    if not _api.PyCapsule_IsValid(capsule, _DLTENSOR):
        raise ValueError(
            "not an unused DLPack capsule: expected a PyCapsule named 'dltensor' "
            "(a capsule can be consumed only once)")
    return _api.PyCapsule_GetPointer(capsule, _DLTENSOR)


def mark_used(capsule):
    """Tells the capsule's destructor that a consumer now owns the tensor."""
    _api.PyCapsule_SetName(capsule, _USED)
