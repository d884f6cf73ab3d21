"""Exceptions: one class per C status code, all subclasses of sy.Error.

Each also derives from the built-in exception a Python programmer would
reach for (InvalidArgumentError is a ValueError, NotFoundError a
LookupError, …), so `except ValueError` works too. They print as
`switchyard.InvalidArgumentError: …`.
"""

from ._library import _C


class Error(Exception):
    """A failed Switchyard call. `code` is the C status code's name
    ("INVALID_ARGUMENT"), `message` the message."""

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


BY_CODE = {
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

# Tracebacks name them as users import them: switchyard.InvalidArgumentError.
for _class in (Error, *BY_CODE.values()):
    _class.__module__ = "switchyard"


def check(status):
    """Raises the exception for a non-OK status with the calling thread's
    last C message (for calls made through sy._library.lib)."""
    if status != 0:
        raise BY_CODE.get(status, UnknownError)(_C.last_error_message())
