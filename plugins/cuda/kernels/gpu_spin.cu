// The spinning kernel (gpu_spin.h).
#include "kernels/gpu_spin.h"

namespace sy::cuda {
namespace {

__device__ __forceinline__ uint64_t GlobalTimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void Spin(int64_t nanoseconds) {
  const uint64_t start = GlobalTimer();
  while (GlobalTimer() - start < static_cast<uint64_t>(nanoseconds)) {
  }
}

}  // namespace

cudaError_t LaunchSpin(cudaStream_t stream, int64_t nanoseconds) {
  Spin<<<1, 1, 0, stream>>>(nanoseconds);
  return cudaGetLastError();
}

}  // namespace sy::cuda
