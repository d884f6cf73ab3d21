// The row kernel of Note [Attention by GEMMs] (attention_gemm.h): one block
// per score row, three passes over the row (L2-resident: a row of 8192 f32
// is 32 KiB) — scale and mask while finding the maximum, exponentiate and
// sum, normalize.
#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "kernels/attention_gemm.h"
#include "switchyard/gpu/block_reduce.cuh"

namespace sy::cuda {
namespace {

constexpr int kThreads = 256;

// The mask's element offset for row `row` of the scores (its batch index
// over the output's batch dims, then query i) and key j.
__device__ __forceinline__ int64_t MaskRowOffset(const FlashParams& p,
                                                 int64_t row) {
  const int64_t i = row % p.lq;
  int64_t b = row / p.lq;
  int64_t offset = i * p.m_rs;
  for (int d = p.batch_ndim - 1; d >= 0; --d) {
    offset += (b % p.batch_shape[d]) * p.batch_stride[kAttnMask][d];
    b /= p.batch_shape[d];
  }
  return offset;
}

// Mask: T (added), unsigned char (a bool mask: kept where nonzero), or
// std::nullptr_t (none).
template <class T, class Mask>
__global__ void __launch_bounds__(kThreads)
    AttentionSoftmaxKernel(FlashParams p, T scale, T* __restrict__ scores) {
  __shared__ T scratch[32];
  const int64_t row = blockIdx.x;
  const int64_t i = row % p.lq;
  T* s = scores + row * p.lk;
  constexpr bool kMasked = !std::is_same_v<Mask, std::nullptr_t>;
  using Element = std::conditional_t<kMasked, Mask, T>;
  const Element* mask = static_cast<const Element*>(p.mask);
  const int64_t mask_row = kMasked ? MaskRowOffset(p, row) : 0;
  const T lowest = -std::numeric_limits<T>::infinity();
  // Causal keeps keys 0..i: the rest are -inf without reading them.
  const int64_t kept = p.causal ? (i + 1 < p.lk ? i + 1 : p.lk) : p.lk;

  T max = lowest;
  for (int64_t j = threadIdx.x; j < p.lk; j += blockDim.x) {
    T x = lowest;
    if (j < kept) {
      x = s[j] * scale;
      if constexpr (std::is_same_v<Mask, unsigned char>) {
        if (mask[mask_row + j * p.m_cs] == 0) x = lowest;
      } else if constexpr (kMasked) {
        x += mask[mask_row + j * p.m_cs];
      }
    }
    s[j] = x;
    max = max > x ? max : x;
  }
  max = gpu::BlockAllReduce(max, gpu::MaxOf{}, lowest, scratch);
  T sum = 0;
  for (int64_t j = threadIdx.x; j < p.lk; j += blockDim.x) {
    // A row whose every score is masked has max = -inf: exp(NaN) = NaN,
    // the op's answer for it.
    const T e = exp(s[j] - max);
    s[j] = e;
    sum += e;
  }
  sum = gpu::BlockAllReduce(sum, gpu::SumOf{}, T(0), scratch);
  const T inv = T(1) / sum;
  for (int64_t j = threadIdx.x; j < p.lk; j += blockDim.x) s[j] *= inv;
}

template <class T>
cudaError_t Launch(const FlashParams& p, double scale, void* scores,
                   cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(p.batches * p.lq));
  T* s = static_cast<T*>(scores);
  if (p.mask == nullptr) {
    AttentionSoftmaxKernel<T, std::nullptr_t>
        <<<grid, kThreads, 0, stream>>>(p, T(scale), s);
  } else if (p.mask_is_bool) {
    AttentionSoftmaxKernel<T, unsigned char>
        <<<grid, kThreads, 0, stream>>>(p, T(scale), s);
  } else {
    AttentionSoftmaxKernel<T, T><<<grid, kThreads, 0, stream>>>(p, T(scale), s);
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchAttentionSoftmax(const FlashParams& p, double scale,
                                   sy_dtype_t dtype, void* scores,
                                   cudaStream_t stream) {
  if (p.batches * p.lq == 0) return cudaSuccess;
  return dtype == SY_DTYPE_F64 ? Launch<double>(p, scale, scores, stream)
                               : Launch<float>(p, scale, scores, stream);
}

}  // namespace sy::cuda
