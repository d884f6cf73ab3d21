// scaled_dot_product_attention for f32 and f64 on cuda: two cuBLASLt
// GEMMs around one row kernel, in the plugin (Note [Attention by GEMMs]).
//
// Note [Attention by GEMMs]: the fused kernels (flash, cuDNN) run on the
// tensor cores in f16/bf16; in f32 and f64 the core op set asks for full
// precision (no TF32), which they cannot give. The core's decomposition
// computes the same thing in six to eight ops — two matmuls, the scale, a
// mask built and applied, softmax — each a trip through the dispatcher and
// a tensor allocation: on the large Python block (seq 1024, 16 heads, f32)
// 71 µs of host time per call, the block's largest host cost. Here the
// plugin runs it as S = Q·Kᵀ (cuBLASLt, full precision, batched over the
// batch dims), one row kernel that scales S, applies the causal or given
// mask and takes the softmax in place (attention_softmax.cu), and
// O = S·V (cuBLASLt, written straight into the output). Three launches,
// one scratch buffer for S (batch × Lq × Lk elements, from the call's
// workspace), the same numbers as the decomposition up to summation order.
// Semantics are the op's: causal keeps key j for query i when j <= i; a
// bool mask keeps where nonzero; a floating mask is added to the scaled
// scores; a row whose every score is masked comes out NaN.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_GEMM_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_GEMM_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/flash_attention.h"
#include "kernels/scratch.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::cuda {

// The call as FlashParams describe it (attention.cc), plus what the fused
// kernels do not need: the scale in double and the operands' strides along
// E (Ev for v), which here may be anything.
struct GemmAttention {
  FlashParams p;
  double scale = 1.0;
  int64_t q_cs = 1, k_cs = 1, v_cs = 1;
};

// Runs the call on `stream` for dtype SY_DTYPE_F32 or SY_DTYPE_F64. The
// output's last dim must be at unit stride (attention.cc declines others).
sy_error_t* RunGemmAttention(const GemmAttention& a, sy_dtype_t dtype,
                             gpu::Stream& stream, Scratch& scratch);

// Scales, masks and softmaxes in place the dense [batches, Lq, Lk] scores
// at `scores` (dtype f32 or f64), the mask read through `p`'s mask fields.
cudaError_t LaunchAttentionSoftmax(const FlashParams& p, double scale,
                                   sy_dtype_t dtype, void* scores,
                                   cudaStream_t stream);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_GEMM_H_
