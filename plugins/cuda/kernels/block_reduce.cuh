// Reductions across the threads of a block, for row kernels.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_BLOCK_REDUCE_CUH_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_BLOCK_REDUCE_CUH_

namespace sy::cuda {

// Combines `v` across a block of blockDim.x threads (a multiple of 32, at
// most 1024) with `combine`, which must be associative and commutative and
// have `identity` as its neutral value; every thread gets the result. `scratch` holds 32 T in shared memory and
// may be reused after the call returns. Every thread must call it.
template <class T, class Combine>
__device__ __forceinline__ T BlockAllReduce(T v, Combine combine,
                                            T identity, T* scratch) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;
  if (warps == 1) return v;
  __syncthreads();  // scratch may still be read from a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : identity;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    v = combine(v, __shfl_xor_sync(0xffffffffu, v, offset));
  }
  return v;
}

struct SumOf {
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOf {
  __device__ __forceinline__ float operator()(float a, float b) const {
    return fmaxf(a, b);
  }
};

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_BLOCK_REDUCE_CUH_
