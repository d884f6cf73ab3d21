//! `Device<'c>`: a device of a context, its properties, stream and allocator.
//!
//! Device handles belong to the context (nothing to release), so a `Device`
//! is a `Copy` token that borrows its `Context`. After its plugin is
//! unloaded every call on it is an error, never a crash.

use std::marker::PhantomData;
use std::ptr;

use crate::context::Context;
use crate::dtype::{DType, Element};
use crate::error::{check, Error, Result};
use crate::ffi;
use crate::tensor::Tensor;
use crate::util;

/// One device ("cpu:0", "cuda:1") of a context.
#[derive(Clone, Copy)]
pub struct Device<'c> {
    handle: ffi::sy_device_handle_t,
    _context: PhantomData<&'c Context>,
}

// SAFETY: as for Context (switchyard.h, "Threads"); the handle is a token.
unsafe impl Send for Device<'_> {}
unsafe impl Sync for Device<'_> {}

/// A device's properties (`sy_device_info_t`), copied out.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub label: String,
    pub device_type: String,
    pub plugin: String,
    pub name: String,
    pub vendor: String,
    pub driver_version: String,
    pub index: i32,
    pub compute_units: i32,
    pub total_memory_bytes: u64,
    /// DLPack device (type code, id).
    pub dl_device: (i32, i32),
    /// Which subnormals the device's arithmetic may flush to zero: a mask of
    /// `FLOAT_FLUSHES_*` (0: it keeps them all, as the cpu does).
    pub float_flags: u32,
}

/// `DeviceInfo::float_flags` bits (`SY_FLOAT_FLUSHES_*`, switchyard/common.h).
pub const FLOAT_FLUSHES_F32_SUBNORMALS: u32 = 1;
pub const FLOAT_FLUSHES_F16_SUBNORMALS: u32 = 2;
pub const FLOAT_FLUSHES_F64_SUBNORMALS: u32 = 4;

/// A snapshot of the device's caching allocator (`sy_allocator_stats_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocatorStats {
    pub allocated_bytes: u64,
    pub reserved_bytes: u64,
    pub peak_allocated_bytes: u64,
    pub num_allocations: u64,
    pub cache_hits: u64,
    pub device_allocations: u64,
    pub device_frees: u64,
}

fn shape_arg(what: &str, shape: &[i64]) -> Result<i32> {
    if shape.len() > ffi::SY_MAX_RANK {
        return Err(Error::invalid(format!(
            "{what}: shape {shape:?} has rank {}, more than the {} the C API carries",
            shape.len(),
            ffi::SY_MAX_RANK
        )));
    }
    util::count(what, shape.len())
}

impl<'c> Device<'c> {
    pub(crate) fn from_raw(_context: &'c Context, handle: ffi::sy_device_handle_t) -> Self {
        Device { handle, _context: PhantomData }
    }

    /// For handles the C API handed out for a tensor of context `'c`.
    pub(crate) fn from_raw_unchecked(handle: ffi::sy_device_handle_t) -> Self {
        Device { handle, _context: PhantomData }
    }

    pub(crate) fn raw(&self) -> ffi::sy_device_handle_t {
        self.handle
    }

    /// The device's properties.
    pub fn info(&self) -> Result<DeviceInfo> {
        let mut i: ffi::sy_device_info_t = ffi::out_struct();
        // SAFETY: the out-struct has struct_size set.
        check(unsafe { ffi::sy_device_get_info(self.handle, &mut i) })?;
        // SAFETY: the strings live as long as the context; copied here.
        unsafe {
            Ok(DeviceInfo {
                label: util::string(i.label),
                device_type: util::string(i.type_),
                plugin: util::string(i.plugin),
                name: util::string(i.name),
                vendor: util::string(i.vendor),
                driver_version: util::string(i.driver_version),
                index: i.index,
                compute_units: i.compute_units,
                total_memory_bytes: i.total_memory_bytes,
                dl_device: (i.dl_device.device_type, i.dl_device.device_id),
                float_flags: i.float_flags,
            })
        }
    }

    /// Waits until every op queued on the device's stream has finished.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: a handle token; the C API checks it.
        check(unsafe { ffi::sy_device_synchronize(self.handle) })
    }

    /// The allocator's counters now.
    pub fn allocator_stats(&self) -> Result<AllocatorStats> {
        let mut s: ffi::sy_allocator_stats_t = ffi::out_struct();
        // SAFETY: the out-struct has struct_size set.
        check(unsafe { ffi::sy_device_allocator_stats(self.handle, &mut s) })?;
        Ok(AllocatorStats {
            allocated_bytes: s.allocated_bytes,
            reserved_bytes: s.reserved_bytes,
            peak_allocated_bytes: s.peak_allocated_bytes,
            num_allocations: s.num_allocations,
            cache_hits: s.cache_hits,
            device_allocations: s.device_allocations,
            device_frees: s.device_frees,
        })
    }

    /// Gives the allocator's cached blocks back to the device.
    pub fn empty_cache(&self) -> Result<()> {
        // SAFETY: a handle token; the C API checks it.
        check(unsafe { ffi::sy_device_empty_cache(self.handle) })
    }

    /// A tensor on this device holding a copy of `data`, dense and
    /// row-major in `shape` (`data.len()` must be the shape's product).
    pub fn tensor<T: Element>(&self, data: &[T], shape: &[i64]) -> Result<Tensor<'c>> {
        // SAFETY: every Element type is plain data of exactly its dtype's
        // size with no padding (bool is one byte, 0 or 1), so its bytes
        // are what the C API expects for T::DTYPE.
        let bytes =
            unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) };
        self.tensor_from_bytes(T::DTYPE, shape, bytes)
    }

    /// A tensor of raw little-endian element bytes of `dtype`.
    pub fn tensor_from_bytes(&self, dtype: DType, shape: &[i64], bytes: &[u8]) -> Result<Tensor<'c>> {
        let ndim = shape_arg("tensor", shape)?;
        let mut out: ffi::sy_tensor_t = ptr::null_mut();
        // SAFETY: shape and bytes are valid for the call; the library
        // copies them before returning.
        check(unsafe {
            ffi::sy_tensor_from_host(
                self.handle,
                dtype.raw(),
                shape.as_ptr(),
                ndim,
                bytes.as_ptr() as *const _,
                bytes.len(),
                &mut out,
            )
        })?;
        // SAFETY: a new reference that is ours.
        Ok(unsafe { Tensor::from_owned(out) })
    }

    /// A new tensor whose contents are undefined (write it with an op's
    /// `call_out` before reading).
    pub fn empty(&self, dtype: DType, shape: &[i64]) -> Result<Tensor<'c>> {
        let ndim = shape_arg("empty", shape)?;
        let mut out: ffi::sy_tensor_t = ptr::null_mut();
        // SAFETY: shape is valid for the call.
        check(unsafe { ffi::sy_tensor_empty(self.handle, dtype.raw(), shape.as_ptr(), ndim, &mut out) })?;
        // SAFETY: a new reference that is ours.
        Ok(unsafe { Tensor::from_owned(out) })
    }
}

impl PartialEq for Device<'_> {
    /// The same device (the C API gives one handle per device).
    fn eq(&self, other: &Self) -> bool {
        self.handle == other.handle
    }
}

impl std::fmt::Debug for Device<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.info() {
            Ok(info) => write!(f, "Device({})", info.label),
            Err(_) => write!(f, "Device(<stale>)"),
        }
    }
}
