//! `Error`: a C status code and the message the C API left for this thread.
//!
//! Every fallible call in the crate returns `Result<T>`. Errors come from two
//! places, with the same shape: the C API (its code and its thread-local
//! message, read right after the failing call on the same thread, before
//! anything else can overwrite it) and the binding itself, for misuse it can
//! see before calling C (an unknown attribute name, a string with a NUL, a
//! typed read of the wrong dtype) — those are `InvalidArgument`, with a
//! message naming the op or argument, like the C API's.

use std::ffi::CStr;
use std::fmt;

use crate::ffi;

/// The C API's status codes (`sy_status_code_t`; absl/gRPC numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    Cancelled,
    Unknown,
    InvalidArgument,
    DeadlineExceeded,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    ResourceExhausted,
    FailedPrecondition,
    Aborted,
    OutOfRange,
    Unimplemented,
    Internal,
    Unavailable,
    DataLoss,
}

impl Code {
    /// The code for a non-OK C status; values outside the enum map to
    /// `Unknown` rather than being trusted.
    pub fn from_raw(raw: ffi::sy_status_code_t) -> Code {
        match raw {
            ffi::SY_STATUS_CANCELLED => Code::Cancelled,
            ffi::SY_STATUS_INVALID_ARGUMENT => Code::InvalidArgument,
            ffi::SY_STATUS_DEADLINE_EXCEEDED => Code::DeadlineExceeded,
            ffi::SY_STATUS_NOT_FOUND => Code::NotFound,
            ffi::SY_STATUS_ALREADY_EXISTS => Code::AlreadyExists,
            ffi::SY_STATUS_PERMISSION_DENIED => Code::PermissionDenied,
            ffi::SY_STATUS_RESOURCE_EXHAUSTED => Code::ResourceExhausted,
            ffi::SY_STATUS_FAILED_PRECONDITION => Code::FailedPrecondition,
            ffi::SY_STATUS_ABORTED => Code::Aborted,
            ffi::SY_STATUS_OUT_OF_RANGE => Code::OutOfRange,
            ffi::SY_STATUS_UNIMPLEMENTED => Code::Unimplemented,
            ffi::SY_STATUS_INTERNAL => Code::Internal,
            ffi::SY_STATUS_UNAVAILABLE => Code::Unavailable,
            ffi::SY_STATUS_DATA_LOSS => Code::DataLoss,
            _ => Code::Unknown,
        }
    }

    /// The C value (`SY_STATUS_*`).
    pub fn raw(self) -> ffi::sy_status_code_t {
        match self {
            Code::Cancelled => ffi::SY_STATUS_CANCELLED,
            Code::Unknown => ffi::SY_STATUS_UNKNOWN,
            Code::InvalidArgument => ffi::SY_STATUS_INVALID_ARGUMENT,
            Code::DeadlineExceeded => ffi::SY_STATUS_DEADLINE_EXCEEDED,
            Code::NotFound => ffi::SY_STATUS_NOT_FOUND,
            Code::AlreadyExists => ffi::SY_STATUS_ALREADY_EXISTS,
            Code::PermissionDenied => ffi::SY_STATUS_PERMISSION_DENIED,
            Code::ResourceExhausted => ffi::SY_STATUS_RESOURCE_EXHAUSTED,
            Code::FailedPrecondition => ffi::SY_STATUS_FAILED_PRECONDITION,
            Code::Aborted => ffi::SY_STATUS_ABORTED,
            Code::OutOfRange => ffi::SY_STATUS_OUT_OF_RANGE,
            Code::Unimplemented => ffi::SY_STATUS_UNIMPLEMENTED,
            Code::Internal => ffi::SY_STATUS_INTERNAL,
            Code::Unavailable => ffi::SY_STATUS_UNAVAILABLE,
            Code::DataLoss => ffi::SY_STATUS_DATA_LOSS,
        }
    }

    /// "INVALID_ARGUMENT", …, as `sy_status_code_name` spells it.
    pub fn name(self) -> &'static str {
        // SAFETY: sy_status_code_name returns a static, NUL-terminated string.
        let name = unsafe { CStr::from_ptr(ffi::sy_status_code_name(self.raw())) };
        name.to_str().unwrap_or("UNKNOWN")
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A failed Switchyard call: what kind of failure, and the message saying
/// what was wrong, where, and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub message: String,
}

/// `std::result::Result` with this crate's `Error`.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error raised by the binding itself.
    pub fn new(code: Code, message: impl Into<String>) -> Error {
        Error { code, message: message.into() }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> Error {
        Error::new(Code::InvalidArgument, message)
    }

    /// The calling thread's last C error. Call only right after the C call
    /// that failed: the message lives until the next Switchyard call.
    fn last(status: ffi::sy_status_code_t) -> Error {
        // SAFETY: never NULL; copied before any other Switchyard call.
        let message = unsafe { crate::util::string(ffi::sy_last_error_message()) };
        let code = if status == ffi::SY_STATUS_OK {
            // Cannot happen through `check`, but a misreported code must not
            // turn into a success.
            Code::Unknown
        } else {
            Code::from_raw(status)
        };
        Error { code, message }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// `Ok(())` for SY_STATUS_OK, else the thread's last error.
pub(crate) fn check(status: ffi::sy_status_code_t) -> Result<()> {
    if status == ffi::SY_STATUS_OK {
        Ok(())
    } else {
        Err(Error::last(status))
    }
}
