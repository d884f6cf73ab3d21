#include "switchyard/gpu/kernel_util.h"

#include <array>
#include <atomic>

#include "switchyard/plugin.hpp"

namespace sy::gpu {

using ::sy::plugin::DtypeName;
using ::sy::plugin::MakeError;
using ::sy::plugin::ShapeToString;
using ::sy::plugin::StrCat;

sy_error_t* OpError(std::string_view op, std::string_view what) {
  return MakeError(SY_STATUS_INVALID_ARGUMENT,
                   StrCat(ThisTarget().plugin, " plugin: ", op, ": ", what));
}

std::string Where(std::string_view op) {
  return StrCat(ThisTarget().plugin, " plugin: ", op);
}

sy_error_t* UseDevice(int device, std::string_view where) {
  int current = -1;
  if (GetDevice(&current) == kSuccess && current == device) return nullptr;
  return RuntimeError(SetDevice(device), where,
                      StrCat("cannot make device ", device, " current"));
}

sy_error_t* BeginCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs,
                      Stream** out_stream) {
  if (call == nullptr) return OpError(op, "the kernel call is NULL");
  constexpr size_t kMinSize = SY_STRUCT_SIZE(sy_kernel_call_t, kernel_data);
  if (call->struct_size < kMinSize) {
    return OpError(op, StrCat("the kernel call's struct_size is ",
                              call->struct_size, ", smaller than ABI 1.0's ",
                              kMinSize, "; the host is damaged or too old"));
  }
  const auto count = [&](int32_t got, const void* array, int want,
                         std::string_view what) -> sy_error_t* {
    if ((want < 0 || got == want) && (got == 0 || array != nullptr)) {
      return nullptr;
    }
    return OpError(op, StrCat("expects ", want, " ", what, " but the call has ",
                              got, got > 0 && array == nullptr ? " (NULL)" : "",
                              "; the call does not match the op's schema"));
  };
  SY_PLUGIN_RETURN_IF_ERROR(
      count(call->num_inputs, call->inputs, num_inputs, "input tensors"));
  SY_PLUGIN_RETURN_IF_ERROR(
      count(call->num_outputs, call->outputs, num_outputs, "output tensors"));
  SY_PLUGIN_RETURN_IF_ERROR(
      count(call->num_attrs, call->attrs, num_attrs, "attributes"));
  // The host always passes a stream it created from this plugin's table;
  // the kernel path skips the registry lookup that the device slots make.
  // Plugins make their handles from gpu::Stream addresses (target.h).
  auto* stream = reinterpret_cast<Stream*>(call->stream);
  if (stream == nullptr) {
    return OpError(op, StrCat("the call has no stream; pass a stream of the "
                              "outputs' ", ThisTarget().device_type, " device"));
  }
  SY_PLUGIN_RETURN_IF_ERROR(UseDevice(stream->device, Where(op)));
  *out_stream = stream;
  return nullptr;
}

sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype,
                      const Stream& stream) {
  if (view.ndim < 0 || view.ndim > SY_MAX_RANK) {
    return OpError(op, StrCat(arg, " has rank ", view.ndim,
                              "; tensors have rank 0 to ", SY_MAX_RANK));
  }
  if (view.ndim > 0 && (view.shape == nullptr || view.strides == nullptr)) {
    return OpError(op, StrCat(arg, " has rank ", view.ndim,
                              " but a NULL shape or strides; pass ", view.ndim,
                              " of each"));
  }
  bool empty = false;
  for (int d = 0; d < view.ndim; ++d) {
    if (view.shape[d] < 0) {
      return OpError(op, StrCat(arg, " has a negative dimension in shape ",
                                ShapeToString(plugin::Shape(view)),
                                "; dimensions must be >= 0"));
    }
    empty = empty || view.shape[d] == 0;
  }
  if (dtype != SY_DTYPE_NONE && view.dtype != dtype) {
    return OpError(op, StrCat(arg, " has dtype ", DtypeName(view.dtype),
                              " but this kernel was registered for ",
                              DtypeName(dtype), "; cast the tensor to ",
                              DtypeName(dtype)));
  }
  const Target& target = ThisTarget();
  if (view.device.device_type != target.dlpack_device_type ||
      view.device.device_id != stream.device) {
    return OpError(
        op, StrCat(arg, " is on DLPack device (", view.device.device_type, ", ",
                   view.device.device_id, "), not ", target.device_type, ":",
                   stream.device, " where the call runs; copy it to ",
                   target.device_type, ":", stream.device, " first"));
  }
  if (view.data == nullptr && !empty) {
    return OpError(op, StrCat(arg, " has NULL data but is not empty; pass "
                                   "the tensor's storage"));
  }
  return nullptr;
}

namespace {

sy_error_t* KindError(std::string_view op, std::string_view name,
                      int32_t kind, std::string_view want) {
  return OpError(op, StrCat("attribute '", name, "' has attribute kind ", kind,
                            " but ", want,
                            " was expected; the call does not match the op's "
                            "schema"));
}

}  // namespace

sy_error_t* ReadScalar(const sy_kernel_call_t* call, int index,
                       std::string_view op, std::string_view name,
                       ScalarValue& out) {
  const sy_attr_t& a = call->attrs[index];
  switch (a.kind) {
    case SY_ATTR_INT:
      out = {false, 0, a.value.i};
      return nullptr;
    case SY_ATTR_BOOL:
      out = {false, 0, a.value.b != 0 ? 1 : 0};
      return nullptr;
    case SY_ATTR_FLOAT:
      out = {true, a.value.f, 0};
      return nullptr;
    default:
      return KindError(op, name, a.kind, "a Scalar (int or float)");
  }
}

sy_error_t* ReadInt(const sy_kernel_call_t* call, int index,
                    std::string_view op, std::string_view name, int64_t& out,
                    bool* is_none) {
  const sy_attr_t& a = call->attrs[index];
  if (is_none != nullptr) *is_none = a.kind == SY_ATTR_NONE;
  if (a.kind == SY_ATTR_NONE && is_none != nullptr) return nullptr;
  if (a.kind != SY_ATTR_INT) return KindError(op, name, a.kind, "an int");
  out = a.value.i;
  return nullptr;
}

sy_error_t* ReadFloat(const sy_kernel_call_t* call, int index,
                      std::string_view op, std::string_view name,
                      double& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind == SY_ATTR_FLOAT) {
    out = a.value.f;
  } else if (a.kind == SY_ATTR_INT) {
    out = static_cast<double>(a.value.i);
  } else {
    return KindError(op, name, a.kind, "a float");
  }
  return nullptr;
}

sy_error_t* ReadBool(const sy_kernel_call_t* call, int index,
                     std::string_view op, std::string_view name, bool& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind != SY_ATTR_BOOL) return KindError(op, name, a.kind, "a bool");
  out = a.value.b != 0;
  return nullptr;
}

sy_error_t* ReadInts(const sy_kernel_call_t* call, int index,
                     std::string_view op, std::string_view name,
                     std::span<const int64_t>& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind != SY_ATTR_INTS || a.value.ints.size < 0 ||
      (a.value.ints.size > 0 && a.value.ints.data == nullptr)) {
    return KindError(op, name, a.kind, "an int list");
  }
  out = {a.value.ints.data, static_cast<size_t>(a.value.ints.size)};
  return nullptr;
}

sy_error_t* ReadString(const sy_kernel_call_t* call, int index,
                       std::string_view op, std::string_view name,
                       std::string_view& out) {
  const sy_attr_t& a = call->attrs[index];
  if (a.kind != SY_ATTR_STRING || a.value.str.data == nullptr) {
    return KindError(op, name, a.kind, "a str");
  }
  out = {a.value.str.data, static_cast<size_t>(a.value.str.size)};
  return nullptr;
}

sy_error_t* WrapDim(int64_t dim, int rank, std::string_view op,
                    std::string_view name, int& out) {
  const int64_t lo = rank == 0 ? -1 : -rank;
  const int64_t hi = rank == 0 ? 0 : rank - 1;
  if (dim < lo || dim > hi) {
    return OpError(op, StrCat("attribute '", name, "' is ", dim,
                              ", out of range for a tensor of rank ", rank,
                              "; pass a dim in [", lo, ", ", hi, "]"));
  }
  out = static_cast<int>(dim < 0 ? dim + (rank == 0 ? 1 : rank) : dim);
  return nullptr;
}

sy_error_t* CheckLaunched(std::string_view op) {
  return RuntimeError(GetLastError(), Where(op), "launching the kernel failed");
}

int SmCount(int device) {
  static std::array<std::atomic<int>, 64> cache{};
  if (device < 0 || device >= 64) return 132;
  int sms = cache[device].load(std::memory_order_relaxed);
  if (sms == 0) {
    if (MultiProcessorCount(device, &sms) != kSuccess) {
      (void)GetLastError();
      sms = 80;
    }
    cache[device].store(sms, std::memory_order_relaxed);
  }
  return sms;
}

}  // namespace sy::gpu
