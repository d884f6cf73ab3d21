// sy_tensor_as_strided: a view of a tensor's memory with an explicit layout
// (what the Python package's indexing and view() make, in one call).
//
// The layout is checked against the memory the tensor's storage holds, so
// no view can reach outside it: the core's Tensor::View trusts its caller.
#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "dispatcher/ops/dtype.h"

namespace sy::capi {
namespace {

absl::Status CheckLayout(const Tensor& base, const int64_t* shape,
                         const int64_t* strides, int32_t ndim, int64_t offset,
                         uint64_t* out_byte_offset) {
  if (ndim < 0 || ndim > SY_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ndim is ", ndim, "; it must be in [0, ", SY_MAX_RANK, "]"));
  }
  if (ndim > 0 && (shape == nullptr || strides == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape or strides is NULL but ndim is ", ndim));
  }
  if (offset < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("offset is ", offset, "; it must be >= 0"));
  }
  // The last element the view reaches, in elements from base's first one;
  // every step checked for overflow (the inputs may be anything).
  int64_t last = offset;
  bool empty = false;
  for (int32_t d = 0; d < ndim; ++d) {
    if (shape[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shape[", d, "] is ", shape[d], "; sizes must be >= 0"));
    }
    if (strides[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "strides[", d, "] is ", strides[d],
          "; Switchyard layouts have strides >= 0"));
    }
    if (shape[d] == 0) empty = true;
  }
  if (!empty) {
    for (int32_t d = 0; d < ndim; ++d) {
      int64_t reach;
      if (__builtin_mul_overflow(shape[d] - 1, strides[d], &reach) ||
          __builtin_add_overflow(last, reach, &last)) {
        return absl::InvalidArgumentError(
            "the layout reaches past what int64 can count; check its sizes "
            "and strides");
      }
    }
  }
  const size_t esize = DTypeSize(base.dtype());
  uint64_t byte_offset;
  if (__builtin_mul_overflow(static_cast<uint64_t>(offset), esize, &byte_offset) ||
      __builtin_add_overflow(byte_offset, base.byte_offset(), &byte_offset)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "offset ", offset, " reaches past what the tensor's memory can hold"));
  }
  if (!empty && !base.storage().symbolic()) {
    const size_t size = base.storage().size();
    uint64_t end;  // one past the last byte reached
    if (__builtin_mul_overflow(static_cast<uint64_t>(last) + 1, esize, &end) ||
        __builtin_add_overflow(end, base.byte_offset(), &end) || end > size) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the layout reaches element ", last, " after the tensor's first, "
          "but its memory holds ", (size - base.byte_offset()) / esize,
          " elements from there"));
    }
  }
  *out_byte_offset = byte_offset;
  return absl::OkStatus();
}

absl::Status AsStrided(sy_tensor_t tensor, const int64_t* shape,
                       const int64_t* strides, int32_t ndim, int64_t offset,
                       sy_tensor_t* out_tensor) {
  // Valid until the calling Guard's epoch scope ends.
  absl::StatusOr<TensorObject*> base = TensorOf(tensor);
  if (!base.ok()) return base.status();
  if (absl::Status s = CheckNotNull(out_tensor, "out_tensor"); !s.ok()) return s;
  uint64_t byte_offset = 0;
  if (absl::Status s = CheckLayout((*base)->tensor, shape, strides, ndim, offset,
                                   &byte_offset);
      !s.ok()) {
    return s;
  }
  const size_t n = static_cast<size_t>(ndim);
  const Tensor view = Tensor::View((*base)->tensor, absl::MakeConstSpan(shape, n),
                                   absl::MakeConstSpan(strides, n), byte_offset);
  absl::StatusOr<sy_tensor_t> handle = NewTensorHandle(*(*base)->context, view);
  if (!handle.ok()) return handle.status();
  *out_tensor = *handle;
  return absl::OkStatus();
}

}  // namespace
}  // namespace sy::capi

extern "C" {

SY_API sy_status_code_t sy_tensor_as_strided(sy_tensor_t tensor, const int64_t* shape,
                                             const int64_t* strides, int32_t ndim,
                                             int64_t offset, sy_tensor_t* out_tensor) {
  return sy::capi::Guard("sy_tensor_as_strided", [&] {
    return sy::capi::AsStrided(tensor, shape, strides, ndim, offset, out_tensor);
  });
}

}  // extern "C"
