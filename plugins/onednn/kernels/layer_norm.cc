// layer_norm over oneDNN's layer_normalization primitive (forward
// inference: it computes mean and variance itself, in f32).
//
// oneDNN normalizes over the last dim of one layout shared by source and
// destination, so x is viewed as [N, C] with C the product of
// normalized_shape: a dense x (and output) is used in place; anything else
// is copied densely first (and the result reordered back). oneDNN takes
// scale and shift only as f32 [C]: weight and bias (f32 or bf16, any
// layout) are converted into scratch memory. Registered for x f32 with
// weight/bias f32 or omitted, and x bf16 with weight/bias bf16, f32 or
// omitted.
#include <cstdint>
#include <string_view>

#include "context.h"
#include "kernels/kernel_list.h"
#include "memory.h"

namespace sy::onednn {
namespace {

constexpr std::string_view kWhere = "onednn plugin: layer_norm";

// `view` (C elements) as a dense f32 array in scratch memory.
float* AffineAsF32(const sy_tensor_view_t& view, int64_t c, Scratch& scratch) {
  const Operand dense = DenseCopy(Input(view, scratch), scratch);
  if (view.dtype == SY_DTYPE_F32) return static_cast<float*>(dense.data);
  auto* out = static_cast<float*>(scratch.Allocate(static_cast<size_t>(c) * 4));
  const auto* in = static_cast<const plugin::BFloat16*>(dense.data);
  for (int64_t i = 0; i < c; ++i) out[i] = static_cast<float>(in[i]);
  return out;
}

sy_error_t* LayerNorm(const sy_kernel_call_t* call) {
  return RunKernel(kWhere, call, Work::kElements, [&]() -> sy_error_t* {
    SY_PLUGIN_RETURN_IF_ERROR(CheckCall(call, kWhere, 3, 1, 2));
    const sy_tensor_view_t& x = call->inputs[0];
    const sy_tensor_view_t* weight = Arg(call, 1);
    const sy_tensor_view_t* bias = Arg(call, 2);
    const sy_tensor_view_t& out = call->outputs[0];
    const sy_attr_t& shape_attr = call->attrs[0];
    const sy_attr_t& eps_attr = call->attrs[1];
    if (shape_attr.kind != SY_ATTR_INTS || eps_attr.kind != SY_ATTR_FLOAT ||
        shape_attr.value.ints.size < 1 || shape_attr.value.ints.size > x.ndim) {
      return OpError(kWhere, "attributes must be (int[] normalized_shape of "
                             "1..rank(x) dims, float eps); the host is "
                             "damaged");
    }
    const int k = static_cast<int>(shape_attr.value.ints.size);
    int64_t c = 1;
    for (int d = x.ndim - k; d < x.ndim; ++d) c *= x.shape[d];
    const int64_t total = plugin::NumElements(x);
    if (total == 0) return nullptr;
    const int64_t n = total / c;
    for (const sy_tensor_view_t* affine : {weight, bias}) {
      if (affine != nullptr && plugin::NumElements(*affine) != c) {
        return OpError(kWhere, plugin::StrCat(
                                   "weight/bias has ",
                                   plugin::NumElements(*affine),
                                   " elements but normalized_shape covers ", c,
                                   "; pass tensors of normalized_shape"));
      }
    }
    Scratch scratch;
    Operand src = Input(x, scratch);
    if (!src.IsDense()) src = DenseCopy(src, scratch);
    const Operand dst_view = Output(out);
    Operand dst = dst_view;
    if (!dst.IsDense()) {
      dst.strides = src.strides;
      dst.data = scratch.Allocate(static_cast<size_t>(total) *
                                  (out.dtype == SY_DTYPE_BF16 ? 2 : 4));
    }
    const dnnl::memory::desc rows({n, c}, src.type, dnnl::memory::dims{c, 1});
    auto flags = dnnl::normalization_flags::none;
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, dnnl::memory(rows, Engine(), src.data)},
        {DNNL_ARG_DST, dnnl::memory(rows, Engine(), dst.data)}};
    const dnnl::memory::desc affine_desc({c}, dt::f32, dnnl::memory::dims{1});
    if (weight != nullptr) {
      flags |= dnnl::normalization_flags::use_scale;
      args[DNNL_ARG_SCALE] = dnnl::memory(affine_desc, Engine(),
                                          AffineAsF32(*weight, c, scratch));
    }
    if (bias != nullptr) {
      flags |= dnnl::normalization_flags::use_shift;
      args[DNNL_ARG_SHIFT] = dnnl::memory(affine_desc, Engine(),
                                          AffineAsF32(*bias, c, scratch));
    }
    const dnnl::layer_normalization_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, rows,
         static_cast<float>(eps_attr.value.f), flags},
        Engine());
    Execute(dnnl::layer_normalization_forward(pd), args);
    if (dst.data != dst_view.data) Reorder(dst.memory(), dst_view.memory());
    return nullptr;
  });
}

}  // namespace

void AddLayerNormKernels(KernelList& list, bool bf16) {
  constexpr sy_dtype_t kNone = SY_DTYPE_NONE;
  for (sy_dtype_t x : FloatDtypes(bf16)) {
    std::vector<sy_dtype_t> affine = {kNone, x};
    if (x != SY_DTYPE_F32) affine.push_back(SY_DTYPE_F32);
    for (sy_dtype_t w : affine) {
      for (sy_dtype_t b : affine) {
        list.Add("layer_norm", {x, w, b}, LayerNorm);
      }
    }
  }
}

}  // namespace sy::onednn
