"""Switchyard for Python: tensors and ops over the C API, through ctypes.

    import numpy as np
    import switchyard as sy

    x = sy.tensor(np.ones((2, 3), np.float32))
    y = sy.ops.gelu(x)
    y.numpy()

Nothing to compile: the package loads libswitchyard.so (see _library.py for
where it looks; SWITCHYARD_LIBRARY overrides). docs/python.md is the guide.
"""

from . import _library
from ._context import AllocatorStats, Context, Device, LoadRecord, default_context
from ._dtypes import (DType, bfloat16, bool_, float16, float32, float64, int8, int32,
                      int64, uint8)
from ._errors import (AbortedError, AlreadyExistsError, CancelledError, DataLossError,
                      DeadlineExceededError, Error, FailedPreconditionError, InternalError,
                      InvalidArgumentError, NotFoundError, OutOfRangeError,
                      PermissionDeniedError, ResourceExhaustedError, UnavailableError,
                      UnimplementedError, UnknownError)
from ._tensor import Tensor, empty, from_dlpack, ones, tensor, zeros

__version__ = _library.text(_library.lib.sy_library_version())
api_version = _library.api_version
library_path = _library.path


def device(spec="cpu"):
    """A device of the default context: "cpu", "cpu:0", "cuda:1"."""
    return default_context().device(spec)


def devices():
    """Every device of the default context."""
    return default_context().devices()


def load_plugin(manifest_path):
    """Loads a plugin into the default context; its ops appear in sy.ops."""
    default_context().load_plugin(manifest_path)


def load_report():
    """The default context's plugin load attempts (LoadRecord list)."""
    return default_context().load_report()


def synchronize():
    default_context().synchronize()


def __getattr__(name):
    # sy.ops is made on first use: building it creates the default context,
    # which loads plugins — work an `import switchyard` alone should not do.
    if name == "ops":
        return default_context().ops
    raise AttributeError(f"module 'switchyard' has no attribute '{name}'")


__all__ = [
    "AbortedError", "AllocatorStats", "AlreadyExistsError", "CancelledError", "Context",
    "DType", "DataLossError", "DeadlineExceededError", "Device", "Error",
    "FailedPreconditionError", "InternalError", "InvalidArgumentError", "LoadRecord",
    "NotFoundError", "OutOfRangeError", "PermissionDeniedError", "ResourceExhaustedError",
    "Tensor", "UnavailableError", "UnimplementedError", "UnknownError", "api_version",
    "bfloat16", "bool_", "default_context", "device", "devices", "empty", "float16",
    "float32", "float64", "from_dlpack", "int32", "int64", "int8", "library_path",
    "load_plugin", "load_report", "ones", "ops", "synchronize", "tensor", "uint8", "zeros",
]
