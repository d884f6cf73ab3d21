"""NumPy's protocols on switchyard.Tensor: __array__, __array_ufunc__,
__array_function__, and CUDA's __cuda_array_interface__.

NumPy functions and ufuncs on Switchyard tensors run as Switchyard ops and
return Switchyard tensors (NumPy arrays among the operands come in
zero-copy through DLPack); those without a Switchyard op are refused with a
TypeError that says how to convert explicitly — never a silent copy into
NumPy.
"""

import numpy as np

from ._library import _C

_KDL_CPU, _KDL_CUDA = 1, 2


def to_array(tensor, dtype, copy):
    if copy is False and tensor.__dlpack_device__()[0] != _KDL_CPU:
        raise ValueError(
            f"np.asarray(copy=False): the tensor is on {tensor.device.label}; its "
            "memory cannot be shared with NumPy, which reads host memory only")
    if tensor.dtype.numpy is None:
        raise TypeError(f"{tensor.dtype.name} has no NumPy dtype; cast first: "
                        "np.asarray(t.astype(switchyard.float32))")
    array = None
    if tensor.__dlpack_device__()[0] == _KDL_CPU and not copy:
        try:
            array = np.from_dlpack(tensor)  # shared; the export waits for pending work
        except (RuntimeError, BufferError, TypeError):
            # A dtype this NumPy's DLPack lacks (bool before NumPy 1.25).
            if copy is False:
                raise
    if array is None:
        array = tensor.numpy()
    if dtype is not None and np.dtype(dtype) != array.dtype:
        if copy is False:
            raise ValueError("np.asarray(copy=False) with another dtype needs a copy")
        array = array.astype(dtype)
    elif copy and array.base is not None:
        array = array.copy()
    return array


_TYPESTR = {"f32": "<f4", "f64": "<f8", "f16": "<f2", "i32": "<i4", "i64": "<i8",
            "i8": "|i1", "u8": "|u1", "bool": "|b1"}


def cuda_array_interface(tensor):
    # Only CUDA tensors have it: hasattr(t, "__cuda_array_interface__") is
    # how Numba and CuPy ask.
    if tensor.__dlpack_device__()[0] != _KDL_CUDA:
        raise AttributeError(
            f"__cuda_array_interface__: the tensor is on {tensor.device.label}, not a "
            "CUDA device")
    typestr = _TYPESTR.get(tensor.dtype.name)
    if typestr is None:
        raise AttributeError(f"__cuda_array_interface__: {tensor.dtype.name} has no "
                             "array-interface type string")
    # Version 3 with stream None: the data is ready for any stream, because
    # the device's pending work is waited for here.
    tensor.device.synchronize()
    itemsize = tensor.itemsize
    strides = None if tensor.is_contiguous else tuple(s * itemsize for s in tensor.strides)
    # "For zero-size arrays, use 0 here" (CAI v3, `data`): consumers take a
    # 0 for "no memory" and a non-zero pointer as one to look up.
    pointer = tensor.data_ptr if tensor.numel > 0 else 0
    return {"shape": tensor.shape, "typestr": typestr, "data": (pointer, False),
            "strides": strides, "version": 3, "stream": None}


# ---- NumPy ufuncs and functions ----------------------------------------------------

# ufunc name -> op name, for __call__.
_UFUNCS = {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
    "true_divide": "div", "power": "pow", "float_power": "pow", "maximum": "maximum",
    "minimum": "minimum", "negative": "neg", "absolute": "abs", "exp": "exp",
    "log": "log", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tanh": "tanh",
    "reciprocal": "reciprocal", "square": "square", "equal": "eq", "not_equal": "ne",
    "less": "lt", "less_equal": "le", "greater": "gt", "greater_equal": "ge",
    "matmul": "matmul",
}
# ufunc name -> reduction op, for ufunc.reduce.
_REDUCTIONS = {"add": "sum", "maximum": "max", "minimum": "min"}


def _refuse(what):
    raise TypeError(
        f"{what} has no Switchyard op, and switchyard.Tensor does not convert "
        "itself to NumPy silently; convert explicitly with np.asarray(t) (shares "
        "cpu memory) or t.numpy() (a copy)")


def _operand(value, like):
    """A Switchyard tensor (or a Python scalar) for one ufunc operand."""
    from ._tensor import Tensor
    if isinstance(value, Tensor) or isinstance(value, (int, float, bool)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        from ._tensor import from_dlpack
        if value.ndim == 0:
            return value.item()
        return from_dlpack(value, context=like.context)  # shared (negative strides: copied)
    return None


def array_ufunc(tensor, ufunc, method, inputs, kwargs):
    name = ufunc.__name__
    out = kwargs.pop("out", None)
    if out is not None:
        out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if method == "reduce" and name in _REDUCTIONS:
        axis = kwargs.pop("axis", 0)
        keepdims = kwargs.pop("keepdims", False)
        if kwargs:
            _refuse(f"numpy.{name}.reduce with {', '.join(kwargs)}")
        dims = [] if axis is None else ([axis] if isinstance(axis, int) else list(axis))
        op = getattr(tensor.context.ops, _REDUCTIONS[name])
        return op(inputs[0], dims, keepdims, **({"out": out} if out is not None else {}))
    if method != "__call__" or name not in _UFUNCS or kwargs:
        extra = f" with {', '.join(kwargs)}" if kwargs else ""
        _refuse(f"numpy.{name}{'' if method == '__call__' else '.' + method}{extra}")
    operands = [_operand(v, tensor) for v in inputs]
    if any(v is None for v in operands):
        _refuse(f"numpy.{name} on {', '.join(type(v).__name__ for v in inputs)}")
    from ._tensor import Tensor, tensor_like
    if not isinstance(operands[0], Tensor):  # a scalar first: 2 - x
        operands[0] = tensor_like(operands[0], tensor)
    op = getattr(tensor.context.ops, _UFUNCS[name])
    return op(*operands, **({"out": out} if out is not None else {}))


def _reduction(name):
    def call(a, axis=None, out=None, keepdims=False, **kwargs):
        if kwargs:
            _refuse(f"numpy.{name} with {', '.join(kwargs)}")
        return getattr(a, name)(axis, keepdims, out=out)
    return call


def _argmax(a, axis=None, out=None, keepdims=False):
    return a.argmax(axis, keepdims, out=out)


def _concatenate(arrays, axis=0, out=None, **kwargs):
    if kwargs:
        _refuse(f"numpy.concatenate with {', '.join(kwargs)}")
    arrays = list(arrays)
    return arrays[0].context.ops.concat(arrays, axis, out=out)


def _where(condition, x, y):
    return condition.context.ops.where(condition, x, y)


def _transpose(a, axes=None):
    return a.transpose() if axes is None else a.permute(tuple(axes))


_FUNCTIONS = {
    "sum": _reduction("sum"), "mean": _reduction("mean"), "max": _reduction("max"),
    "amax": _reduction("max"), "min": _reduction("min"), "amin": _reduction("min"),
    "argmax": _argmax,
    "reshape": lambda a, newshape, order="C": a.reshape(newshape),
    "transpose": _transpose,
    "concatenate": _concatenate,
    "where": _where,
    "matmul": lambda a, b, out=None: a.context.ops.matmul(a, b, out=out),
    "shape": lambda a: a.shape,
    "ndim": lambda a: a.ndim,
    "size": lambda a, axis=None: a.numel if axis is None else a.shape[axis],
}


def array_function(tensor, func, types, args, kwargs):
    implementation = _FUNCTIONS.get(func.__name__)
    if implementation is None:
        _refuse(f"numpy.{func.__name__}")
    return implementation(*args, **kwargs)
