// Opting a kernel into more than the 48 KiB of dynamic shared memory a
// launch gets by default, once per kernel and device (the plugin's own
// kernels: flash_attention.cu, conv2d_implicit_gemm.cu).
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_SMEM_LIMIT_CUH_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_SMEM_LIMIT_CUH_

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace sy::cuda {

// Raises kernel K's dynamic shared-memory limit to `bytes` on the current
// device, once per device (devices past 64 are asked every time). The flag
// set lives in the template instance, so each kernel has its own (a
// function pointer's type is shared by all of them).
template <auto K>
cudaError_t AllowSmem(size_t bytes) {
  static std::atomic<uint64_t> done{0};
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e != cudaSuccess) return e;
  const uint64_t bit = device < 64 ? uint64_t{1} << device : 0;
  if (bit != 0 && (done.load(std::memory_order_relaxed) & bit) != 0) {
    return cudaSuccess;
  }
  e = cudaFuncSetAttribute(K, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(bytes));
  if (e == cudaSuccess) done.fetch_or(bit, std::memory_order_relaxed);
  return e;
}

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_SMEM_LIMIT_CUH_
