// scaled_dot_product_attention(Tensor q, Tensor k, Tensor v, Tensor? mask=None,
//                              bool causal=False, float? scale=None)
//   = softmax(q·kᵀ·scale + mask) · v
// in the inputs' dtype (f16/bf16 scores are computed in f32 and the result
// cast back), like PyTorch's math reference. A bool mask keeps where True
// (other scores become −inf); a floating mask is added. causal=True keeps
// key j for query i when j <= i (top-left aligned, as PyTorch's is_causal).
// A row with every score masked comes out NaN, as in PyTorch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dispatcher/dispatch/decompositions/decompositions.h"
#include "dispatcher/dispatch/decompositions/op_chain.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/registry/runtime_state.h"

namespace sy::core::decompositions {
namespace {

// Note [Cached causal masks]: the [lq, lk] lower-triangular keep-mask is
// the only data the decomposition makes itself. Made per call it cost a
// host loop over lq·lk bytes, a host→device copy and — because FromHost
// waits for its copy (the host buffer is the caller's) — a device
// synchronize in the middle of every causal attention: ~0.3 ms of host time
// per call at seq 1024 on the cpu, and on a GPU a stall that keeps the
// host from queueing ahead. It depends on (device, lq, lk) alone, so the
// runtime keeps it (memory/constant_cache.h): made once per shape, then
// reused as a read-only `where` input. The values are the same either way.
Tensor CausalMask(Dispatcher& runtime, OpChain& c, Device& device, int64_t lq,
                  int64_t lk) {
  absl::StatusOr<Tensor> mask = runtime.state().constants.GetOrMake(
      device, absl::StrCat("causal_mask ", lq, "x", lk),
      [&]() -> absl::StatusOr<Tensor> {
        std::vector<uint8_t> keep(static_cast<size_t>(lq * lk), 0);
        for (int64_t i = 0; i < lq; ++i) {  // keys 0..i of query i
          std::memset(keep.data() + i * lk, 1,
                      static_cast<size_t>(std::min(i + 1, lk)));
        }
        return runtime.FromHost(device, SY_DTYPE_BOOL, {lq, lk}, keep.data(),
                                keep.size());
      });
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
