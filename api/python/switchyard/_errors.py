"""Exceptions: one class per C status code, all subclasses of sy.Error.

Each also derives from the built-in exception a Python programmer would
reach for (InvalidArgumentError is a ValueError, NotFoundError a
LookupError, …), so `except ValueError` works too.
"""

from . import _library as _l


class Error(Exception):
    """A failed Switchyard call. `code` is the C status code's name
    ("INVALID_ARGUMENT"), `message` the C API's message."""

    code = "UNKNOWN"

    def __init__(self, message):
        super().__init__(message)
        self.message = message


class CancelledError(Error):
    code = "CANCELLED"


class UnknownError(Error):
    code = "UNKNOWN"


class InvalidArgumentError(Error, ValueError):
    code = "INVALID_ARGUMENT"


class DeadlineExceededError(Error):
    code = "DEADLINE_EXCEEDED"


class NotFoundError(Error, LookupError):
    code = "NOT_FOUND"


class AlreadyExistsError(Error):
    code = "ALREADY_EXISTS"


class PermissionDeniedError(Error):
    code = "PERMISSION_DENIED"


class ResourceExhaustedError(Error, MemoryError):
    code = "RESOURCE_EXHAUSTED"


class FailedPreconditionError(Error, RuntimeError):
    code = "FAILED_PRECONDITION"


class AbortedError(Error):
    code = "ABORTED"


class OutOfRangeError(Error, IndexError):
    code = "OUT_OF_RANGE"


class UnimplementedError(Error, NotImplementedError):
    code = "UNIMPLEMENTED"


class InternalError(Error):
    code = "INTERNAL"


class UnavailableError(Error):
    code = "UNAVAILABLE"


class DataLossError(Error):
    code = "DATA_LOSS"


_BY_CODE = {
    1: CancelledError,
    2: UnknownError,
    3: InvalidArgumentError,
    4: DeadlineExceededError,
    5: NotFoundError,
    6: AlreadyExistsError,
    7: PermissionDeniedError,
    8: ResourceExhaustedError,
    9: FailedPreconditionError,
    10: AbortedError,
    11: OutOfRangeError,
    12: UnimplementedError,
    13: InternalError,
    14: UnavailableError,
    15: DataLossError,
}


def check(status):
    """Raises the exception for a non-OK status, with the C message.

    The message is the calling thread's last error, read right after the
    call on the same thread (ctypes calls run on the caller's thread)."""
    if status != 0:
        message = _l.text(_l.lib.sy_last_error_message())
        raise _BY_CODE.get(status, UnknownError)(message)
