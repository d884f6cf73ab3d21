// The device-side helpers every CUDA source the code generator writes
// starts with (cuda_codegen.h): 16-byte vector stores, the f16/bf16
// conversions and 16-bit approximations (Note [16-bit results] in
// cuda_spelling.cc), NaN-propagating max/min, and the warp, block and
// thread-block-cluster reductions of the row kernels (Note [Row kernel
// shapes]). CUDA C as text, compiled by NVRTC with each kernel.
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_PRELUDE_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_PRELUDE_H_

namespace sy::cuda::fusion {

// Every generated source: types, stores, conversions, reductions.
extern const char* const kPreamble;
// Added for row kernels that spread a row over a cluster (sm_90+).
extern const char* const kClusterPreamble;

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_PRELUDE_H_
