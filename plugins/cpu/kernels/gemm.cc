// See Note [GEMM micro-kernels] in gemm.h. Built with -ffp-contract=fast so
// that `acc += a * b` becomes an FMA where the ISA has one.
#include "kernels/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace sy::cpu {
namespace {

constexpr int kMr = kGemmMr;

// C tile (mr×nr of it valid) = or += A sliver · B sliver. W elements per
// vector; the kMr×(NR/W) accumulators live in registers.
template <class S, int NR, int W>
[[gnu::always_inline]] inline void Tile(int64_t kc, const S* __restrict ap,
                                        const S* __restrict bp, S* c,
                                        int64_t c_rs, int64_t c_cs, int64_t mr,
                                        int64_t nr, bool accumulate) {
  typedef S V __attribute__((vector_size(W * sizeof(S))));
  constexpr int kVecs = NR / W;
  V acc[kMr][kVecs] = {};
  for (int64_t k = 0; k < kc; ++k) {
    // One load per vector: a single memcpy of the whole sliver is split
    // into narrower stores and reloaded, which stalls store forwarding.
    V b[kVecs];
    for (int v = 0; v < kVecs; ++v) {
      std::memcpy(&b[v], bp + k * NR + v * W, sizeof(V));
    }
#pragma GCC unroll 8
    for (int i = 0; i < kMr; ++i) {
      const S a = ap[i * kc + k];
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[i][v] += a * b[v];
    }
  }
  if (mr == kMr && nr == NR && c_cs == 1) {
    for (int i = 0; i < kMr; ++i) {
      S* row = c + i * c_rs;
      for (int v = 0; v < kVecs; ++v) {
        V sum = acc[i][v];
        if (accumulate) {
          V old;
          std::memcpy(&old, row + v * W, sizeof(V));
          sum += old;
        }
        std::memcpy(row + v * W, &sum, sizeof(V));
      }
    }
    return;
  }
  // Edge tiles and strided C go through memory; indexing the vectors with a
  // variable lane here instead would pin the accumulators to the stack for
  // the whole k loop.
  alignas(64) S tile[kMr][NR];
  std::memcpy(tile, acc, sizeof(tile));
  for (int64_t i = 0; i < mr; ++i) {
    for (int64_t j = 0; j < nr; ++j) {
      S* p = c + i * c_rs + j * c_cs;
      *p = accumulate ? *p + tile[i][j] : tile[i][j];
    }
  }
}

// Every kMr×NR tile of one packed A block times one packed B panel.
template <class S, int NR, int W>
[[gnu::always_inline]] inline void Macro(int64_t mc, int64_t nc, int64_t kc,
                                         const S* ap, const S* bp, S* c,
                                         int64_t c_rs, int64_t c_cs,
                                         bool accumulate) {
  for (int64_t j = 0; j < nc; j += NR) {
    for (int64_t i = 0; i < mc; i += kMr) {
      Tile<S, NR, W>(kc, ap + i * kc, bp + j * kc, c + i * c_rs + j * c_cs,
                     c_rs, c_cs, std::min<int64_t>(kMr, mc - i),
                     std::min<int64_t>(NR, nc - j), accumulate);
    }
  }
}

// One instantiation per ISA: `kBytes` is the vector width, NR two vectors.
#define SY_GEMM_MACRO_ARGS                                            \
  int64_t mc, int64_t nc, int64_t kc, const S *ap, const S *bp, S *c, \
      int64_t c_rs, int64_t c_cs, bool accumulate
#define SY_GEMM_MACRO_BODY(kBytes)                          \
  Macro<S, 2 * (kBytes) / sizeof(S), (kBytes) / sizeof(S)>( \
      mc, nc, kc, ap, bp, c, c_rs, c_cs, accumulate)

template <class S>
void MacroGeneric(SY_GEMM_MACRO_ARGS) {
  SY_GEMM_MACRO_BODY(16);
}
#if defined(__x86_64__) || defined(__i386__)
#define SY_CPU_X86 1
template <class S>
[[gnu::target("avx2,fma")]] void MacroAvx2(SY_GEMM_MACRO_ARGS) {
  SY_GEMM_MACRO_BODY(32);
}
template <class S>
[[gnu::target("avx512f,avx2,fma")]] void MacroAvx512(SY_GEMM_MACRO_ARGS) {
  SY_GEMM_MACRO_BODY(64);
}
#endif
#undef SY_GEMM_MACRO_ARGS
#undef SY_GEMM_MACRO_BODY

// nr is two vectors of S: 64-, 32- and 16-byte vectors.
constexpr GemmKernel kGeneric = {"generic",
                                 {8, MacroGeneric<float>},
                                 {4, MacroGeneric<double>},
                                 {8, MacroGeneric<uint32_t>},
                                 {4, MacroGeneric<uint64_t>}};
#if SY_CPU_X86
constexpr GemmKernel kAvx2 = {"avx2",
                              {16, MacroAvx2<float>},
                              {8, MacroAvx2<double>},
                              {16, MacroAvx2<uint32_t>},
                              {8, MacroAvx2<uint64_t>}};
constexpr GemmKernel kAvx512 = {"avx512",
                                {32, MacroAvx512<float>},
                                {16, MacroAvx512<double>},
                                {32, MacroAvx512<uint32_t>},
                                {16, MacroAvx512<uint64_t>}};
#endif

const GemmKernel* Widest(std::string_view cap) {
#if SY_CPU_X86
  __builtin_cpu_init();
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (cap != "generic" && cap != "avx2" && avx2 &&
      __builtin_cpu_supports("avx512f")) {
    return &kAvx512;
  }
  if (cap != "generic" && avx2) return &kAvx2;
#endif
  (void)cap;
  return &kGeneric;
}

std::atomic<const GemmKernel*> g_active{nullptr};

}  // namespace

const GemmKernel& SelectGemmKernel(std::string_view request) {
  const GemmKernel* kernel = Widest(request);
  g_active.store(kernel, std::memory_order_release);
  return *kernel;
}

const GemmKernel& ActiveGemmKernel() {
  const GemmKernel* kernel = g_active.load(std::memory_order_acquire);
  return kernel != nullptr ? *kernel : SelectGemmKernel("");
}

}  // namespace sy::cpu
