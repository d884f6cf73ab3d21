// Single-threaded, cache-blocked f32 matrix product C = A·B over arbitrary
// strides, with a micro-kernel per x86 ISA level chosen at run time.
//
// Note [GEMM micro-kernels]: the blocking is GotoBLAS's (B panels packed for
// L3, A blocks for L2, an MR×NR tile of C held in vector registers). The
// micro-kernel is written with GCC/Clang vector extensions, not intrinsics,
// and compiled three times with different tile widths: 6×32 for AVX-512,
// 6×16 for AVX2+FMA, 6×8 for the SSE2 baseline every x86-64 has (elsewhere,
// that generic one maps to the target's 128-bit vectors). Plain scalar loops
// were tried first; GCC 12 vectorized them erratically (from 2 to 120
// GFLOP/s depending on the tile shape), so the vector types pin the shape.
// The build never uses -march: code for newer ISAs sits behind
// __attribute__((target)) and runs only when the CPU reports it.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sy::cpu {

// A matrix as a pointer to element (0, 0) and element strides, any sign,
// 0 allowed (a broadcast row or column).
struct ConstMatrix {
  const float* data;
  int64_t row_stride;
  int64_t col_stride;
};
struct Matrix {
  float* data;
  int64_t row_stride;
  int64_t col_stride;
};

// One micro-kernel family. Stateless; every member is thread-safe.
struct GemmKernel {
  std::string_view isa;  // "avx512", "avx2" or "generic"
  // Floats of 64-byte-aligned scratch Run needs for an m×k by k×n product.
  size_t (*scratch_floats)(int64_t m, int64_t n, int64_t k);
  // C (m×n) = A (m×k) · B (k×n); overwrites C (zeros when k is 0). C must
  // not overlap A or B. `scratch` holds scratch_floats(m, n, k) floats.
  void (*run)(int64_t m, int64_t n, int64_t k, ConstMatrix a, ConstMatrix b,
              Matrix c, float* scratch);
};

// Chooses the kernel that later ActiveGemmKernel() calls return: the widest
// this CPU supports, capped at `request` ("avx512", "avx2", "generic"; empty
// or unknown means no cap). Call from sy_plugin_init, when no kernel can be
// running; returns the kernel chosen.
const GemmKernel& SelectGemmKernel(std::string_view request);

// The kernel last chosen by SelectGemmKernel (the widest supported before
// the first call). Thread-safe.
const GemmKernel& ActiveGemmKernel();

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_H_
