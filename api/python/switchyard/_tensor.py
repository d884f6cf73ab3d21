"""switchyard.Tensor: a Python handle on one C tensor reference."""

import ctypes
import numbers

import numpy as np

from . import _dlpack
from . import _dtypes
from . import _library as _l
from ._context import Context, Device, default_context
from ._errors import check


class Tensor:
    """A tensor on a Switchyard device.

    Holds one reference to a C sy_tensor_t, released when the object is
    garbage-collected. Ops queue work asynchronously; numpy(), __dlpack__ and
    item() wait for it. Views (reshape, transpose, …) share memory."""

    __slots__ = ("_handle", "context", "__weakref__")

    def __init__(self, context, handle):
        # Takes over one reference to `handle`. Users make tensors with
        # sy.tensor, sy.empty, sy.from_dlpack or ops, not with this.
        self.context = context
        self._handle = handle

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None and _l is not None and _l.lib is not None:
            # Fails harmlessly (stale handle) when the context is gone.
            _l.lib.sy_tensor_release(handle)

    @property
    def handle(self):
        return self._handle

    # ---- layout ------------------------------------------------------------
    @property
    def dtype(self):
        value = _l.c_dtype()
        check(_l.lib.sy_tensor_dtype(self._handle, ctypes.byref(value)))
        return _dtypes.from_value(value.value)

    @property
    def ndim(self):
        value = ctypes.c_int32()
        check(_l.lib.sy_tensor_ndim(self._handle, ctypes.byref(value)))
        return value.value

    @property
    def shape(self):
        dims = (ctypes.c_int64 * _l.MAX_RANK)()
        check(_l.lib.sy_tensor_shape(self._handle, dims, _l.MAX_RANK))
        return tuple(dims[: self.ndim])

    @property
    def strides(self):
        """Strides in elements (NumPy's are in bytes)."""
        dims = (ctypes.c_int64 * _l.MAX_RANK)()
        check(_l.lib.sy_tensor_strides(self._handle, dims, _l.MAX_RANK))
        return tuple(dims[: self.ndim])

    @property
    def numel(self):
        value = ctypes.c_int64()
        check(_l.lib.sy_tensor_numel(self._handle, ctypes.byref(value)))
        return value.value

    @property
    def nbytes(self):
        value = ctypes.c_size_t()
        check(_l.lib.sy_tensor_nbytes(self._handle, ctypes.byref(value)))
        return value.value

    @property
    def device(self):
        handle = _l.c_handle()
        check(_l.lib.sy_tensor_device(self._handle, ctypes.byref(handle)))
        return self.context._device(handle.value)

    @property
    def data_ptr(self):
        """Address of the first element in device memory."""
        value = ctypes.c_void_p()
        check(_l.lib.sy_tensor_data_ptr(self._handle, ctypes.byref(value)))
        return value.value or 0

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    # ---- data out ----------------------------------------------------------
    def numpy(self):
        """A NumPy array holding a copy of the elements (waits for pending work)."""
        dtype = self.dtype
        if dtype.numpy is None:
            raise TypeError(
                f"{dtype.name} has no NumPy dtype; cast first: "
                "switchyard.ops.cast(t, switchyard.float32).numpy()")
        array = np.empty(self.shape, dtype=dtype.numpy)
        check(_l.lib.sy_tensor_to_host(self._handle, array.ctypes.data_as(ctypes.c_void_p),
                                       array.nbytes))
        return array

    def __array__(self, dtype=None):
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        if self.numel != 1:
            raise ValueError(f"item() needs a tensor of one element, this has {self.numel}")
        return self.numpy().reshape(()).item()

    def to(self, device):
        """This tensor on `device` (a Device or "cuda:0"): a copy, or self if already there."""
        target = self.context.device(device)
        handle = _l.c_handle()
        check(_l.lib.sy_tensor_to_device(self._handle, target._handle, ctypes.byref(handle)))
        return Tensor(self.context, handle.value)

    # ---- DLPack ------------------------------------------------------------
    def __dlpack__(self, stream=None):
        """A DLPack capsule over this tensor's memory (no copy). The
        tensor's device is synchronized first, so the consumer may read on
        any stream at once; `stream` is accepted for the protocol's sake."""
        pointer = ctypes.c_void_p()
        check(_l.lib.sy_tensor_to_dlpack(self._handle, ctypes.byref(pointer)))
        return _dlpack.make_capsule(pointer.value)

    def __dlpack_device__(self):
        return self.device.dlpack_device

    # ---- printing and operators --------------------------------------------
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

    def _op(self, name, *args):
        return getattr(self.context.ops, name)(*args)

    def __add__(self, other):
        return self._op("add", self, other)

    def __radd__(self, other):
        return self._op("add", self, other)

    def __sub__(self, other):
        return self._op("sub", self, other)

    def __mul__(self, other):
        return self._op("mul", self, other)

    def __rmul__(self, other):
        return self._op("mul", self, other)

    def __truediv__(self, other):
        return self._op("div", self, other)

    def __neg__(self):
        return self._op("neg", self)

    def __matmul__(self, other):
        return self._op("matmul", self, other)


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
                "dtype); make a float32 tensor and switchyard.ops.cast it")
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
    sy_dtype = _dtypes.as_dtype(array.dtype)
    shape = (ctypes.c_int64 * max(array.ndim, 1))(*array.shape)
    handle = _l.c_handle()
    check(_l.lib.sy_tensor_from_host(
        device._handle, sy_dtype.value, shape, array.ndim,
        array.ctypes.data_as(ctypes.c_void_p), array.nbytes, ctypes.byref(handle)))
    return Tensor(context, handle.value)


def empty(shape, dtype="f32", device=None, context=None):
    """A new tensor whose contents are undefined."""
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    shape = tuple(_l.int64(d, f"switchyard.empty: shape[{i}]") for i, d in enumerate(shape))
    context, device = _resolve(device, context)
    dims = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    handle = _l.c_handle()
    check(_l.lib.sy_tensor_empty(device._handle, _dtypes.as_dtype(dtype).value, dims,
                                 len(shape), ctypes.byref(handle)))
    return Tensor(context, handle.value)


def zeros(shape, dtype="f32", device=None, context=None):
    dtype = _dtypes.as_dtype(dtype)
    return tensor(np.zeros(shape, dtype=dtype.numpy), device=device, context=context)


def ones(shape, dtype="f32", device=None, context=None):
    dtype = _dtypes.as_dtype(dtype)
    return tensor(np.ones(shape, dtype=dtype.numpy), device=device, context=context)


_COPY_MODES = {None: _l.DLPACK_SHARE_OR_COPY, False: _l.DLPACK_SHARE, True: _l.DLPACK_COPY}


def from_dlpack(x, *, copy=None, context=None):
    """A tensor over the memory of `x` — anything with __dlpack__ (NumPy
    arrays, PyTorch tensors, switchyard Tensors) or a "dltensor" capsule.

    copy=None shares the memory when it can and copies otherwise; copy=False
    shares or raises; copy=True always copies (as in the array API standard).
    The memory must be on a device of the context (cpu for NumPy)."""
    if copy not in _COPY_MODES:
        raise ValueError("copy must be None, True or False")
    context = context if context is not None else default_context()
    capsule = x.__dlpack__() if hasattr(x, "__dlpack__") else x
    pointer = _dlpack.open_capsule(capsule)
    handle = _l.c_handle()
    check(_l.lib.sy_tensor_from_dlpack(context.handle, pointer, _COPY_MODES[copy],
                                       ctypes.byref(handle)))
    _dlpack.mark_used(capsule)
    return Tensor(context, handle.value)
