// Reductions across the threads of a block, for row kernels.
#ifndef SWITCHYARD_GPU_BLOCK_REDUCE_CUH_
#define SWITCHYARD_GPU_BLOCK_REDUCE_CUH_

#include "switchyard/gpu/device_types.cuh"
#include "switchyard/gpu/portability.h"

namespace sy::gpu {

// Combines `v` across a block of blockDim.x threads (a multiple of
// kMaxWarpSize, at most 1024) with `combine`, which must be associative and
// commutative and have `identity` as its neutral value; every thread gets
// the result. `scratch` holds 32 T in shared memory (one per warp: 1024
// threads are at most 32 warps) and may be reused after the call returns.
// Every thread must call it.
template <class T, class Combine>
__device__ __forceinline__ T BlockAllReduce(T v, Combine combine,
                                            T identity, T* scratch) {
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    v = combine(v, ShflXor(v, offset));
  }
  const int warp = threadIdx.x / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  const int warps = blockDim.x / kWarpSize;
  if (warps == 1) return v;
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : identity;
#pragma unroll
  for (int offset = kWarpSize / 2; offset > 0; offset >>= 1) {
    v = combine(v, ShflXor(v, offset));
  }
  return v;
}

struct SumOf {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOf {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return math::Max(a, b);
  }
};

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_BLOCK_REDUCE_CUH_
