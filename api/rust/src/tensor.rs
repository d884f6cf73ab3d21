//! `Tensor<'c>`: one reference to a C tensor handle.
//!
//! Ownership maps one to one: every C function that hands out a
//! `sy_tensor_t` hands out one reference, which a `Tensor` owns; `Drop`
//! calls `sy_tensor_release` and `Clone` calls `sy_tensor_retain` (the
//! clone is the same tensor, sharing memory, not a copy). The `'c`
//! lifetime ties the tensor to its `Context`, so it cannot outlive it.

use std::marker::PhantomData;
use std::os::raw::c_void;
use std::ptr;

use crate::context::Context;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{check, Error, Result};
use crate::ffi;

/// A tensor on some device of a context `'c`.
pub struct Tensor<'c> {
    handle: ffi::sy_tensor_t,
    _context: PhantomData<&'c Context>,
}

// SAFETY: switchyard.h, "Threads": every function is thread-safe, also on
// the same handles (retain/release are atomic reference counts); reading
// to the host waits for pending work. Nothing in a Tensor is thread-bound.
unsafe impl Send for Tensor<'_> {}
unsafe impl Sync for Tensor<'_> {}

impl<'c> Tensor<'c> {
    /// Wraps a reference the caller owns.
    ///
    /// # Safety
    /// `handle` is a live tensor handle of a context that outlives `'c`,
    /// and the caller gives up the one reference it held.
    pub(crate) unsafe fn from_owned(handle: ffi::sy_tensor_t) -> Tensor<'c> {
        Tensor { handle, _context: PhantomData }
    }

    /// The C handle, borrowed (still owned by this Tensor).
    pub fn raw(&self) -> ffi::sy_tensor_t {
        self.handle
    }

    /// The element type.
    pub fn dtype(&self) -> Result<DType> {
        let mut raw: ffi::sy_dtype_t = 0;
        // SAFETY: valid out-pointer; the C API checks the handle.
        check(unsafe { ffi::sy_tensor_dtype(self.handle, &mut raw) })?;
        DType::from_raw(raw).ok_or_else(|| {
            Error::new(crate::Code::Internal, format!("tensor has an unknown dtype value {raw:#x}"))
        })
    }

    /// The sizes, outermost first (empty for a scalar).
    pub fn shape(&self) -> Result<Vec<i64>> {
        let mut shape = [0i64; ffi::SY_MAX_RANK];
        // SAFETY: SY_MAX_RANK entries always suffice.
        check(unsafe { ffi::sy_tensor_shape(self.handle, shape.as_mut_ptr(), shape.len() as i32) })?;
        Ok(shape[..self.ndim()?].to_vec())
    }

    /// Strides in elements (views may be strided; 0 repeats an element).
    pub fn strides(&self) -> Result<Vec<i64>> {
        let mut strides = [0i64; ffi::SY_MAX_RANK];
        // SAFETY: SY_MAX_RANK entries always suffice.
        check(unsafe { ffi::sy_tensor_strides(self.handle, strides.as_mut_ptr(), strides.len() as i32) })?;
        Ok(strides[..self.ndim()?].to_vec())
    }

    /// The rank, 0 to 8.
    pub fn ndim(&self) -> Result<usize> {
        let mut ndim = 0i32;
        // SAFETY: valid out-pointer.
        check(unsafe { ffi::sy_tensor_ndim(self.handle, &mut ndim) })?;
        Ok(ndim.clamp(0, ffi::SY_MAX_RANK as i32) as usize)
    }

    /// The number of elements (1 for a scalar).
    pub fn numel(&self) -> Result<usize> {
        let mut numel = 0i64;
        // SAFETY: valid out-pointer.
        check(unsafe { ffi::sy_tensor_numel(self.handle, &mut numel) })?;
        Ok(numel.max(0) as usize)
    }

    /// numel × dtype size: what `to_bytes` returns.
    pub fn nbytes(&self) -> Result<usize> {
        let mut nbytes = 0usize;
        // SAFETY: valid out-pointer.
        check(unsafe { ffi::sy_tensor_nbytes(self.handle, &mut nbytes) })?;
        Ok(nbytes)
    }

    /// The device the tensor lives on.
    pub fn device(&self) -> Result<Device<'c>> {
        let mut device: ffi::sy_device_handle_t = ptr::null_mut();
        // SAFETY: valid out-pointer.
        check(unsafe { ffi::sy_tensor_device(self.handle, &mut device) })?;
        Ok(Device::from_raw_unchecked(device))
    }

    /// The address of element (0, …, 0) in device memory (a host address
    /// only on host devices). Reading through it is `unsafe` and only
    /// sound after the tensor's pending work finished.
    pub fn data_ptr(&self) -> Result<*mut c_void> {
        let mut data: *mut c_void = ptr::null_mut();
        // SAFETY: valid out-pointer.
        check(unsafe { ffi::sy_tensor_data_ptr(self.handle, &mut data) })?;
        Ok(data)
    }

    /// The elements, dense and row-major, copied to the host (waits for the
    /// tensor's pending work). `T` must match the dtype: reading an f32
    /// tensor as f64 is an error, not a conversion (use the `cast` op).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let dtype = self.dtype()?;
        if dtype != T::DTYPE {
            return Err(Error::invalid(format!(
                "to_vec: the tensor holds {dtype}, not {}; read it as its own type or \
                 cast it first (the 'cast' op)",
                T::DTYPE
            )));
        }
        let mut raw: Vec<T::Raw> = vec![T::Raw::default(); self.numel()?];
        // SAFETY: `raw` has exactly numel × size bytes of plain data; the C
        // API checks the size again against the tensor.
        check(unsafe {
            ffi::sy_tensor_to_host(
                self.handle,
                raw.as_mut_ptr() as *mut c_void,
                std::mem::size_of_val(raw.as_slice()),
            )
        })?;
        Ok(T::from_raw_vec(raw))
    }

    /// The elements' bytes, dense and row-major (any dtype, f16 and bf16
    /// included), copied to the host after the pending work.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; self.nbytes()?];
        // SAFETY: `bytes` holds exactly nbytes.
        check(unsafe {
            ffi::sy_tensor_to_host(self.handle, bytes.as_mut_ptr() as *mut c_void, bytes.len())
        })?;
        Ok(bytes)
    }

    /// The only element of a one-element tensor.
    pub fn item<T: Element>(&self) -> Result<T> {
        let values = self.to_vec::<T>()?;
        match values.as_slice() {
            [value] => Ok(*value),
            _ => Err(Error::invalid(format!(
                "item: the tensor has {} elements, not 1; use to_vec",
                values.len()
            ))),
        }
    }

    /// The tensor on `device`: a copy when it lives elsewhere, the same
    /// tensor (a new reference) when it is already there.
    pub fn to_device(&self, device: &Device<'c>) -> Result<Tensor<'c>> {
        let mut out: ffi::sy_tensor_t = ptr::null_mut();
        // SAFETY: valid out-pointer; the C API checks both handles.
        check(unsafe { ffi::sy_tensor_to_device(self.handle, device.raw(), &mut out) })?;
        // SAFETY: a new reference that is ours.
        Ok(unsafe { Tensor::from_owned(out) })
    }
}

impl Clone for Tensor<'_> {
    /// Another reference to the same tensor (`sy_tensor_retain`).
    fn clone(&self) -> Self {
        // SAFETY: our handle is live while we hold our reference, so retain
        // cannot fail; a failure here would mean a bug in this crate.
        let status = unsafe { ffi::sy_tensor_retain(self.handle) };
        assert_eq!(status, ffi::SY_STATUS_OK, "sy_tensor_retain failed on a live tensor");
        Tensor { handle: self.handle, _context: PhantomData }
    }
}

impl Drop for Tensor<'_> {
    fn drop(&mut self) {
        // SAFETY: we own exactly one reference. Release cannot fail for a
        // live handle, and Drop has no way to report an error anyway.
        unsafe { ffi::sy_tensor_release(self.handle) };
    }
}

impl std::fmt::Debug for Tensor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.dtype(), self.shape()) {
            (Ok(dtype), Ok(shape)) => write!(f, "Tensor({dtype}, {shape:?})"),
            _ => write!(f, "Tensor(<stale>)"),
        }
    }
}
