// Tensor-core fragments for the plugin's own 16-bit kernels
// (flash_attention.cu, conv2d_implicit_gemm.cu): PTX's mma.m16n8k16
// (row.col, f32 accumulation) and the ldmatrix loads that feed it.
//
// Fragment layouts, with g = lane / 4 and t = lane % 4: a thread holds A
// elements (g, 2t..2t+1), (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..) in
// registers 0..3; B elements (k 2t..2t+1, n g) and (k 2t+8.., n g); C
// elements (g, 2t..2t+1) and (g+8, 2t..2t+1). Each register holds two
// 16-bit values, the lower column in the low half. ldmatrix hands out
// exactly those from row-major 8x8 tiles in shared memory: an operand
// stored [n][k] (n rows of k) gives B as it is; one stored [k][n] gives B
// through .trans.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_MMA_FRAGMENTS_CUH_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_MMA_FRAGMENTS_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace sy::cuda {

__device__ __forceinline__ uint32_t SmemAddr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void LdMatrixX4(uint32_t (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(SmemAddr(smem)));
}
__device__ __forceinline__ void LdMatrixX4Trans(uint32_t (&r)[4], const void* smem) {
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(SmemAddr(smem)));
}

// c += a·b for one m16n8k16 tile; T is __half or __nv_bfloat16.
template <class T>
__device__ __forceinline__ void Mma(float (&c)[4], const uint32_t (&a)[4],
                                    uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Two floats as one register of two T (the lower column in the low half).
template <class T>
__device__ __forceinline__ uint32_t Pack(float lo, float hi) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

template <class T>
__device__ __forceinline__ float ToF(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return __half2float(v);
  }
}

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_MMA_FRAGMENTS_CUH_
