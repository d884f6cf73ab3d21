//! Element types: `DType` (the nine tensor dtypes of the C API) and
//! `Element`, the Rust types a tensor can be built from and read into.

use std::fmt;

use crate::error::{Error, Result};
use crate::ffi;
use crate::util;

/// A tensor element type. The discriminants are the C API's `sy_dtype_t`
/// values (DLPack's code | bits << 8 | lanes << 16), so `as u32` is the C
/// value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum DType {
    F32 = ffi::SY_DTYPE_F32,
    F64 = ffi::SY_DTYPE_F64,
    F16 = ffi::SY_DTYPE_F16,
    BF16 = ffi::SY_DTYPE_BF16,
    I32 = ffi::SY_DTYPE_I32,
    I64 = ffi::SY_DTYPE_I64,
    I8 = ffi::SY_DTYPE_I8,
    U8 = ffi::SY_DTYPE_U8,
    Bool = ffi::SY_DTYPE_BOOL,
}

const ALL: [DType; 9] = [
    DType::F32,
    DType::F64,
    DType::F16,
    DType::BF16,
    DType::I32,
    DType::I64,
    DType::I8,
    DType::U8,
    DType::Bool,
];

impl DType {
    /// The dtype of a C value; `None` for anything that is not one of the nine.
    pub fn from_raw(raw: ffi::sy_dtype_t) -> Option<DType> {
        ALL.iter().copied().find(|d| *d as u32 == raw)
    }

    /// The C value (`SY_DTYPE_*`).
    pub fn raw(self) -> ffi::sy_dtype_t {
        self as u32
    }

    /// Parses any spelling the C API knows: "f32", "float32", "double", ….
    pub fn from_name(name: &str) -> Result<DType> {
        let c_name = util::cstring("dtype name", name)?;
        let mut raw: ffi::sy_dtype_t = 0;
        // SAFETY: both pointers are valid for the call.
        crate::error::check(unsafe { ffi::sy_dtype_from_name(c_name.as_ptr(), &mut raw) })?;
        DType::from_raw(raw).ok_or_else(|| Error::invalid(format!("dtype {name:?} is not a tensor dtype")))
    }

    /// "f32", "bf16", "bool", … (`sy_dtype_name`).
    pub fn name(self) -> &'static str {
        // SAFETY: sy_dtype_name returns a static string for every value.
        let name = unsafe { std::ffi::CStr::from_ptr(ffi::sy_dtype_name(self.raw())) };
        name.to_str().unwrap_or("invalid")
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        // SAFETY: a plain function of an integer.
        unsafe { ffi::sy_dtype_size(self.raw()) }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type whose values are a tensor's elements: f32, f64, i32, i64,
/// i8, u8 and bool. (f16 and bf16 have no Rust type; use
/// `Tensor::to_bytes`/`Context::tensor_from_bytes` or a `cast` op.)
///
/// Sealed: the crate hands each slice's bytes to C as `DTYPE`, which is
/// only sound when the layout matches exactly.
pub trait Element: Copy + sealed::Sealed + 'static {
    /// The dtype of a tensor of these elements.
    const DTYPE: DType;
    /// What the C API writes when reading a tensor back: `Self` for numbers,
    /// `u8` for bool (a byte the library wrote is not trusted to be 0 or 1,
    /// which is all a Rust `bool` may hold).
    #[doc(hidden)]
    type Raw: Copy + Default;
    #[doc(hidden)]
    fn from_raw_vec(raw: Vec<Self::Raw>) -> Vec<Self>;
}

macro_rules! numeric_element {
    ($t:ty, $d:expr) => {
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const DTYPE: DType = $d;
            type Raw = $t;
            fn from_raw_vec(raw: Vec<$t>) -> Vec<$t> {
                raw
            }
        }
    };
}

numeric_element!(f32, DType::F32);
numeric_element!(f64, DType::F64);
numeric_element!(i32, DType::I32);
numeric_element!(i64, DType::I64);
numeric_element!(i8, DType::I8);
numeric_element!(u8, DType::U8);

impl sealed::Sealed for bool {}
impl Element for bool {
    const DTYPE: DType = DType::Bool;
    type Raw = u8;
    fn from_raw_vec(raw: Vec<u8>) -> Vec<bool> {
        raw.into_iter().map(|b| b != 0).collect()
    }
}
