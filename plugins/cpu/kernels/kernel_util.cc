#include "kernels/kernel_util.h"

#include <algorithm>

#include "cpu_device.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

using ::sy::plugin::DtypeName;
using ::sy::plugin::MakeError;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

sy_error_t* OpError(std::string_view op, std::string_view what) {
  return MakeError(SY_STATUS_INVALID_ARGUMENT,
                   StrCat("cpu plugin: ", op, ": ", what));
}

sy_error_t* CheckCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs) {
  if (call == nullptr) return OpError(op, "the kernel call is NULL");
  constexpr size_t kMinSize = SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data);
  if (call->struct_size < kMinSize) {
    return OpError(op, StrCat("the kernel call's struct_size is ",
                              call->struct_size, ", smaller than ABI 1.0's ",
                              kMinSize, "; the host is damaged or too old"));
  }
  // A count mismatch means the host bound a different schema than the one
  // this kernel was registered for.
  const auto count = [&](int32_t got, const void* array, int want,
                         std::string_view what) -> sy_error_t* {
    if (got == want && (want == 0 || array != nullptr)) return nullptr;
    return OpError(op, StrCat("expects ", want, " ", what, " but the call has ",
                              got, got > 0 && array == nullptr ? " (NULL)" : "",
                              "; the call does not match the op's schema"));
  };
  SY_PLUGIN_RETURN_IF_ERROR(
      count(call->num_inputs, call->inputs, num_inputs, "input tensors"));
  SY_PLUGIN_RETURN_IF_ERROR(
      count(call->num_outputs, call->outputs, num_outputs, "output tensors"));
  return count(call->num_attrs, call->attrs, num_attrs, "attributes");
}

sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype) {
  if (view.ndim < 0 || view.ndim > SY_MAX_RANK) {
    return OpError(op, StrCat(arg, " has rank ", view.ndim,
                              "; tensors have rank 0 to ", SY_MAX_RANK));
  }
  if (view.ndim > 0 && (view.shape == nullptr || view.strides == nullptr)) {
    return OpError(op, StrCat(arg, " has rank ", view.ndim,
                              " but a NULL shape or strides; pass ", view.ndim,
                              " of each"));
  }
  int64_t count = 1;
  bool overflow = false;
  bool empty = false;
  for (int d = 0; d < view.ndim; ++d) {
    if (view.shape[d] < 0) {
      return OpError(op, StrCat(arg, " has a negative dimension in shape ",
                                ShapeToString(plugin::Shape(view)),
                                "; dimensions must be >= 0"));
    }
    empty = empty || view.shape[d] == 0;
    overflow = overflow || __builtin_mul_overflow(count, view.shape[d], &count);
  }
  if (overflow && !empty) {
    return OpError(
        op, StrCat(arg, " has shape ", ShapeToString(plugin::Shape(view)),
                   ", whose element count overflows int64"));
  }
  if (view.dtype != dtype) {
    return OpError(op, StrCat(arg, " has dtype ", DtypeName(view.dtype),
                              " but the cpu plugin implements ", op, " for ",
                              DtypeName(dtype), " only; cast the tensor to ",
                              DtypeName(dtype)));
  }
  if (view.device.device_type != kDlpackCpu) {
    return OpError(
        op, StrCat(arg, " is on DLPack device type ", view.device.device_type,
                   ", not the cpu device (", kDlpackCpu,
                   "); copy it to the cpu device first"));
  }
  if (view.data == nullptr && !empty) {
    return OpError(op, StrCat(arg, " has NULL data but ", count,
                              " elements; pass the tensor's storage"));
  }
  return nullptr;
}

sy_error_t* CheckShape(const sy_tensor_view_t& view,
                       std::span<const int64_t> expected, std::string_view op,
                       std::string_view arg, std::string_view expected_what,
                       std::string_view advice) {
  const std::span<const int64_t> shape = plugin::Shape(view);
  if (std::ranges::equal(shape, expected)) return nullptr;
  return OpError(
      op, StrCat(arg, " has shape ", ShapeToString(shape), " but ",
                 expected_what, " ", ShapeToString(expected), "; ", advice));
}

}  // namespace sy::cpu
