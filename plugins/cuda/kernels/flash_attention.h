// The plugin's own fused attention forward kernel for f16 and bf16
// (flash_attention.cu): softmax(q·kᵀ·scale + mask)·v in one pass over k and
// v, the scores never leaving the multiprocessor.
//
// Note [Flash attention]: one thread block takes a tile of Br query rows
// of one batch entry (every batch dim of the output flattened) and walks
// the keys in tiles of Bc (64; 32 for D = 256): S = Q·Kᵀ on the tensor cores (mma.sync
// m16n8k16, f32 accumulation), masks applied to S, an online softmax in
// registers (running row max and sum, the output rescaled when the max
// grows: FlashAttention-2's recurrence), then O += P·V with P rounded to
// the input dtype, as FlashAttention does. Each warp owns 16 query rows.
// Q, K and V tiles move global → shared memory with cp.async (16-byte
// chunks, rows padded by 16 bytes so that ldmatrix reads are free of bank
// conflicts); the next K tile loads while P·V runs and the next V tile
// while S is computed. The head dim is a template parameter D (64, 128,
// 256): E and Ev up to D are zero-padded (so any E ≤ 256 runs, E ≠ Ev
// too), and the host picks the smallest D that holds max(E, Ev).
//
// Semantics are the decomposition's (dispatcher/dispatch/decompositions/
// attention.cc): causal keeps key j for query i when j <= i (top-left);
// a bool mask keeps where nonzero; a floating mask is added to the scaled
// scores; a row whose every score is masked comes out NaN.
//
// Requirements (the host packs operands that miss them, attention.cc):
// q, k and v rows at unit stride along E, each row's start 16-byte
// aligned, E and Ev multiples of 8. The mask and the output may have any
// strides.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_FLASH_ATTENTION_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_FLASH_ATTENTION_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "switchyard/plugin.h"

namespace sy::cuda {

// Batch dims of the output, at most this many after merging (the op's
// rank is at most 8, two of which are L and E).
inline constexpr int kAttnMaxBatchDims = SY_MAX_RANK - 2;

// Operands in FlashParams::batch_stride.
enum AttnOperand { kAttnQ = 0, kAttnK, kAttnV, kAttnMask, kAttnOut, kAttnOperands };

struct FlashParams {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* mask = nullptr;  // NULL: none
  void* out = nullptr;
  int64_t lq = 0, lk = 0, e = 0, ev = 0;
  // Element strides along L (rows) of q, k, v and the output; the output's
  // stride along Ev; the mask's strides along Lq and Lk.
  int64_t q_rs = 0, k_rs = 0, v_rs = 0, o_rs = 0, o_cs = 1;
  int64_t m_rs = 0, m_cs = 0;
  // Batch dims of the output and each operand's element stride along them
  // (0 broadcasts).
  int batch_ndim = 0;
  int64_t batch_shape[kAttnMaxBatchDims] = {};
  int64_t batch_stride[kAttnOperands][kAttnMaxBatchDims] = {};
  int64_t batches = 1;
  float scale = 1.0f;
  bool causal = false;
  bool mask_is_bool = false;  // else added (the mask's dtype is q's)
  bool out_vectorized = false;  // o_cs == 1, 16-byte aligned rows, Ev % 8 == 0
  bool wide = false;  // 128 query rows a block instead of 64 (D <= 128)
};

// The head-dim template the kernel runs for max(E, Ev), or 0 above 256.
int FlashHeadDim(int64_t e, int64_t ev);

// Enqueues the kernel on `stream` for dtype (SY_DTYPE_F16 or BF16).
// Returns the launch's error (cudaSuccess when enqueued).
cudaError_t LaunchFlashAttention(const FlashParams& p, sy_dtype_t dtype,
                                 cudaStream_t stream);

// Copies a strided [batch..., L, E] operand (element strides `batch_stride`
// over the output's batch dims, `row_stride`, `col_stride`) into a dense
// [batches, L, e_pad] buffer, zero-padding columns E..e_pad-1: for operands
// that miss the kernel's layout requirements. `elem` is 2 (f16/bf16) or 1
// (bool mask rows are never packed).
cudaError_t PackAttentionOperand(const FlashParams& p, int operand,
                                 const void* src, int64_t rows, int64_t cols,
                                 int64_t row_stride, int64_t col_stride,
                                 void* dst, int64_t e_pad, cudaStream_t stream);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_FLASH_ATTENTION_H_
