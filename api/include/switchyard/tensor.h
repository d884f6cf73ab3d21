/* Switchyard — tensors, strided views and DLPack exchange (part of the C
 * API).
 *
 * Part of the C API: switchyard/switchyard.h includes it, and the rules
 * written at the top of that header (versioning, structs, handles,
 * errors, threads, per-function sections, strings) hold here too.
 * Compiles on its own (C99 or C++), but programs include the umbrella,
 * switchyard/switchyard.h.
 */
#ifndef SWITCHYARD_TENSOR_H_
#define SWITCHYARD_TENSOR_H_

#include "switchyard/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLPack's managed tensor (dlpack/dlpack.h, DLPack 0.6). Include that header
 * to look inside; this one only passes pointers. */
struct DLManagedTensor;

/* ===== Tensors =========================================================== */

/* A new contiguous tensor on `device`; its contents are undefined.
 * `shape` holds `ndim` (0..SY_MAX_RANK) sizes >= 0; it may be NULL when
 * ndim is 0 (a scalar).
 * Ownership: one reference to *out_tensor is the caller's.
 * Errors: INVALID_ARGUMENT (bad dtype, rank, negative size, bad handle);
 * RESOURCE_EXHAUSTED when the device is out of memory. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_empty(sy_device_handle_t device,
                                        sy_dtype_t dtype, const int64_t* shape,
                                        int32_t ndim, sy_tensor_t* out_tensor);

/* A new tensor on `device` holding a copy of `nbytes` bytes of dense,
 * row-major host data (nbytes must equal numel × dtype size). `data` may be
 * reused as soon as this returns.
 * Errors: as sy_tensor_empty; INVALID_ARGUMENT for a size mismatch or NULL
 * data with nbytes > 0. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_from_host(sy_device_handle_t device,
                                            sy_dtype_t dtype,
                                            const int64_t* shape, int32_t ndim,
                                            const void* data, size_t nbytes,
                                            sy_tensor_t* out_tensor);

/* Waits for the tensor's pending work and copies its elements, densely in
 * row-major order, into `dst` (nbytes must equal sy_tensor_nbytes).
 * Errors: INVALID_ARGUMENT (size mismatch, NULL dst); the device's failure.
 * Since: 1.0. */
SY_API sy_status_code_t sy_tensor_to_host(sy_tensor_t tensor, void* dst,
                                          size_t nbytes);

/* The tensor on `device`: a copy when it lives elsewhere, the same tensor
 * (a new reference) when it is already there.
 * Errors: INVALID_ARGUMENT (bad handles, handles of different contexts);
 * FAILED_PRECONDITION for a symbolic tensor of a graph capture (since
 * 1.2); the devices' failures. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_to_device(sy_tensor_t tensor,
                                            sy_device_handle_t device,
                                            sy_tensor_t* out_tensor);

/* Adds a reference: the handle stays valid until released once more.
 * Errors: INVALID_ARGUMENT for a bad handle. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_retain(sy_tensor_t tensor);

/* Drops a reference; at zero the handle becomes stale and the tensor's
 * memory returns to its device once no op, view or DLPack export uses it.
 * Errors: INVALID_ARGUMENT for a bad handle (releasing too often is an
 * error, not a crash). Since: 1.0. */
SY_API sy_status_code_t sy_tensor_release(sy_tensor_t tensor);

/* Getters. None waits for pending work. Errors: only bad arguments, unless
 * said otherwise. Since: 1.0. */
/* The element type. */
SY_API sy_status_code_t sy_tensor_dtype(sy_tensor_t tensor,
                                        sy_dtype_t* out_dtype);
/* The rank, 0 (a scalar) to SY_MAX_RANK. */
SY_API sy_status_code_t sy_tensor_ndim(sy_tensor_t tensor, int32_t* out_ndim);
/* Copies ndim sizes into out_shape, which holds `capacity` entries
 * (SY_MAX_RANK always suffices). Errors: INVALID_ARGUMENT when
 * capacity < ndim. */
SY_API sy_status_code_t sy_tensor_shape(sy_tensor_t tensor, int64_t* out_shape,
                                        int32_t capacity);
/* Strides in elements, like sy_tensor_shape (same errors). Views share
 * storage and may be strided (a stride of 0 repeats an element). */
SY_API sy_status_code_t sy_tensor_strides(sy_tensor_t tensor,
                                          int64_t* out_strides,
                                          int32_t capacity);
/* The number of elements (the product of the shape; 1 for a scalar). */
SY_API sy_status_code_t sy_tensor_numel(sy_tensor_t tensor,
                                        int64_t* out_numel);
/* numel × dtype size: what sy_tensor_to_host copies. */
SY_API sy_status_code_t sy_tensor_nbytes(sy_tensor_t tensor,
                                         size_t* out_nbytes);
/* The device the tensor lives on. Ownership: the handle belongs to the
 * context (nothing to release). */
SY_API sy_status_code_t sy_tensor_device(sy_tensor_t tensor,
                                         sy_device_handle_t* out_device);
/* The address of element (0, …, 0) in the device's memory (a host address
 * only for host devices). Lifetime: valid while the tensor's memory lives
 * (the handle, a view or a DLPack export holds it). Do not write through it
 * while ops on the tensor are queued. FAILED_PRECONDITION for a symbolic
 * tensor of a graph capture, which has no memory (since 1.2). */
SY_API sy_status_code_t sy_tensor_data_ptr(sy_tensor_t tensor,
                                           void** out_data);

/* ===== DLPack ============================================================ */

/* Exports a tensor as a DLPack 0.6 DLManagedTensor without copying: it
 * points at the tensor's memory, with its shape, strides (in elements) and
 * byte offset. Waits for the tensor's pending work first.
 * Ownership: *out_managed is the caller's; hand it to one consumer, or call
 * its deleter. The export keeps the memory alive — even past the release of
 * the tensor handle and the destruction of the context — until the deleter
 * runs. The deleter is thread-safe and may run on any thread.
 * Errors: INVALID_ARGUMENT (bad handle, NULL out_managed). Since: 1.0. */
SY_API sy_status_code_t sy_tensor_to_dlpack(
    sy_tensor_t tensor, struct DLManagedTensor** out_managed);

/* How sy_tensor_from_dlpack may treat memory it cannot share. */
typedef enum sy_dlpack_import_mode_t {
  /* Share the memory; copy only when it cannot be shared (negative or
   * misaligned strides, or a build without external storage). */
  SY_DLPACK_SHARE_OR_COPY = 0,
  /* Share the memory or fail (UNIMPLEMENTED / INVALID_ARGUMENT). */
  SY_DLPACK_SHARE = 1,
  /* Always copy into memory of the matching Switchyard device. */
  SY_DLPACK_COPY = 2,
} sy_dlpack_import_mode_t;

/* Makes a tensor of a DLPack 0.6 DLManagedTensor. The DLPack device must
 * match a Switchyard device of the context (same DLPack device type code
 * and id: kDLCPU 0 is cpu:0), its dtype one of the nine (lanes 1), its rank
 * at most SY_MAX_RANK. A tensor this context exported comes back as the
 * very same memory in every mode but SY_DLPACK_COPY. Foreign memory
 * is shared by a tensor whose storage calls the DLPack deleter when the
 * last user (handle, view, op result sharing it) is gone.
 * Ownership: on success the context owns `managed` (its deleter runs once
 * — at once after a copy); on failure the caller still owns it.
 * Errors: INVALID_ARGUMENT (bad handle or mode, NULL, unsupported dtype,
 * rank, negative sizes, NULL data with elements); NOT_FOUND when no device
 * matches; UNIMPLEMENTED when SY_DLPACK_SHARE cannot share or a copy of
 * non-host memory was needed. Since: 1.0. */
SY_API sy_status_code_t sy_tensor_from_dlpack(sy_context_t context,
                                              struct DLManagedTensor* managed,
                                              int32_t mode /* sy_dlpack_import_mode_t */,
                                              sy_tensor_t* out_tensor);

/* ===== Since 1.1: strided views and DLPack 1.0 ===========================
 * Added for the Python package (api/python): NumPy-style indexing as views,
 * and the DLPack 1.0 exchange (`__dlpack__(max_version=(1, 0))`) that
 * PyTorch and NumPy 2 speak. The general rules at the top of switchyard.h
 * apply (handles, errors, threads, strings). */

/* DLPack 1.0's versioned managed tensor (dlpack/dlpack.h >= 1.0). This
 * header only passes pointers; include a DLPack 1.0 header to look inside. */
struct DLManagedTensorVersioned;

/* A view of `tensor`'s memory with another layout: `ndim` (0..SY_MAX_RANK)
 * sizes >= 0 and strides >= 0 in elements, starting `offset` elements
 * (>= 0) after `tensor`'s first element — what NumPy's basic indexing and
 * PyTorch's as_strided make. Nothing is copied or waited for; the view
 * shares the memory (ops writing one are seen through the other).
 * Ownership: one reference to *out_tensor is the caller's; it keeps the
 * memory alive on its own. Thread-safety: thread-safe.
 * Errors: INVALID_ARGUMENT (bad handle, NULL out_tensor or arrays with
 * ndim > 0, a rank outside [0, SY_MAX_RANK], a negative size, stride or
 * offset, sizes whose element count overflows int64, or a layout reaching
 * past the end of the tensor's memory — the message gives the element it
 * would reach and the memory's size). Since: 1.1. */
SY_API sy_status_code_t sy_tensor_as_strided(sy_tensor_t tensor,
                                             const int64_t* shape,
                                             const int64_t* strides,
                                             int32_t ndim, int64_t offset,
                                             sy_tensor_t* out_tensor);

/* DLPack 1.0 flag bits (DLPack's DLPACK_FLAG_BITMASK_*), for `flags`. */
#define SY_DLPACK_FLAG_READ_ONLY ((uint64_t)1 << 0)
#define SY_DLPACK_FLAG_IS_COPIED ((uint64_t)1 << 1)

/* Exports a tensor as a DLPack 1.0 DLManagedTensorVersioned (version 1.0)
 * without copying, like sy_tensor_to_dlpack (it waits for the tensor's
 * pending work, so a consumer may read it on any stream at once). `flags`
 * (0, or SY_DLPACK_FLAG_READ_ONLY and/or SY_DLPACK_FLAG_IS_COPIED) are
 * written into the export's flags: IS_COPIED tells the consumer the memory
 * is a copy made for it (Python's `__dlpack__(copy=True)`).
 * Ownership and lifetime: as sy_tensor_to_dlpack; the deleter is
 * DLManagedTensorVersioned's own.
 * Errors: INVALID_ARGUMENT (bad handle, NULL out_managed, flag bits other
 * than those two); the device's failure to synchronize. Since: 1.1. */
SY_API sy_status_code_t sy_tensor_to_dlpack_versioned(
    sy_tensor_t tensor, uint64_t flags,
    struct DLManagedTensorVersioned** out_managed);

/* Makes a tensor of a DLPack 1.x DLManagedTensorVersioned, with the rules
 * and modes of sy_tensor_from_dlpack. Memory flagged READ_ONLY is never
 * shared (Switchyard tensors are writable: `out=` writes them): it is
 * copied under SY_DLPACK_SHARE_OR_COPY and SY_DLPACK_COPY, refused under
 * SY_DLPACK_SHARE. A tensor this library exported comes back as the same
 * memory, as with sy_tensor_from_dlpack. Writable memory flagged IS_COPIED
 * (a copy the producer made for this import) is shared under every mode,
 * SY_DLPACK_COPY included: it is private already (since 1.2).
 * Ownership: on success the context owns `managed` (its deleter runs once,
 * when the last tensor over the memory is gone or at once after a copy);
 * on failure the caller still owns it.
 * Errors: as sy_tensor_from_dlpack, and INVALID_ARGUMENT for a major
 * version other than 1 (the message gives it) or a read-only tensor under
 * SY_DLPACK_SHARE. Since: 1.1. */
SY_API sy_status_code_t sy_tensor_from_dlpack_versioned(
    sy_context_t context, struct DLManagedTensorVersioned* managed,
    int32_t mode /* sy_dlpack_import_mode_t */, sy_tensor_t* out_tensor);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SWITCHYARD_TENSOR_H_ */
