// The checks of elementwise_engine.h. The engine itself is templates, in
// the header.
#include "kernels/elementwise_engine.h"

#include <cstdint>
#include <string_view>

namespace sy::cpu {

using ::sy::plugin::DtypeName;
using ::sy::plugin::StrCat;

namespace {

constexpr std::string_view kBroadcastAdvice =
    "elementwise kernels take inputs already broadcast to the output's shape "
    "(stride 0 on stretched dims), as the dispatcher passes them";

}  // namespace

sy_error_t* CheckElementwise(const sy_kernel_call_t* call, std::string_view op,
                             std::span<const std::string_view> inputs,
                             std::span<const sy_dtype_t> dtypes,
                             int num_attrs) {
  // The host checked all of this already; a direct caller gets it checked.
  if (plugin::HostChecked(call)) return nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(
      CheckCall(call, op, static_cast<int>(inputs.size()), 1, num_attrs));
  const sy_tensor_view_t& out = call->outputs[0];
  // Dtypes are checked below, with messages about this kernel's dtypes.
  SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", out.dtype));
  for (size_t k = 0; k < inputs.size(); ++k) {
    const sy_tensor_view_t& in = call->inputs[k];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(in, op, inputs[k], in.dtype));
    if (in.dtype != dtypes[k]) {
      // The host picks kernels by input dtypes, so this is a host bug (or a
      // direct caller's mistake), not a user's.
      return OpError(
          op, StrCat(inputs[k], " has dtype ", DtypeName(in.dtype),
                     " but this kernel (", KernelName(op, dtypes),
                     ") takes ", DtypeName(dtypes[k]),
                     "; call the kernel registered for the inputs' dtypes"));
    }
    SY_PLUGIN_RETURN_IF_ERROR(CheckShape(in, plugin::Shape(out), op,
                                         inputs[k], "the output has shape",
                                         kBroadcastAdvice));
  }
  return nullptr;
}

sy_error_t* CheckOutputDtype(const sy_tensor_view_t& out, std::string_view op,
                             sy_dtype_t input, sy_dtype_t want,
                             std::string_view detail) {
  if (out.dtype == want) return nullptr;
  return OpError(op, StrCat("output has dtype ", DtypeName(out.dtype),
                            " but ", op, " of ", DtypeName(input), detail,
                            " gives ", DtypeName(want),
                            "; allocate the output with the dtype the op's "
                            "shape function gives"));
}

sy_error_t* ReadScalar(const sy_kernel_call_t* call, int index,
                       std::string_view op, std::string_view name,
                       ScalarValue& out) {
  const sy_attr_t& attr = call->attrs[index];
  switch (attr.kind) {
    case SY_ATTR_INT:
      out = {SY_ATTR_INT, attr.value.i, 0.0};
      return nullptr;
    case SY_ATTR_FLOAT:
      out = {SY_ATTR_FLOAT, 0, attr.value.f};
      return nullptr;
    case SY_ATTR_BOOL:
      out = {SY_ATTR_BOOL, attr.value.b != 0 ? 1 : 0, 0.0};
      return nullptr;
    default:
      return OpError(op, StrCat(name, " has attribute kind ", attr.kind,
                                " but a Scalar is passed as SY_ATTR_INT, "
                                "SY_ATTR_FLOAT or SY_ATTR_BOOL; the call does "
                                "not match the op's schema"));
  }
}

sy_error_t* CheckIntFits(int64_t value, sy_dtype_t dtype, std::string_view op,
                         std::string_view name, std::string_view tensor) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  switch (dtype) {
    case SY_DTYPE_I8:
      lo = INT8_MIN, hi = INT8_MAX;
      break;
    case SY_DTYPE_U8:
      lo = 0, hi = UINT8_MAX;
      break;
    case SY_DTYPE_I32:
      lo = INT32_MIN, hi = INT32_MAX;
      break;
    default:
      break;
  }
  if (value >= lo && value <= hi) return nullptr;
  return OpError(op, StrCat(name, " is ", value, ", which does not fit in ",
                            DtypeName(dtype), " (range [", lo, ", ", hi,
                            "]) of ", tensor, "; pass a value in range, or "
                            "cast ", tensor, " to a wider dtype first"));
}

}  // namespace sy::cpu
