// sy_tensor_*: creating tensors, copying them in and out, references and
// getters.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"

namespace sy::capi {
namespace {

absl::StatusOr<absl::Span<const int64_t>> ShapeArg(const int64_t* shape,
                                                   int32_t ndim) {
  if (ndim < 0 || ndim > SY_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ndim is ", ndim, "; it must be in [0, ", SY_MAX_RANK, "]"));
  }
  if (ndim > 0 && shape == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape is NULL but ndim is ", ndim));
  }
  return absl::MakeConstSpan(shape, static_cast<size_t>(ndim));
}

absl::StatusOr<TensorObject*> FindTensor(sy_tensor_t tensor) {
  return TensorOf(tensor);
}

// Copies a list (shape or strides) out, checking the caller's capacity.
absl::Status CopyDims(absl::Span<const int64_t> dims, int64_t* out,
                      int32_t capacity, const char* what) {
  if (absl::Status s = CheckNotNull(out, what); !s.ok()) return s;
  if (capacity < static_cast<int32_t>(dims.size())) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " holds ", capacity, " entries but the tensor has ", dims.size(),
        " dimensions; pass room for SY_MAX_RANK (", SY_MAX_RANK, ")"));
  }
  for (size_t d = 0; d < dims.size(); ++d) out[d] = dims[d];
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<sy_tensor_t> NewTensorHandle(ContextState& context, Tensor tensor) {
  absl::StatusOr<uint64_t> token = HandleTable::Instance().Add(
      new TensorObject(context.shared_from_this(), std::move(tensor)));
  if (!token.ok()) return token.status();
  return FromToken<sy_tensor_t>(*token);
}

}  // namespace sy::capi

using sy::capi::CheckNotNull;
using sy::capi::Guard;
using sy::capi::HandleTable;
using sy::capi::Token;

extern "C" {

SY_API sy_status_code_t sy_tensor_empty(sy_device_handle_t device, sy_dtype_t dtype,
                                        const int64_t* shape, int32_t ndim,
                                        sy_tensor_t* out_tensor) {
  return Guard("sy_tensor_empty", [&]() -> absl::Status {
    sy::capi::ContextState* context = nullptr;
    absl::StatusOr<sy::core::Device*> dev = sy::capi::LiveDeviceOf(device, &context);
    if (!dev.ok()) return dev.status();
    auto dims = sy::capi::ShapeArg(shape, ndim);
    if (!dims.ok()) return dims.status();
    if (absl::Status s = CheckNotNull(out_tensor, "out_tensor"); !s.ok()) return s;
    absl::StatusOr<sy::core::Tensor> tensor = context->runtime->Empty(**dev, dtype, *dims);
    if (!tensor.ok()) return tensor.status();
    absl::StatusOr<sy_tensor_t> handle = sy::capi::NewTensorHandle(*context, *std::move(tensor));
    if (!handle.ok()) return handle.status();
    *out_tensor = *handle;
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_from_host(sy_device_handle_t device,
                                            sy_dtype_t dtype, const int64_t* shape,
                                            int32_t ndim, const void* data,
                                            size_t nbytes, sy_tensor_t* out_tensor) {
  return Guard("sy_tensor_from_host", [&]() -> absl::Status {
    sy::capi::ContextState* context = nullptr;
    absl::StatusOr<sy::core::Device*> dev = sy::capi::LiveDeviceOf(device, &context);
    if (!dev.ok()) return dev.status();
    auto dims = sy::capi::ShapeArg(shape, ndim);
    if (!dims.ok()) return dims.status();
    if (absl::Status s = CheckNotNull(out_tensor, "out_tensor"); !s.ok()) return s;
    absl::StatusOr<sy::core::Tensor> tensor =
        context->runtime->FromHost(**dev, dtype, *dims, data, nbytes);
    if (!tensor.ok()) return tensor.status();
    absl::StatusOr<sy_tensor_t> handle = sy::capi::NewTensorHandle(*context, *std::move(tensor));
    if (!handle.ok()) return handle.status();
    *out_tensor = *handle;
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_to_host(sy_tensor_t tensor, void* dst,
                                          size_t nbytes) {
  return Guard("sy_tensor_to_host", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    return ref->context->runtime->ToHost(ref->tensor, dst, nbytes);
  });
}

SY_API sy_status_code_t sy_tensor_to_device(sy_tensor_t tensor,
                                            sy_device_handle_t device,
                                            sy_tensor_t* out_tensor) {
  return Guard("sy_tensor_to_device", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    sy::capi::ContextState* context = nullptr;
    absl::StatusOr<sy::core::Device*> dev = sy::capi::LiveDeviceOf(device, &context);
    if (!dev.ok()) return dev.status();
    if (context != ref->context) {
      return absl::InvalidArgumentError(
          "the tensor and the device belong to different contexts; copy "
          "between contexts through the host (sy_tensor_to_host, "
          "sy_tensor_from_host) or DLPack");
    }
    if (absl::Status s = CheckNotNull(out_tensor, "out_tensor"); !s.ok()) return s;
    if (absl::Status s = sy::capi::CheckNotSymbolic(ref->tensor); !s.ok()) return s;
    absl::StatusOr<sy::core::Tensor> moved = context->runtime->To(ref->tensor, **dev);
    if (!moved.ok()) return moved.status();
    absl::StatusOr<sy_tensor_t> handle = sy::capi::NewTensorHandle(*context, *std::move(moved));
    if (!handle.ok()) return handle.status();
    *out_tensor = *handle;
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_retain(sy_tensor_t tensor) {
  return Guard("sy_tensor_retain", [&] {
    return HandleTable::Instance().Retain(Token(tensor), "tensor");
  });
}

SY_API sy_status_code_t sy_tensor_release(sy_tensor_t tensor) {
  // The last reference retires the tensor; it is freed when this call's
  // EpochScope ends, unless another thread is inside a call at that moment
  // (Note [Epoch reclamation]).
  return Guard("sy_tensor_release", [&] {
    return HandleTable::Instance().Release(Token(tensor), "tensor");
  });
}

SY_API sy_status_code_t sy_tensor_dtype(sy_tensor_t tensor, sy_dtype_t* out_dtype) {
  return Guard("sy_tensor_dtype", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    if (absl::Status s = CheckNotNull(out_dtype, "out_dtype"); !s.ok()) return s;
    *out_dtype = ref->tensor.dtype();
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_ndim(sy_tensor_t tensor, int32_t* out_ndim) {
  return Guard("sy_tensor_ndim", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    if (absl::Status s = CheckNotNull(out_ndim, "out_ndim"); !s.ok()) return s;
    *out_ndim = ref->tensor.ndim();
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_shape(sy_tensor_t tensor, int64_t* out_shape,
                                        int32_t capacity) {
  return Guard("sy_tensor_shape", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    return sy::capi::CopyDims(ref->tensor.shape(), out_shape, capacity, "out_shape");
  });
}

SY_API sy_status_code_t sy_tensor_strides(sy_tensor_t tensor, int64_t* out_strides,
                                          int32_t capacity) {
  return Guard("sy_tensor_strides", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    return sy::capi::CopyDims(ref->tensor.strides(), out_strides, capacity,
                              "out_strides");
  });
}

SY_API sy_status_code_t sy_tensor_numel(sy_tensor_t tensor, int64_t* out_numel) {
  return Guard("sy_tensor_numel", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    if (absl::Status s = CheckNotNull(out_numel, "out_numel"); !s.ok()) return s;
    *out_numel = ref->tensor.numel();
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_nbytes(sy_tensor_t tensor, size_t* out_nbytes) {
  return Guard("sy_tensor_nbytes", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    if (absl::Status s = CheckNotNull(out_nbytes, "out_nbytes"); !s.ok()) return s;
    *out_nbytes = ref->tensor.nbytes();
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_device(sy_tensor_t tensor,
                                         sy_device_handle_t* out_device) {
  return Guard("sy_tensor_device", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    if (absl::Status s = CheckNotNull(out_device, "out_device"); !s.ok()) return s;
    absl::StatusOr<uint64_t> handle = ref->context->DeviceHandle(&ref->tensor.device());
    if (!handle.ok()) return handle.status();
    *out_device = sy::capi::FromToken<sy_device_handle_t>(*handle);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_tensor_data_ptr(sy_tensor_t tensor, void** out_data) {
  return Guard("sy_tensor_data_ptr", [&]() -> absl::Status {
    auto found = sy::capi::FindTensor(tensor);
    if (!found.ok()) return found.status();
    sy::capi::TensorObject* ref = *found;
    if (absl::Status s = CheckNotNull(out_data, "out_data"); !s.ok()) return s;
    if (absl::Status s = sy::capi::CheckNotSymbolic(ref->tensor); !s.ok()) return s;
    *out_data = ref->tensor.data();
    return absl::OkStatus();
  });
}

}  // extern "C"
