// softmax, log_softmax, layer_norm and rms_norm (shaders/norm.comp) over
// rows (rows.h): the normalized dims are a row. x, weight and bias share
// x's dtype (f32 or f16); exp/log in f32 (shaders/math_f32.glsl), so they
// run on every device, shaderFloat64 or not.
#include "kernels/rows.h"

namespace sy::vulkan {
namespace {

using ::sy::plugin::StrCat;

// The norm shader variant for the stream's device: subgroup reductions
// where it has them (Caps::subgroup_reduce, norm_sg_*), else the
// shared-memory reduction; `wide_row` (f32 softmax and log_softmax rows
// longer than 4096) takes 512 invocations a row where the device allows
// (Caps::wide_rows): 16 cached values per invocation instead of 32, so
// twice the resident invocations hide each row's reductions, as the cuda
// plugin's 512-thread blocks for 8192-wide rows do (sdk/gpu/norm.cu).
std::string NormShader(const Stream& stream, sy_dtype_t dtype, bool wide_row = false) {
  const Caps& caps = stream.ctx().caps;
  const bool wide = wide_row && caps.wide_rows && dtype == SY_DTYPE_F32;
  if (wide) return caps.subgroup_reduce ? "norm_sg_w512_f32" : "norm_w512_f32";
  return StrCat(caps.subgroup_reduce ? "norm_sg_" : "norm_", ShaderDtype(dtype));
}

template <bool kLog>
sy_error_t* Softmax(const sy_kernel_call_t* call) {
  const std::string_view op = kLog ? "log_softmax" : "softmax";
  return plugin::Guard(StrCat("vulkan plugin: ", op), [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, 1, 1, 1, &stream));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", x.dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", x.dtype, *stream));
    int64_t dim = -1;
    SY_PLUGIN_RETURN_IF_ERROR(ReadInt(call, 0, op, "dim", dim));
    int wrapped = 0;
    SY_PLUGIN_RETURN_IF_ERROR(WrapDim(dim, x.ndim, op, "dim", wrapped));
    bool inner[SY_MAX_RANK] = {};
    if (x.ndim > 0) inner[wrapped] = true;
    RowLayout layout;
    SY_PLUGIN_RETURN_IF_ERROR(BuildRows(op, x.ndim, x.shape, inner,
                                        {out.strides, x.strides, nullptr, nullptr},
                                        &layout));
    RowPush push;
    push.out = Address(out);
    push.in[0] = Address(x);
    const uint32_t spec[] = {kLog ? 1u : 0u, 0u, 0u};
    return RunRows(*stream, op, NormShader(*stream, x.dtype, layout.row_size > 4096), spec,
                   push, layout);
  });
}

// layer_norm (kRms false) and rms_norm over the trailing `k` dims.
template <bool kRms>
sy_error_t* Norm(const sy_kernel_call_t* call) {
  const std::string_view op = kRms ? "rms_norm" : "layer_norm";
  return plugin::Guard(StrCat("vulkan plugin: ", op), [&]() -> sy_error_t* {
    Stream* stream = nullptr;
    SY_PLUGIN_RETURN_IF_ERROR(BeginCall(call, op, -1, 1, kRms ? 1 : 2, &stream));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t& out = call->outputs[0];
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(x, op, "input 'x'", x.dtype, *stream));
    SY_PLUGIN_RETURN_IF_ERROR(CheckView(out, op, "output", x.dtype, *stream));
    // Inputs in schema order; an omitted optional spans zero entries.
    const sy_tensor_view_t* weight = nullptr;
    const sy_tensor_view_t* bias = nullptr;
    const int32_t* at = call->input_offsets;
    if (at == nullptr || call->num_tensor_args != (kRms ? 2 : 3)) {
      return OpError(op, "the call's tensor arguments do not match the schema");
    }
    if (at[2] > at[1]) weight = &call->inputs[at[1]];
    if (!kRms && at[3] > at[2]) bias = &call->inputs[at[2]];
    if (weight != nullptr) {
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(*weight, op, "input 'weight'", x.dtype, *stream));
    }
    if (bias != nullptr) {
      SY_PLUGIN_RETURN_IF_ERROR(CheckView(*bias, op, "input 'bias'", x.dtype, *stream));
    }
    int k = 1;
    double eps = 0;
    if constexpr (kRms) {
      SY_PLUGIN_RETURN_IF_ERROR(ReadFloat(call, 0, op, "eps", eps));
    } else {
      std::span<const int64_t> normalized;
      SY_PLUGIN_RETURN_IF_ERROR(ReadInts(call, 0, op, "normalized_shape", normalized));
      SY_PLUGIN_RETURN_IF_ERROR(ReadFloat(call, 1, op, "eps", eps));
      k = static_cast<int>(normalized.size());
    }
    if (k < 1 || k > x.ndim) {
      return OpError(op, StrCat("normalizes ", k, " trailing dims of a rank-",
                                x.ndim, " input; pass 1 to rank dims"));
    }
    bool inner[SY_MAX_RANK] = {};
    int64_t w_strides[SY_MAX_RANK] = {}, b_strides[SY_MAX_RANK] = {};
    for (int d = x.ndim - k; d < x.ndim; ++d) {
      inner[d] = true;
      const int j = d - (x.ndim - k);
      if (weight != nullptr) w_strides[d] = weight->strides[weight->ndim - k + j];
      if (bias != nullptr) b_strides[d] = bias->strides[bias->ndim - k + j];
    }
    RowLayout layout;
    SY_PLUGIN_RETURN_IF_ERROR(BuildRows(op, x.ndim, x.shape, inner,
                                        {out.strides, x.strides, w_strides, b_strides},
                                        &layout));
    RowPush push;
    push.out = Address(out);
    push.in[0] = Address(x);
    push.in[1] = weight != nullptr ? Address(*weight) : 0;
    push.in[2] = bias != nullptr ? Address(*bias) : 0;
    push.eps = static_cast<float>(eps);
    const uint32_t spec[] = {kRms ? 3u : 2u, weight != nullptr ? 1u : 0u,
                             bias != nullptr ? 1u : 0u};
    return RunRows(*stream, op, NormShader(*stream, x.dtype), spec, push,
                   layout);
  });
}

}  // namespace

void AddNormKernels(const Caps& caps, KernelList& list) {
  static constexpr sy_dtype_t kOne[][1] = {{SY_DTYPE_F32}, {SY_DTYPE_F16}};
  static constexpr sy_dtype_t kTwo[][2] = {{SY_DTYPE_F32, SY_DTYPE_F32},
                                           {SY_DTYPE_F16, SY_DTYPE_F16}};
  static constexpr sy_dtype_t N = SY_DTYPE_NONE;
  static constexpr sy_dtype_t kThree[][3] = {
      {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_F32}, {SY_DTYPE_F32, SY_DTYPE_F32, N},
      {SY_DTYPE_F32, N, SY_DTYPE_F32},            {SY_DTYPE_F32, N, N},
      {SY_DTYPE_F16, SY_DTYPE_F16, SY_DTYPE_F16}, {SY_DTYPE_F16, SY_DTYPE_F16, N},
      {SY_DTYPE_F16, N, SY_DTYPE_F16},            {SY_DTYPE_F16, N, N}};
  for (int i = 0; i < 2; ++i) {
    if (i == 1 && !caps.storage16) continue;
    list.Add("softmax", kOne[i], Softmax<false>);
    list.Add("log_softmax", kOne[i], Softmax<true>);
    list.Add("rms_norm", kTwo[i], Norm<true>);
    for (int j = 0; j < 4; ++j) list.Add("layer_norm", kThree[i * 4 + j], Norm<false>);
  }
}

}  // namespace sy::vulkan
