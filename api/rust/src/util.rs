//! Conversions at the FFI boundary: C strings both ways and counts.

use std::ffi::{CStr, CString};
use std::os::raw::c_char;

use crate::error::{Error, Result};

/// An owned copy of a C string the library handed out; "" for NULL (the
/// header promises non-NULL strings, but a copy costs nothing to guard).
/// Invalid UTF-8 is replaced, never trusted.
///
/// # Safety
/// `ptr` is NULL or points at a NUL-terminated string alive for the call.
pub(crate) unsafe fn string(ptr: *const c_char) -> String {
    if ptr.is_null() {
        String::new()
    } else {
        CStr::from_ptr(ptr).to_string_lossy().into_owned()
    }
}

/// A C string of `value`; a value with an interior NUL cannot cross the
/// boundary, so it is an InvalidArgument naming `what`.
pub(crate) fn cstring(what: &str, value: &str) -> Result<CString> {
    CString::new(value).map_err(|_| {
        Error::invalid(format!(
            "{what}: {value:?} contains a NUL byte, which a C string cannot hold; remove it"
        ))
    })
}

/// A Rust length as the C API's int32_t count.
pub(crate) fn count(what: &str, n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| {
        Error::invalid(format!("{what}: {n} entries is more than the C API's int32 count holds"))
    })
}

/// A C string of a path; on Unix any bytes but NUL are a valid path.
pub(crate) fn cpath(what: &str, path: &std::path::Path) -> Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    CString::new(path.as_os_str().as_bytes()).map_err(|_| {
        Error::invalid(format!("{what}: {path:?} contains a NUL byte, which a C string cannot hold"))
    })
}
