// scaled_dot_product_attention(Tensor q, Tensor k, Tensor v, Tensor? mask=None,
//                              bool causal=False, float? scale=None)
//   = softmax(q·kᵀ·scale + mask) · v
// in the inputs' dtype (f16/bf16 scores are computed in f32 and the result
// cast back), like PyTorch's math reference. A bool mask keeps where True
// (other scores become −inf); a floating mask is added. causal=True keeps
// key j for query i when j <= i (top-left aligned, as PyTorch's is_causal).
// A row with every score masked comes out NaN, as in PyTorch.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "dispatcher/dispatch/decompositions/decompositions.h"
#include "dispatcher/dispatch/decompositions/op_chain.h"

namespace sy::core::decompositions {
namespace {

// The [lq, lk] lower-triangular keep-mask, made on the host and copied to
// `device` (the only data the decomposition creates itself).
Tensor CausalMask(Dispatcher& runtime, OpChain& c, Device& device, int64_t lq,
                  int64_t lk) {
  std::vector<uint8_t> keep(static_cast<size_t>(lq * lk));
  for (int64_t i = 0; i < lq; ++i) {
    for (int64_t j = 0; j < lk; ++j) keep[i * lk + j] = j <= i ? 1 : 0;
  }
  absl::StatusOr<Tensor> mask = runtime.FromHost(
      device, SY_DTYPE_BOOL, {lq, lk}, keep.data(), keep.size());
  if (!mask.ok()) {
    c.Fail(mask.status());
    return Tensor();
  }
  return *std::move(mask);
}

}  // namespace

Result ScaledDotProductAttention(Dispatcher& runtime,
                                 const DecompositionArgs& args) {
  const Tensor& q_in = args.inputs[args.input_offsets[0]];
  const Tensor& k_in = args.inputs[args.input_offsets[1]];
  const Tensor& v_in = args.inputs[args.input_offsets[2]];
  const bool has_mask = args.input_offsets[4] > args.input_offsets[3];
  const bool causal = args.attrs[0].value.b != 0;
  const sy_attr_t& scale_attr = args.attrs[1];
  const int64_t e = q_in.shape().back();
  const double scale = scale_attr.kind == SY_ATTR_FLOAT
                           ? scale_attr.value.f
                           : 1.0 / std::sqrt(static_cast<double>(e));

  OpChain c(runtime, "scaled_dot_product_attention");
  const sy_dtype_t compute = ComputeDtype(q_in.dtype());
  const Tensor q = c.Cast(q_in, compute);
  const Tensor k = c.Cast(k_in, compute);
  const Tensor v = c.Cast(v_in, compute);
  Tensor scores = c.Scalar(
      "mul.Scalar", c.Call("matmul", {q, c.Call("transpose", {k}, {-2, -1})}),
      scale);

  Tensor keep;  // bool, broadcastable to the scores
  if (has_mask) {
    const Tensor& mask = args.inputs[args.input_offsets[3]];
    if (mask.dtype() == SY_DTYPE_BOOL) {
      keep = mask;
    } else {
      scores = c.Call("add.Tensor", {scores, c.Cast(mask, compute)});
    }
  } else if (causal) {
    const int64_t lq = q_in.shape()[q_in.ndim() - 2];
    const int64_t lk = k_in.shape()[k_in.ndim() - 2];
    keep = CausalMask(runtime, c, q_in.device(), lq, lk);
  }
  if (keep.defined() && c.ok()) {
    const Tensor minus_inf = c.Call(
        "fill.Scalar", {scores}, {Attr(-std::numeric_limits<double>::infinity())});
    scores = c.Call("where", {keep, scores, minus_inf});
  }
  const Tensor weights = c.Call("softmax", {scores}, {Attr(int64_t{-1})});
  const Tensor out = c.Call("matmul", {weights, v});
  return c.Result(c.Cast(out, q_in.dtype()));
}

}  // namespace sy::core::decompositions
