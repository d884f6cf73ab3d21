"""Switchyard for Python: tensors and ops over the C API.

    import numpy as np
    import switchyard as sy

    x = sy.tensor(np.ones((2, 3), np.float32))
    y = sy.ops.gelu(x + 1)
    np.asarray(y)

Op calls, tensor creation and attribute access run in the compiled module
switchyard._C (CPython's C API with vectorcall); the rest is Python.
docs/python.md is the guide.
"""

import numbers as _numbers

import numpy as _np

from . import _library
from ._library import _C
from . import _errors
from ._autotune import Verdict
from ._context import (FLOAT_FLUSHES_F16_SUBNORMALS, FLOAT_FLUSHES_F32_SUBNORMALS,
                       FLOAT_FLUSHES_F64_SUBNORMALS, AllocatorStats, Context, Device,
                       LoadRecord, default_context)
from ._dtypes import (DType, bfloat16, bool_, float16, float32, float64, int8, int32,
                      int64, uint8)
from ._errors import (AbortedError, AlreadyExistsError, CancelledError, DataLossError,
                      DeadlineExceededError, Error, FailedPreconditionError, InternalError,
                      InvalidArgumentError, NotFoundError, OutOfRangeError,
                      PermissionDeniedError, ResourceExhaustedError, UnavailableError,
                      UnimplementedError, UnknownError)
from ._logging import flush_log, log_handler, set_log_handler
from ._profile import Profile, ProfileRow, profile
from ._graph import CompiledFunction, Graph, GraphBreakWarning, compile, graph
from ._tensor import Tensor, empty, from_dlpack, ones, tensor, zeros
from . import _dtypes, _tensor
from . import distributed

_C._register(Tensor, dict(_errors.BY_CODE), list(_dtypes.ALL), _dtypes.as_dtype,
             _tensor._reflected, _numbers.Integral, _numbers.Real, _np.bool_)

__version__ = _C.library_version()
api_version = _library.api_version
library_path = _library.path


def set_log_level(level):
    """Sets the process-wide log level by name: "off", "error", "warning"
    (the default), "info" or "debug" (one line per op call saying how it was
    resolved). An unknown name raises InvalidArgumentError listing them."""
    _C.log_set_level(str(level))


def log_level():
    """The current log level's name."""
    return _C.log_level()


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


class _DefaultOps:
    """sy.ops: the default context's ops, made on first use (making them
    creates the default context, which loads plugins — work that `import
    switchyard` alone should not do). Each name is looked up once and kept,
    so `sy.ops.add` costs a dict lookup; a plugin load or unload in the
    default context forgets the kept names."""

    def __init__(self):
        self._listening = False

    def _forget(self):
        for name in [n for n in vars(self) if not n.startswith("_")]:
            delattr(self, name)

    def _namespace(self):
        context = default_context()
        if not self._listening:
            context._ops_listeners.append(self._forget)
            self._listening = True
        return context.ops

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._namespace(), name)
        setattr(self, name, value)
        return value

    def __dir__(self):
        return dir(self._namespace())

    def __repr__(self):
        return repr(self._namespace())


ops = _DefaultOps()

__all__ = [
    "AbortedError", "AllocatorStats", "AlreadyExistsError", "CancelledError", "Context",
    "DType", "DataLossError", "DeadlineExceededError", "Device", "Error",
    "FailedPreconditionError", "InternalError", "InvalidArgumentError", "LoadRecord",
    "NotFoundError", "OutOfRangeError", "PermissionDeniedError", "Profile", "ProfileRow",
    "ResourceExhaustedError", "Tensor", "UnavailableError", "UnimplementedError",
    "UnknownError", "Verdict", "api_version", "bfloat16", "bool_", "default_context",
    "device", "devices", "empty", "float16", "float32", "float64", "flush_log",
    "from_dlpack", "int32", "int64", "int8", "library_path", "load_plugin", "load_report",
    "log_handler", "log_level", "ops", "profile", "set_log_handler", "set_log_level",
    "synchronize",
    "tensor", "uint8", "zeros",
]
# Graphs (_graph.py).
__all__ += ["CompiledFunction", "Graph", "GraphBreakWarning", "compile", "graph"]
