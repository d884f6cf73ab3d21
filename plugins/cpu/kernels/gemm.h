// The GEMM micro-kernels: register-tiled products of packed blocks, one set
// per x86 ISA level, for the four compute types the cpu plugin multiplies
// in (float, double, and uint32/uint64 for wrapping integer products). The
// blocking, packing and threading around them is gemm_driver.h's.
//
// Note [GEMM micro-kernels]: the blocking is GotoBLAS's (B panels packed for
// L3, A blocks for L2, an MR×NR tile of C held in vector registers). The
// micro-kernel is written with GCC/Clang vector extensions, not intrinsics,
// and compiled per ISA with that ISA's vector width W: MR = 6 rows and
// NR = 2 vectors of columns (for float: 6×32 on AVX-512, 6×16 on AVX2+FMA,
// 6×8 on the SSE2 baseline every x86-64 has; elsewhere the generic one maps
// to the target's 128-bit vectors). Plain scalar loops were tried first;
// GCC 12 vectorized them erratically (from 2 to 120 GFLOP/s depending on the
// tile shape), so the vector types pin the shape. The build never uses
// -march: code for newer ISAs sits behind __attribute__((target)) and runs
// only when the CPU reports it.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace sy::cpu {

// Rows of every micro-kernel's register tile.
inline constexpr int kGemmMr = 6;

// The micro-kernel of one ISA for compute type S. Stateless, thread-safe.
template <class S>
struct MicroKernel {
  int nr;  // columns of the register tile: 2 vectors of S
  // C (mc×nc, element strides c_rs and c_cs) = Ap·Bp, plus C's old value
  // when `accumulate`. Ap is mc rows packed in kGemmMr-row slivers of kc
  // columns, row after row (sliver s, element (i, k) at s*kc*kGemmMr +
  // i*kc + k; rows past mc zero), so that packing a row-major A is a copy;
  // Bp is nc columns in nr-column slivers, k-major (element (k, j) of
  // sliver s at s*kc*nr + k*nr + j; columns past nc zero). S arithmetic:
  // for the unsigned types it wraps.
  void (*macro)(int64_t mc, int64_t nc, int64_t kc, const S* ap, const S* bp,
                S* c, int64_t c_rs, int64_t c_cs, bool accumulate);
};

// The micro-kernels of one ISA level.
struct GemmKernel {
  std::string_view isa;  // "avx512", "avx2" or "generic"
  MicroKernel<float> f32;
  MicroKernel<double> f64;
  MicroKernel<uint32_t> u32;
  MicroKernel<uint64_t> u64;

  template <class S>
  const MicroKernel<S>& For() const {
    if constexpr (std::is_same_v<S, float>) return f32;
    if constexpr (std::is_same_v<S, double>) return f64;
    if constexpr (std::is_same_v<S, uint32_t>) return u32;
    if constexpr (std::is_same_v<S, uint64_t>) return u64;
  }
};

// Chooses the kernels that later ActiveGemmKernel() calls return: the widest
// this CPU supports, capped at `request` ("avx512", "avx2", "generic"; empty
// or unknown means no cap). Call from sy_plugin_init, when no kernel can be
// running; returns the kernels chosen.
const GemmKernel& SelectGemmKernel(std::string_view request);

// The kernels last chosen by SelectGemmKernel (the widest supported before
// the first call). Thread-safe.
const GemmKernel& ActiveGemmKernel();

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_H_
