// CopyStrided4d (strided_copy4d.h): one grid-stride loop decomposing a
// linear index over the 4 dims. Only layouts cuDNN cannot take go through
// it (rare: sliced, permuted or broadcast views), so it favours simplicity
// over bandwidth.
#include "kernels/strided_copy4d.h"

#include <algorithm>

namespace sy::cuda {
namespace {

struct Dims4 {
  int64_t shape[4];
  int64_t src[4];
  int64_t dst[4];
};

template <class T>
__global__ void CopyKernel(const T* __restrict__ src, T* __restrict__ dst,
                           Dims4 d, int64_t total) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total;
       i += int64_t{gridDim.x} * blockDim.x) {
    int64_t rem = i, s = 0, t = 0;
    for (int k = 3; k >= 0; --k) {
      const int64_t idx = rem % d.shape[k];
      rem /= d.shape[k];
      s += idx * d.src[k];
      t += idx * d.dst[k];
    }
    dst[t] = src[s];
  }
}

}  // namespace

cudaError_t CopyStrided4d(const void* src, const int64_t src_strides[4],
                          void* dst, const int64_t dst_strides[4],
                          const int64_t shape[4], size_t element_bytes,
                          cudaStream_t stream) {
  Dims4 d;
  int64_t total = 1;
  for (int k = 0; k < 4; ++k) {
    d.shape[k] = shape[k];
    d.src[k] = src_strides[k];
    d.dst[k] = dst_strides[k];
    total *= shape[k];
  }
  if (total == 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const int blocks =
      static_cast<int>(std::min<int64_t>((total + kThreads - 1) / kThreads, 65535));
  if (element_bytes == 4) {
    CopyKernel<<<blocks, kThreads, 0, stream>>>(
        static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), d, total);
  } else if (element_bytes == 2) {
    CopyKernel<<<blocks, kThreads, 0, stream>>>(
        static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), d, total);
  } else {
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace sy::cuda
