// scaled_dot_product_attention through cuDNN's fused attention, as a graph
// of the backend API (no cudnn-frontend): Q·Kᵀ (matmul), × scale, + bias
// (an additive mask), the causal mask (two GEN_INDEX, CMP_GE,
// BINARY_SELECT), softmax (max and sum reductions, SUB, EXP, DIV), ·V —
// the pattern cuDNN's flash-attention engines fuse into one kernel.
//
// Note [cuDNN attention]: cuDNN wants 4-d [B, H, S, D] operands with the
// head dim at unit stride and 16-byte aligned rows, E = Ev a multiple of 8
// and at most 128 (256 from cuDNN 9.5 on Hopper; the plan's build says),
// f16 or bf16, and no boolean mask (its flash engines take an additive
// bias). attention.cc sends it only calls that fit and are large enough
// that its host cost and the plan's first build pay off; everything else,
// and every problem whose plan does not build, runs the plugin's own
// kernel (flash_attention.h). Plans are cached per problem (bounded: the
// least recently used goes first), failures too.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_CUDNN_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_CUDNN_H_

#include <cstdint>
#include <string>

#include "kernels/cudnn_library.h"
#include "kernels/scratch.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::cuda {

// One problem as cuDNN sees it; plain data, compared as bytes.
struct SdpaKey {
  int32_t device = 0;
  int32_t dtype = 0;  // f16 or bf16
  int32_t causal = 0;
  int32_t bias = 0;   // an additive mask of q's dtype
  int64_t b = 0, h = 0, sq = 0, skv = 0, d = 0;
  // Element strides [B, H, S, D] of q, k, v, o, and of the bias
  // [B or 1, H or 1, Sq, Skv] (its dims of size 1 have stride 0 here).
  int64_t q[4] = {}, k[4] = {}, v[4] = {}, o[4] = {}, mask[4] = {};
  int64_t mask_dims[4] = {};
};

struct SdpaPointers {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* bias = nullptr;
  void* o = nullptr;
  float scale = 1.0f;
};

// Runs the problem through cuDNN (building and caching its plan first)
// with `handle` bound to `stream`. When no plan builds, runs nothing,
// returns NULL and puts the reason in *why_not (cached too).
sy_error_t* RunCudnnAttention(const CudnnLibrary& lib, cudnnHandle_t handle,
                              Scratch& scratch, const SdpaKey& key,
                              const SdpaPointers& ptrs, std::string* why_not);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_CUDNN_H_
