"""Data types: sy.float32 and friends, and their NumPy and DLPack meaning.

A DType's `value` is the C sy_dtype_t (DLPack's DLDataType packed in 32
bits). Anywhere a dtype is expected, a DType, a NumPy dtype (or scalar
type), a PyTorch dtype or a name ("f32", "float32", "bool") is accepted.
"""

import numpy as np

from ._library import _C


def _make(code, bits):
    return code | bits << 8 | 1 << 16


class DType:
    __slots__ = ("value", "name", "itemsize", "numpy")

    def __init__(self, value, name, numpy_dtype):
        self.value = value
        self.name = name
        self.itemsize = _C.dtype_size(value)
        self.numpy = np.dtype(numpy_dtype) if numpy_dtype is not None else None

    @property
    def is_floating_point(self):
        return self.name in ("f32", "f64", "f16", "bf16")

    def __repr__(self):
        return f"switchyard.{PY_NAMES[self.name]}"

    def __str__(self):
        return PY_NAMES[self.name]

    def __eq__(self, other):
        try:
            return self.value == as_dtype(other).value
        except (TypeError, ValueError):
            return NotImplemented

    def __hash__(self):
        return hash(self.value)


float32 = DType(_make(2, 32), "f32", np.float32)
float64 = DType(_make(2, 64), "f64", np.float64)
float16 = DType(_make(2, 16), "f16", np.float16)
bfloat16 = DType(_make(4, 16), "bf16", None)  # NumPy has no bfloat16
int32 = DType(_make(0, 32), "i32", np.int32)
int64 = DType(_make(0, 64), "i64", np.int64)
int8 = DType(_make(0, 8), "i8", np.int8)
uint8 = DType(_make(1, 8), "u8", np.uint8)
bool_ = DType(_make(6, 8), "bool", np.bool_)

ALL = (float32, float64, float16, bfloat16, int32, int64, int8, uint8, bool_)
PY_NAMES = {"f32": "float32", "f64": "float64", "f16": "float16", "bf16": "bfloat16",
            "i32": "int32", "i64": "int64", "i8": "int8", "u8": "uint8", "bool": "bool_"}
_BY_VALUE = {d.value: d for d in ALL}
_BY_NUMPY = {d.numpy: d for d in ALL if d.numpy is not None}


def from_value(value):
    try:
        return _BY_VALUE[value]
    except KeyError:
        raise ValueError(f"unknown sy_dtype_t value {value:#x}") from None


def as_dtype(obj):
    """A DType for a DType, NumPy dtype or type, PyTorch dtype, or a name."""
    if isinstance(obj, DType):
        return obj
    if isinstance(obj, str):
        return _BY_VALUE[_C.dtype_from_name(obj)]
    if type(obj).__module__ == "torch" and type(obj).__name__ == "dtype":
        return _BY_VALUE[_C.dtype_from_name(str(obj).removeprefix("torch."))]
    try:
        numpy_dtype = np.dtype(obj)
    except TypeError:
        raise TypeError(f"not a dtype: {obj!r}; use e.g. switchyard.float32, "
                        "numpy.float32 or 'f32'") from None
    try:
        return _BY_NUMPY[numpy_dtype]
    except KeyError:
        raise TypeError(
            f"NumPy dtype {numpy_dtype} has no Switchyard counterpart; use one of "
            "float32 float64 float16 int32 int64 int8 uint8 bool") from None
