// Note [Attention by GEMMs] (attention_gemm.h): Q·Kᵀ, the row kernel, S·V.
#include "kernels/attention_gemm.h"

#include <string_view>

#include "cuda_util.h"
#include "kernels/gemm.h"
#include "switchyard/gpu/gemm_problem.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

constexpr std::string_view kOp = "scaled_dot_product_attention";

// A matrix of a read-only operand: GemmMatrix holds one pointer type.
gpu::GemmMatrix Matrix(const void* data, int64_t rows, int64_t cols, int64_t rs,
                       int64_t cs) {
  return {const_cast<void*>(data), rows, cols, rs, cs};
}

}  // namespace

sy_error_t* RunGemmAttention(const GemmAttention& a, sy_dtype_t dtype,
                             gpu::Stream& stream, Scratch& scratch) {
  const FlashParams& p = a.p;
  void* scores = nullptr;
  SY_PLUGIN_RETURN_IF_ERROR(scratch.Get(
      static_cast<size_t>(p.batches * p.lq * p.lk) * plugin::DtypeSize(dtype), kOp,
      "allocating the attention scores failed", &scores));
  // The scores are dense [batch dims..., Lq, Lk].
  int64_t score_stride[kAttnMaxBatchDims] = {};
  int64_t stride = p.lq * p.lk;
  for (int d = p.batch_ndim - 1; d >= 0; --d) {
    score_stride[d] = stride;
    stride *= p.batch_shape[d];
  }
  const auto batched = [&](int a_operand, const int64_t* a_strides, int b_operand,
                           int c_operand, const int64_t* c_strides) {
    gpu::GemmProblem g;
    g.dtype = dtype;
    g.batch_ndim = p.batch_ndim;
    for (int d = 0; d < p.batch_ndim; ++d) {
      g.batch_shape[d] = p.batch_shape[d];
      g.batch_stride[0][d] = a_strides != nullptr ? a_strides[d] : p.batch_stride[a_operand][d];
      g.batch_stride[1][d] = p.batch_stride[b_operand][d];
      g.batch_stride[2][d] = c_strides != nullptr ? c_strides[d] : p.batch_stride[c_operand][d];
    }
    return g;
  };
  // S = Q·Kᵀ: Kᵀ is K read with its strides swapped.
  gpu::GemmProblem qk = batched(kAttnQ, nullptr, kAttnK, -1, score_stride);
  qk.a = Matrix(p.q, p.lq, p.e, p.q_rs, a.q_cs);
  qk.b = Matrix(p.k, p.e, p.lk, a.k_cs, p.k_rs);
  qk.c = {scores, p.lq, p.lk, p.lk, 1};
  SY_PLUGIN_RETURN_IF_ERROR(RunGemm(stream, qk, -1, kOp));
  SY_PLUGIN_RETURN_IF_ERROR(
      CudaError(LaunchAttentionSoftmax(p, a.scale, dtype, scores, stream.stream),
                plugin::StrCat("cuda plugin: ", kOp), "launching the softmax failed"));
  // O = S·V, into the output.
  gpu::GemmProblem sv = batched(-1, score_stride, kAttnV, kAttnOut, nullptr);
  sv.a = {scores, p.lq, p.lk, p.lk, 1};
  sv.b = Matrix(p.v, p.lk, p.ev, p.v_rs, a.v_cs);
  sv.c = {p.out, p.lq, p.ev, p.o_rs, p.o_cs};
  return RunGemm(stream, sv, -1, kOp);
}

}  // namespace sy::cuda
