// Asynchronous global-to-shared copies (PTX cp.async, sm_80 and later) for
// the plugin's own kernels (flash_attention.cu, conv2d_implicit_gemm.cu).
// Both addresses of a 16-byte copy are 16-byte aligned.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CP_ASYNC_CUH_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CP_ASYNC_CUH_

#include "kernels/mma_fragments.cuh"

namespace sy::cuda {

// 16 bytes through L2 only (.cg): for operands a block reads once.
__device__ __forceinline__ void CpAsync16(void* smem, const void* gmem) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(SmemAddr(smem)),
               "l"(gmem));
}
// 16 bytes kept in L1 too (.ca): for input the block's next tile reads
// again.
__device__ __forceinline__ void CpAsync16Cached(void* smem, const void* gmem) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(SmemAddr(smem)),
               "l"(gmem));
}
__device__ __forceinline__ void CpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
// Waits until at most N committed groups are still in flight.
template <int N>
__device__ __forceinline__ void CpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CP_ASYNC_CUH_
