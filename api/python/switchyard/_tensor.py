"""switchyard.Tensor: a tensor that behaves like NumPy's and PyTorch's.

The C half (_C.TensorBase) holds the handle, the layout getters, indexing,
reshape/view and the operators; this file adds the methods written in
Python, and the functions that make tensors.
"""

import numbers

import numpy as np

from . import _dlpack, _dtypes, _interop
from ._context import Device, default_context
from ._library import _C, int64


class Tensor(_C.TensorBase):
    """A tensor on a Switchyard device.

    Holds one reference to a C tensor handle, released when the object is
    garbage-collected. Ops queue work asynchronously; numpy(), item() and
    DLPack exports wait for it. Indexing, reshape/view, permute/transpose
    and .T make views that share memory, as in NumPy and PyTorch."""

    __slots__ = ()

    # ---- data out ----------------------------------------------------------
    def numpy(self):
        """A NumPy array holding a copy of the elements (waits for pending
        work). np.asarray(t) and np.from_dlpack(t) share cpu memory instead."""
        dtype = self.dtype
        if dtype.numpy is None:
            raise TypeError(
                f"{dtype.name} has no NumPy dtype; cast first: "
                "t.astype(switchyard.float32).numpy()")
        array = np.empty(self.shape, dtype=dtype.numpy)
        _C.tensor_to_host(self, array)
        return array

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        """The value of a one-element tensor as a Python number."""
        if self.numel != 1:
            raise ValueError(f"item() needs a tensor of one element, this has {self.numel}")
        return self.numpy().reshape(()).item()

    def _truth(self):
        # bool(t): called by the C half's nb_bool.
        if self.numel != 1:
            raise ValueError(
                f"the truth value of a tensor of {self.numel} elements is ambiguous; "
                "reduce it first, e.g. bool((t != 0).sum())")
        return bool(self.item())

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __index__(self):
        if self.numel != 1 or self.dtype.is_floating_point or self.dtype == _dtypes.bool_:
            raise TypeError("only integer tensors of one element can be used as an index")
        return int(self.item())

    def __int__(self):
        return int(self.item())

    def __float__(self):
        return float(self.item())

    # ---- devices and dtypes --------------------------------------------------
    def to(self, *args, dtype=None, device=None, copy=False):
        """This tensor on another device and/or with another dtype, as
        PyTorch's to(): t.to("cuda"), t.to(sy.float16), t.to("cuda", "f16").
        Returns self when nothing changes (unless copy=True)."""
        for arg in args:
            if isinstance(arg, (Device,)) or (isinstance(arg, str) and not _is_dtype_name(arg)):
                device = arg
            else:
                dtype = arg
        result = self
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
            if dtype != result.dtype:
                result = result.context.ops.cast(result, dtype)
        if device is not None:
            target = result.context.device(device)
            if target != result.device:
                result = _C.tensor_to_device(result, target._handle)
        if copy and result is self:
            result = self.context.ops.copy(self)
        return result

    def astype(self, dtype, copy=True):
        """A copy with elements of `dtype` (NumPy's astype); copy=False
        returns self when the dtype already matches."""
        dtype = _dtypes.as_dtype(dtype)
        if dtype == self.dtype:
            return self.context.ops.copy(self) if copy else self
        return self.context.ops.cast(self, dtype)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, index=0):
        return self.to(f"cuda:{index}")

    # ---- layout ------------------------------------------------------------
    def permute(self, *dims):
        return self.context.ops.permute(self, _dims_arg(dims))

    def transpose(self, *dims):
        """transpose(d0, d1) swaps two dims (PyTorch); transpose() reverses
        them all (NumPy)."""
        if not dims:
            return self.permute(tuple(range(self.ndim - 1, -1, -1)))
        if len(dims) != 2:
            raise TypeError("transpose takes two dims (PyTorch) or none (NumPy)")
        return self.context.ops.transpose(self, dims[0], dims[1])

    @property
    def T(self):  # noqa: N802 — NumPy's and PyTorch's name
        """The dims reversed (a view)."""
        return self.permute(tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):  # noqa: N802
        """The last two dims swapped (a view)."""
        return self.transpose(-2, -1)

    def contiguous(self):
        """Self when dense and row-major, else a dense copy."""
        return self if self.is_contiguous else self.context.ops.contiguous(self)

    def flatten(self):
        return self.reshape(-1)

    def squeeze(self, dim=None):
        shape = self.shape
        if dim is None:
            keep = [s for s in shape if s != 1]
        else:
            dims = {d % self.ndim for d in ((dim,) if isinstance(dim, int) else dim)}
            keep = [s for i, s in enumerate(shape) if not (i in dims and s == 1)]
        return self.view(keep)

    def unsqueeze(self, dim):
        dim = dim % (self.ndim + 1)
        return self.view(self.shape[:dim] + (1,) + self.shape[dim:])

    def expand(self, *shape):
        return self.context.ops.expand(self, _dims_arg(shape))

    def size(self, dim=None):
        """PyTorch's size(): the shape, or one size."""
        return self.shape if dim is None else self.shape[dim]

    def dim(self):
        return self.ndim

    # ---- reductions (dim or axis, keepdim or keepdims) -----------------------
    def sum(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        return self._reduce("sum", dim, keepdim, axis, keepdims, out)

    def mean(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        return self._reduce("mean", dim, keepdim, axis, keepdims, out)

    def max(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        """The largest elements over `dim` (all when None). Values only, as
        NumPy's max; PyTorch's max(dim) also returns indices: use argmax."""
        return self._reduce("max", dim, keepdim, axis, keepdims, out)

    def min(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        return self._reduce("min", dim, keepdim, axis, keepdims, out)

    def argmax(self, dim=None, keepdim=False, *, axis=None, keepdims=None, out=None):
        dim = axis if axis is not None else dim
        keepdim = keepdims if keepdims is not None else keepdim
        return self.context.ops.argmax(self, dim, keepdim, out=out)

    def _reduce(self, name, dim, keepdim, axis, keepdims, out):
        dim = axis if axis is not None else dim
        keepdim = keepdims if keepdims is not None else keepdim
        dims = [] if dim is None else ([dim] if isinstance(dim, numbers.Integral) else list(dim))
        return getattr(self.context.ops, name)(self, dims, keepdim, out=out)

    # ---- DLPack and the array protocols --------------------------------------
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule over this tensor's memory (DLPack 1.0 when the
        consumer's max_version allows, else 0.6). The tensor's pending work
        is waited for first, so the consumer may read on any `stream`.
        copy=True exports a copy (flagged as one); copy=False never copies."""
        return _dlpack.export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return self.device.dlpack_device

    def __array__(self, dtype=None, copy=None):
        """For np.asarray(t): cpu memory shared (waits for pending work),
        other devices copied to the host; copy=True always copies."""
        return _interop.to_array(self, dtype, copy)

    @property
    def __cuda_array_interface__(self):
        return _interop.cuda_array_interface(self)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _interop.array_ufunc(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _interop.array_function(self, func, types, args, kwargs)

    # ---- printing -----------------------------------------------------------
    def __repr__(self):
        try:
            head = f"{self.dtype.name}[{', '.join(map(str, self.shape))}] on {self.device.label}"
        except Exception as error:  # noqa: BLE001 — repr must not raise
            return f"<switchyard.Tensor: {error}>"
        try:
            body = np.array2string(self.numpy(), separator=", ", threshold=64,
                                   prefix="switchyard.Tensor(")
        except Exception:  # noqa: BLE001 — e.g. bf16, or a failed kernel
            return f"switchyard.Tensor({head})"
        return f"switchyard.Tensor({body}, {head})"


Tensor.__module__ = "switchyard"


def _is_dtype_name(text):
    try:
        _C.dtype_from_name(text)
        return True
    except ValueError:
        return False


def _dims_arg(dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        return tuple(dims[0])
    return dims


def _reflected(name, tensor, scalar):
    """`scalar <op> tensor` for sub, div and pow: the scalar as a 0-d tensor
    of the tensor's dtype and device, then the op (exact, unlike rewriting
    2 - x as -(x - 2))."""
    other = tensor_like(scalar, tensor)
    return getattr(tensor.context.ops, name)(other, tensor)


def tensor_like(value, like):
    """A 0-d tensor holding `value` with `like`'s dtype and device."""
    dtype = like.dtype
    if dtype.numpy is None:  # bf16: make it f32, then cast
        base = tensor(np.asarray(value, np.float32), device=like.device)
        return like.context.ops.cast(base, dtype)
    return tensor(np.asarray(value, dtype.numpy), device=like.device)


# ---- Making tensors -----------------------------------------------------------

def _resolve(device, context):
    """(context, Device) from the user's device/context arguments."""
    if isinstance(device, Device):
        if context is not None and device.context is not context:
            raise ValueError("device belongs to another context than `context`")
        return device.context, device
    context = context if context is not None else default_context()
    return context, context.device(device if device is not None else "cpu")


def _host_array(data, dtype):
    if isinstance(data, np.ndarray) or (dtype is not None and not isinstance(data, numbers.Number)):
        array = np.asarray(data)
    else:
        # Python numbers and lists follow PyTorch: floats become float32.
        array = np.asarray(data)
        if array.dtype == np.float64 and dtype is None:
            array = array.astype(np.float32)
    if dtype is not None:
        if dtype.numpy is None:
            raise TypeError(
                f"cannot convert host data to {dtype.name} (NumPy has no such "
                "dtype); make a float32 tensor and astype() it")
        array = array.astype(dtype.numpy, copy=False)
    # Not np.ascontiguousarray: it turns a 0-d array into a 1-d one.
    return array if array.flags.c_contiguous else array.copy(order="C")


def tensor(data, dtype=None, device=None, context=None):
    """A new tensor holding a copy of `data` (a NumPy array, a nested list, a
    number, or a switchyard.Tensor).

    NumPy arrays keep their dtype; Python floats become float32 and ints
    int64, as in PyTorch. `device` is a Device or a spec ("cpu", "cuda:0");
    the default is the default context's cpu."""
    if isinstance(data, Tensor):
        copied = data.context.ops.copy(data)
        if dtype is not None:
            copied = data.context.ops.cast(copied, dtype)
        return copied.to(device) if device is not None else copied
    dtype = _dtypes.as_dtype(dtype) if dtype is not None else None
    context, device = _resolve(device, context)
    array = _host_array(data, dtype)
    return _C.tensor_from_host(context, device._handle, _dtypes.as_dtype(array.dtype).value,
                               array)


def empty(shape, dtype="f32", device=None, context=None):
    """A new tensor whose contents are undefined."""
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    shape = tuple(int64(d, f"switchyard.empty: shape[{i}]") for i, d in enumerate(shape))
    context, device = _resolve(device, context)
    return _C.tensor_empty(context, device._handle, _dtypes.as_dtype(dtype).value, shape)


def zeros(shape, dtype="f32", device=None, context=None):
    dtype = _dtypes.as_dtype(dtype)
    return tensor(np.zeros(shape, dtype=dtype.numpy), device=device, context=context)


def ones(shape, dtype="f32", device=None, context=None):
    dtype = _dtypes.as_dtype(dtype)
    return tensor(np.ones(shape, dtype=dtype.numpy), device=device, context=context)


def from_dlpack(x, *, copy=None, context=None):
    """A tensor over the memory of `x` — anything with __dlpack__ (NumPy
    arrays, PyTorch tensors, switchyard Tensors) or a DLPack capsule.

    copy=None shares the memory when it can and copies otherwise; copy=False
    shares or raises; copy=True always copies (as in the array API standard).
    The memory must be on a device of the context (cpu for NumPy). A CUDA
    producer's pending work is waited for (Note [Importing CUDA memory])."""
    return _dlpack.import_(x, copy, context if context is not None else default_context())
