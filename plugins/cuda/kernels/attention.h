// scaled_dot_product_attention on cuda as one fused kernel, for f16 and
// bf16, with no mask, causal, a bool mask or an additive mask of q's
// dtype (every mask that broadcasts to the scores), any batch dims, any
// strides, E and Ev up to 256. f32 and f64 (full precision, which the
// tensor-core kernels cannot give) take the same calls, any E, as two
// cuBLASLt GEMMs around one row kernel (Note [Attention by GEMMs],
// attention_gemm.h).
//
// Which engine runs a call: cuDNN's fused attention (attention_cudnn.h)
// when cuDNN is loaded, the call fits it (Note [cuDNN attention]) and it is
// large (batch × Lq × Lk >= 2^20 scores: below that the plugin's kernel
// is as fast and builds nothing); otherwise, and whenever cuDNN has no
// plan, the plugin's own flash kernel (flash_attention.h). The autotune
// variants: "flash" (64 query rows a block), "cudnn" (fails with
// UNIMPLEMENTED, naming why, where cuDNN cannot run the call) and
// "flash_wide" (128 rows a block).
//
// Declines (SY_KERNEL_FLAG_MAY_DECLINE) head dims above 256 in f16/bf16,
// an f32/f64 output whose last dim is not at unit stride, and calls
// without keys (Lk = 0): the core's decomposition runs those, and
// `explain` says "declined: head dim 320 > 256, …".
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_H_

#include "switchyard/plugin.h"

namespace sy::cuda {

inline constexpr int kAttentionMaxHeadDim = 256;

sy_error_t* RegisterAttentionKernels(const sy_host_api_t* host,
                                     sy_host_context_t* context);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_ATTENTION_H_
