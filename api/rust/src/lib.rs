//! Switchyard from Rust: a safe wrapper over the C API
//! (`switchyard/switchyard.h`), with no dependencies beyond `std`.
//!
//! ```text
//! let ctx = switchyard::Context::new()?;
//! let x = ctx.tensor(&[1.0f32, -2.0, 3.0, -4.0], &[2, 2])?;
//! let y = ctx.call("gelu", &[&x], &[("approximate", "tanh".into())])?;
//! let rows = ctx.call("sum", &[&y], &[("dims", vec![1].into())])?;
//! println!("{:?}", rows.to_vec::<f32>()?);
//! ```
//!
//! The model, in one paragraph (docs/rust.md has the rest): a `Context` owns
//! a `sy_context_t`; `Device<'c>`, `Op<'c>` and `Tensor<'c>` borrow it, so
//! none can outlive it. A `Tensor` owns one reference to a C tensor and
//! releases it on `Drop` (`Clone` retains). Every fallible call returns
//! `Result<T, Error>`, where `Error` carries the C status code and the
//! message the C API wrote for this thread. All types are `Send + Sync`,
//! because every C API function is thread-safe on any handle.
//!
//! `ffi` holds the raw declarations for anything the safe layer lacks.

pub mod ffi;

mod context;
mod device;
mod dtype;
mod error;
mod op;
mod tensor;
mod util;

pub use context::{api_version, library_version, Context, ContextOptions, LoadOutcome, PluginRecord};
pub use device::{
    AllocatorStats, Device, DeviceInfo, FLOAT_FLUSHES_F16_SUBNORMALS, FLOAT_FLUSHES_F32_SUBNORMALS,
    FLOAT_FLUSHES_F64_SUBNORMALS,
};
pub use dtype::{DType, Element};
pub use error::{Code, Error, Result};
pub use op::{ArgInfo, ArgKind, Attr, Op};
pub use tensor::Tensor;
