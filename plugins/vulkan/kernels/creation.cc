// fill, copy and cast. fill and copy move raw bits (copy_bits.comp, one
// variant per element size); cast converts values (cast.comp, one variant
// per dtype pair); a cast to the same dtype is a copy.
#include <bit>
#include <cmath>

#include "kernels/elementwise.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

// The bits of `value` in `dtype`, as the fill shader writes them.
uint64_t FillBits(sy_dtype_t dtype, const ScalarValue& v) {
  const double d = v.AsDouble();
  switch (dtype) {
    case SY_DTYPE_F32: return std::bit_cast<uint32_t>(static_cast<float>(d));
    case SY_DTYPE_F16: return plugin::Half(static_cast<float>(d)).bits;
    case SY_DTYPE_BF16: return plugin::BFloat16(static_cast<float>(d)).bits;
    case SY_DTYPE_BOOL: return d != 0 ? 1 : 0;
    case SY_DTYPE_I64:
      return static_cast<uint64_t>(v.is_float ? static_cast<int64_t>(d) : v.i);
    default:
      return static_cast<uint64_t>(v.is_float ? static_cast<int64_t>(d) : v.i);
  }
}

sy_error_t* Fill(const sy_kernel_call_t* call) {
  return plugin::Guard("vulkan plugin: fill", [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, "fill", 1, 1, 1, &stream));
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, "fill", "output", SY_DTYPE_NONE, *stream));
    ScalarValue value;
    SY_PLUGIN_RETURN_IF_ERROR(ReadScalar(call, 0, "fill", "value", value));
    const uint64_t bits = FillBits(out.dtype, value);
    ElementwisePush push;
    push.scalar_lo = static_cast<uint32_t>(bits);
    push.scalar_hi = static_cast<uint32_t>(bits >> 32);
    return RunSimple(*stream, call, "fill",
                     StrCat("fill_", plugin::DtypeSize(out.dtype)), {}, 0, push);
  });
}

sy_error_t* Copy(const sy_kernel_call_t* call) {
  return plugin::Guard("vulkan plugin: copy", [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, "copy", 1, 1, 0, &stream));
    const sy_dtype_t dtype = call->inputs[0].dtype;
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[0], "copy", "input 'self'", dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], "copy", "output", dtype, *stream));
    return RunSimple(*stream, call, "copy",
                     StrCat("copy_", plugin::DtypeSize(dtype)), {}, 1);
  });
}

sy_error_t* Cast(const sy_kernel_call_t* call) {
  return plugin::Guard("vulkan plugin: cast", [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, "cast", 1, 1, 1, &stream));
    const sy_dtype_t from = call->inputs[0].dtype;
    sy_dtype_t to = SY_DTYPE_NONE;
    SY_PLUGIN_RETURN_IF_ERROR(ReadDtype(call, 0, "cast", "dtype", to));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->inputs[0], "cast", "input 'self'", from, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(
        CheckView(call->outputs[0], "cast", "output", to, *stream));
    if (from == to) {
      return RunSimple(*stream, call, "cast",
                       StrCat("copy_", plugin::DtypeSize(from)), {}, 1);
    }
    if (to == SY_DTYPE_BF16 || to == SY_DTYPE_F64 ||
        !DeviceHolds(stream->ctx().caps, to)) {
      return plugin::MakeError(
          SY_STATUS_UNIMPLEMENTED,
          StrCat("vulkan plugin: cast: to ", plugin::DtypeName(to),
                 " has no vulkan kernel on ", stream->ctx().label,
                 "; cast on cpu"));
    }
    return RunSimple(*stream, call, "cast",
                     StrCat("cast_", ShaderDtype(from), "_", ShaderDtype(to)),
                     {}, 1);
  });
}

}  // namespace

void AddCreationKernels(const Caps& caps, KernelList& list) {
  static constexpr sy_dtype_t kOne[][1] = {
      {SY_DTYPE_F32}, {SY_DTYPE_F16}, {SY_DTYPE_I32}, {SY_DTYPE_I64},
      {SY_DTYPE_I8},  {SY_DTYPE_U8},  {SY_DTYPE_BOOL}, {SY_DTYPE_BF16}};
  for (const auto& d : kOne) {
    if (!DeviceHolds(caps, d[0])) continue;
    list.Add("fill.Scalar", d, Fill);
    list.Add("copy", d, Copy);
    if (d[0] != SY_DTYPE_BF16) list.Add("cast", d, Cast);
  }
}

}  // namespace sy::vulkan
