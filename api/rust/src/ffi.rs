//! Raw declarations of the C API: `switchyard/switchyard.h` and the parts of
//! `switchyard/common.h` and `switchyard/plugin.h` it uses, transcribed by
//! hand (no bindgen, so the crate builds offline with no dependencies).
//!
//! Everything here mirrors the header one to one: `#[repr(C)]` structs with
//! the same fields in the same order, C enums as the integer types the
//! header stores them in (`sy_status_code_t` is a C enum, so `c_int`;
//! `sy_dtype_t` is `uint32_t`; struct fields typed `int32_t /* enum */` stay
//! `i32`). The header is the reference for what each function does; the
//! safe wrapper in the rest of the crate is what applications should use.
//! The layout tests at the bottom check the sizes the header's
//! static_asserts fix.
#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_int, c_void};

// ---- common.h ---------------------------------------------------------------

/// `sy_status_code_t`: a C enum, passed as `int`.
pub type sy_status_code_t = c_int;
pub const SY_STATUS_OK: sy_status_code_t = 0;
pub const SY_STATUS_CANCELLED: sy_status_code_t = 1;
pub const SY_STATUS_UNKNOWN: sy_status_code_t = 2;
pub const SY_STATUS_INVALID_ARGUMENT: sy_status_code_t = 3;
pub const SY_STATUS_DEADLINE_EXCEEDED: sy_status_code_t = 4;
pub const SY_STATUS_NOT_FOUND: sy_status_code_t = 5;
pub const SY_STATUS_ALREADY_EXISTS: sy_status_code_t = 6;
pub const SY_STATUS_PERMISSION_DENIED: sy_status_code_t = 7;
pub const SY_STATUS_RESOURCE_EXHAUSTED: sy_status_code_t = 8;
pub const SY_STATUS_FAILED_PRECONDITION: sy_status_code_t = 9;
pub const SY_STATUS_ABORTED: sy_status_code_t = 10;
pub const SY_STATUS_OUT_OF_RANGE: sy_status_code_t = 11;
pub const SY_STATUS_UNIMPLEMENTED: sy_status_code_t = 12;
pub const SY_STATUS_INTERNAL: sy_status_code_t = 13;
pub const SY_STATUS_UNAVAILABLE: sy_status_code_t = 14;
pub const SY_STATUS_DATA_LOSS: sy_status_code_t = 15;

/// `sy_dtype_t`: DLPack's DLDataType packed into `code | bits << 8 | lanes << 16`.
pub type sy_dtype_t = u32;

/// `SY_DTYPE_MAKE(code, bits)`.
pub const fn sy_dtype_make(code: u32, bits: u32) -> sy_dtype_t {
    code | (bits << 8) | (1 << 16)
}

pub const SY_DTYPE_NONE: sy_dtype_t = 0;
pub const SY_DTYPE_F32: sy_dtype_t = sy_dtype_make(2, 32);
pub const SY_DTYPE_F64: sy_dtype_t = sy_dtype_make(2, 64);
pub const SY_DTYPE_F16: sy_dtype_t = sy_dtype_make(2, 16);
pub const SY_DTYPE_BF16: sy_dtype_t = sy_dtype_make(4, 16);
pub const SY_DTYPE_I32: sy_dtype_t = sy_dtype_make(0, 32);
pub const SY_DTYPE_I64: sy_dtype_t = sy_dtype_make(0, 64);
pub const SY_DTYPE_I8: sy_dtype_t = sy_dtype_make(0, 8);
pub const SY_DTYPE_U8: sy_dtype_t = sy_dtype_make(1, 8);
pub const SY_DTYPE_BOOL: sy_dtype_t = sy_dtype_make(6, 8);

/// `SY_MAX_RANK`.
pub const SY_MAX_RANK: usize = 8;

/// `sy_device_t` (DLPack's DLDevice).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct sy_device_t {
    pub device_type: i32,
    pub device_id: i32,
}

// ---- plugin.h: attributes -----------------------------------------------------

pub const SY_ATTR_NONE: i32 = 0;
pub const SY_ATTR_INT: i32 = 1;
pub const SY_ATTR_FLOAT: i32 = 2;
pub const SY_ATTR_BOOL: i32 = 3;
pub const SY_ATTR_INTS: i32 = 4;
pub const SY_ATTR_STRING: i32 = 5;
pub const SY_ATTR_DTYPE: i32 = 6;
/// `SY_ATTR_DEFAULT` (switchyard.h): "this attribute takes its default".
pub const SY_ATTR_DEFAULT: i32 = -1;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct sy_attr_ints_t {
    pub data: *const i64,
    pub size: i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct sy_attr_str_t {
    pub data: *const c_char,
    pub size: i64,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union sy_attr_value_t {
    pub i: i64,
    pub f: f64,
    pub b: i32,
    pub dtype: sy_dtype_t,
    pub ints: sy_attr_ints_t,
    pub str: sy_attr_str_t,
}

/// `sy_attr_t`: frozen at 24 bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct sy_attr_t {
    pub kind: i32, // sy_attr_kind_t
    pub reserved: i32,
    pub value: sy_attr_value_t,
}

// ---- switchyard.h -------------------------------------------------------------

/// The API version these declarations transcribe (`SY_API_VERSION_*`): a
/// library of the same major and a minor at least this one will do.
pub const SY_API_VERSION_MAJOR: u32 = 1;
pub const SY_API_VERSION_MINOR: u32 = 0;

/// Opaque handle tokens (never dereferenced).
#[repr(C)]
pub struct sy_context_token_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct sy_device_token_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct sy_op_token_t {
    _private: [u8; 0],
}
#[repr(C)]
pub struct sy_tensor_token_t {
    _private: [u8; 0],
}
/// DLPack's managed tensor; only passed by pointer.
#[repr(C)]
pub struct DLManagedTensor {
    _private: [u8; 0],
}

pub type sy_context_t = *mut sy_context_token_t;
pub type sy_device_handle_t = *mut sy_device_token_t;
pub type sy_op_t = *mut sy_op_token_t;
pub type sy_tensor_t = *mut sy_tensor_token_t;

#[repr(C)]
pub struct sy_context_options_t {
    pub struct_size: usize,
    pub extension: *mut c_void,
    pub plugin_paths: *const *const c_char,
    pub num_plugin_paths: i32,
    pub plugin_manifests: *const *const c_char,
    pub num_plugin_manifests: i32,
    pub allow: *const *const c_char,
    pub num_allow: i32,
    pub deny: *const *const c_char,
    pub num_deny: i32,
    pub use_environment: i32,
    pub use_default_path: i32,
    pub cpu_fallback: i32,
}

impl sy_context_options_t {
    /// What the header's inline `sy_context_options_init` does.
    pub fn init() -> Self {
        sy_context_options_t {
            struct_size: std::mem::size_of::<Self>(),
            extension: std::ptr::null_mut(),
            plugin_paths: std::ptr::null(),
            num_plugin_paths: 0,
            plugin_manifests: std::ptr::null(),
            num_plugin_manifests: 0,
            allow: std::ptr::null(),
            num_allow: 0,
            deny: std::ptr::null(),
            num_deny: 0,
            use_environment: 1,
            use_default_path: 1,
            cpu_fallback: -1,
        }
    }
}

pub const SY_LOAD_LOADED: i32 = 0;
pub const SY_LOAD_FAILED: i32 = 1;
pub const SY_LOAD_SKIPPED: i32 = 2;

#[repr(C)]
pub struct sy_plugin_record_t {
    pub struct_size: usize,
    pub extension: *mut c_void,
    pub name: *const c_char,
    pub manifest_path: *const c_char,
    pub library_path: *const c_char,
    pub outcome: i32, // sy_load_outcome_t
    pub requested: i32,
    pub stage: *const c_char,
    pub reason: *const c_char,
    pub description: *const c_char,
    pub plugin_version: *const c_char,
    pub host_abi_major: u32,
    pub host_abi_minor: u32,
    pub plugin_abi_major: u32,
    pub plugin_abi_minor: u32,
    pub num_devices: i32,
    pub num_schemas: i32,
    pub num_kernels: i32,
    pub reserved: i32,
    pub load_ms: f64,
}

#[repr(C)]
pub struct sy_device_info_t {
    pub struct_size: usize,
    pub extension: *mut c_void,
    pub label: *const c_char,
    pub type_: *const c_char,
    pub plugin: *const c_char,
    pub name: *const c_char,
    pub vendor: *const c_char,
    pub driver_version: *const c_char,
    pub index: i32,
    pub compute_units: i32,
    pub total_memory_bytes: u64,
    pub dl_device: sy_device_t,
    // 1.2
    pub float_flags: u32,
    pub reserved: u32,
}

#[repr(C)]
pub struct sy_allocator_stats_t {
    pub struct_size: usize,
    pub extension: *mut c_void,
    pub allocated_bytes: u64,
    pub reserved_bytes: u64,
    pub peak_allocated_bytes: u64,
    pub num_allocations: u64,
    pub cache_hits: u64,
    pub device_allocations: u64,
    pub device_frees: u64,
}

pub const SY_DLPACK_SHARE_OR_COPY: i32 = 0;
pub const SY_DLPACK_SHARE: i32 = 1;
pub const SY_DLPACK_COPY: i32 = 2;

#[repr(C)]
pub struct sy_op_info_t {
    pub struct_size: usize,
    pub extension: *mut c_void,
    pub full_name: *const c_char,
    pub ns: *const c_char,
    pub name: *const c_char,
    pub overload: *const c_char,
    pub schema: *const c_char,
    pub owner: *const c_char,
    pub num_args: i32,
    pub num_tensor_args: i32,
    pub num_attrs: i32,
    pub num_outputs: i32,
    pub list_arg: i32,
    pub live: i32,
}

pub const SY_ARG_TENSOR: i32 = 0;
pub const SY_ARG_TENSOR_LIST: i32 = 1;
pub const SY_ARG_INT: i32 = 2;
pub const SY_ARG_INT_LIST: i32 = 3;
pub const SY_ARG_FLOAT: i32 = 4;
pub const SY_ARG_BOOL: i32 = 5;
pub const SY_ARG_SCALAR: i32 = 6;
pub const SY_ARG_STRING: i32 = 7;
pub const SY_ARG_DTYPE: i32 = 8;
pub const SY_ARG_COMMUNICATOR: i32 = 9;

#[repr(C)]
pub struct sy_op_arg_t {
    pub struct_size: usize,
    pub extension: *mut c_void,
    pub name: *const c_char,
    pub kind: i32, // sy_arg_kind_t
    pub optional: i32,
    pub has_default: i32,
    pub tensor_index: i32,
    pub attr_index: i32,
    pub reserved: i32,
    pub default_value: sy_attr_t,
    pub default_text: *const c_char,
    pub kind_name: *const c_char,
}

/// A zeroed out-struct with `struct_size` set, as the header asks callers to
/// pass. Sound for the structs above: all-zero bytes are valid for every
/// field (integers, floats and raw pointers).
pub fn out_struct<T>() -> T {
    // SAFETY: only instantiated with the plain-data structs of this module.
    let mut value: T = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<T>();
    // SAFETY: each of those structs starts with `size_t struct_size`.
    unsafe { *(&mut value as *mut T as *mut usize) = size };
    value
}

#[link(name = "switchyard")]
extern "C" {
    // Version and errors.
    pub fn sy_api_version(out_major: *mut u32, out_minor: *mut u32) -> sy_status_code_t;
    pub fn sy_library_version() -> *const c_char;
    pub fn sy_last_error_code() -> sy_status_code_t;
    pub fn sy_last_error_message() -> *const c_char;
    pub fn sy_status_code_name(code: sy_status_code_t) -> *const c_char;

    // Data types.
    pub fn sy_dtype_name(dtype: sy_dtype_t) -> *const c_char;
    pub fn sy_dtype_from_name(name: *const c_char, out_dtype: *mut sy_dtype_t) -> sy_status_code_t;
    pub fn sy_dtype_size(dtype: sy_dtype_t) -> usize;

    // Contexts.
    pub fn sy_context_create(
        options: *const sy_context_options_t,
        out_context: *mut sy_context_t,
    ) -> sy_status_code_t;
    pub fn sy_context_destroy(context: sy_context_t) -> sy_status_code_t;
    pub fn sy_context_load_plugin(context: sy_context_t, manifest_path: *const c_char) -> sy_status_code_t;
    pub fn sy_context_unload_plugin(context: sy_context_t, name: *const c_char) -> sy_status_code_t;
    pub fn sy_context_plugin_record_count(context: sy_context_t, out_count: *mut i32) -> sy_status_code_t;
    pub fn sy_context_plugin_record(
        context: sy_context_t,
        index: i32,
        out_record: *mut sy_plugin_record_t,
    ) -> sy_status_code_t;
    pub fn sy_context_info_json(context: sy_context_t, out_json: *mut *const c_char) -> sy_status_code_t;
    pub fn sy_context_synchronize(context: sy_context_t) -> sy_status_code_t;

    // Devices.
    pub fn sy_device_count(context: sy_context_t, out_count: *mut i32) -> sy_status_code_t;
    pub fn sy_device_get(
        context: sy_context_t,
        index: i32,
        out_device: *mut sy_device_handle_t,
    ) -> sy_status_code_t;
    pub fn sy_device_find(
        context: sy_context_t,
        spec: *const c_char,
        out_device: *mut sy_device_handle_t,
    ) -> sy_status_code_t;
    pub fn sy_device_get_info(
        device: sy_device_handle_t,
        out_info: *mut sy_device_info_t,
    ) -> sy_status_code_t;
    pub fn sy_device_synchronize(device: sy_device_handle_t) -> sy_status_code_t;
    pub fn sy_device_allocator_stats(
        device: sy_device_handle_t,
        out_stats: *mut sy_allocator_stats_t,
    ) -> sy_status_code_t;
    pub fn sy_device_empty_cache(device: sy_device_handle_t) -> sy_status_code_t;

    // Tensors.
    pub fn sy_tensor_empty(
        device: sy_device_handle_t,
        dtype: sy_dtype_t,
        shape: *const i64,
        ndim: i32,
        out_tensor: *mut sy_tensor_t,
    ) -> sy_status_code_t;
    pub fn sy_tensor_from_host(
        device: sy_device_handle_t,
        dtype: sy_dtype_t,
        shape: *const i64,
        ndim: i32,
        data: *const c_void,
        nbytes: usize,
        out_tensor: *mut sy_tensor_t,
    ) -> sy_status_code_t;
    pub fn sy_tensor_to_host(tensor: sy_tensor_t, dst: *mut c_void, nbytes: usize) -> sy_status_code_t;
    pub fn sy_tensor_to_device(
        tensor: sy_tensor_t,
        device: sy_device_handle_t,
        out_tensor: *mut sy_tensor_t,
    ) -> sy_status_code_t;
    pub fn sy_tensor_retain(tensor: sy_tensor_t) -> sy_status_code_t;
    pub fn sy_tensor_release(tensor: sy_tensor_t) -> sy_status_code_t;
    pub fn sy_tensor_dtype(tensor: sy_tensor_t, out_dtype: *mut sy_dtype_t) -> sy_status_code_t;
    pub fn sy_tensor_ndim(tensor: sy_tensor_t, out_ndim: *mut i32) -> sy_status_code_t;
    pub fn sy_tensor_shape(tensor: sy_tensor_t, out_shape: *mut i64, capacity: i32) -> sy_status_code_t;
    pub fn sy_tensor_strides(tensor: sy_tensor_t, out_strides: *mut i64, capacity: i32) -> sy_status_code_t;
    pub fn sy_tensor_numel(tensor: sy_tensor_t, out_numel: *mut i64) -> sy_status_code_t;
    pub fn sy_tensor_nbytes(tensor: sy_tensor_t, out_nbytes: *mut usize) -> sy_status_code_t;
    pub fn sy_tensor_device(tensor: sy_tensor_t, out_device: *mut sy_device_handle_t) -> sy_status_code_t;
    pub fn sy_tensor_data_ptr(tensor: sy_tensor_t, out_data: *mut *mut c_void) -> sy_status_code_t;

    // DLPack.
    pub fn sy_tensor_to_dlpack(
        tensor: sy_tensor_t,
        out_managed: *mut *mut DLManagedTensor,
    ) -> sy_status_code_t;
    pub fn sy_tensor_from_dlpack(
        context: sy_context_t,
        managed: *mut DLManagedTensor,
        mode: i32, // sy_dlpack_import_mode_t
        out_tensor: *mut sy_tensor_t,
    ) -> sy_status_code_t;

    // Ops.
    pub fn sy_op_find(context: sy_context_t, name: *const c_char, out_op: *mut sy_op_t) -> sy_status_code_t;
    pub fn sy_op_count(context: sy_context_t, out_count: *mut i32) -> sy_status_code_t;
    pub fn sy_op_get(context: sy_context_t, index: i32, out_op: *mut sy_op_t) -> sy_status_code_t;
    pub fn sy_op_get_info(op: sy_op_t, out_info: *mut sy_op_info_t) -> sy_status_code_t;
    pub fn sy_op_get_arg(op: sy_op_t, index: i32, out_arg: *mut sy_op_arg_t) -> sy_status_code_t;
    pub fn sy_op_call(
        op: sy_op_t,
        inputs: *const sy_tensor_t,
        num_inputs: i32,
        attrs: *const sy_attr_t,
        num_attrs: i32,
        out_outputs: *mut sy_tensor_t,
        num_outputs: i32,
    ) -> sy_status_code_t;
    pub fn sy_op_call_out(
        op: sy_op_t,
        inputs: *const sy_tensor_t,
        num_inputs: i32,
        attrs: *const sy_attr_t,
        num_attrs: i32,
        outputs: *const sy_tensor_t,
        num_outputs: i32,
    ) -> sy_status_code_t;
    pub fn sy_op_explain(
        op: sy_op_t,
        inputs: *const sy_tensor_t,
        num_inputs: i32,
        attrs: *const sy_attr_t,
        num_attrs: i32,
        out_text: *mut *const c_char,
    ) -> sy_status_code_t;
}

#[cfg(test)]
mod layout {
    use super::*;
    use std::mem::size_of;

    // The sizes the header's static_asserts (SY_STRUCT_SIZE of each
    // struct's last field == sizeof) fix on LP64.
    #[test]
    fn struct_sizes_match_the_header() {
        assert_eq!(size_of::<sy_attr_t>(), 24);
        assert_eq!(size_of::<sy_device_t>(), 8);
        assert_eq!(size_of::<sy_context_options_t>(), 88);
        assert_eq!(size_of::<sy_plugin_record_t>(), 120);
        assert_eq!(size_of::<sy_device_info_t>(), 96); // with 1.2's float_flags
        assert_eq!(size_of::<sy_allocator_stats_t>(), 72);
        assert_eq!(size_of::<sy_op_info_t>(), 88);
        assert_eq!(size_of::<sy_op_arg_t>(), 88);
    }
}
