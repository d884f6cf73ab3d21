// See Note [GEMM micro-kernels] in gemm.h. Built with -ffp-contract=fast so
// that `acc += a * b` becomes an FMA where the ISA has one.
#include "kernels/gemm.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace sy::cpu {
namespace {

// Blocking: a KC×NR sliver of B (32 KiB at NR 32) stays in L1, an MC×KC
// block of A (144 KiB) in L2, a KC×NC panel of B (2 MiB) in L3. Measured on
// a 2 MiB-L2 Xeon; larger L2s gain little from larger blocks.
constexpr int64_t kKc = 256;
constexpr int64_t kMc = 144;   // a multiple of every MR
constexpr int64_t kNc = 2048;  // a multiple of every NR
constexpr int kMr = 6;

constexpr int64_t RoundUp(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

// Packs rows [0, mc) × cols [0, kc) of A into MR-row slivers, k-major, rows
// past mc zero-filled so the micro-kernel never branches.
void PackA(ConstMatrix a, int64_t mc, int64_t kc, float* __restrict out) {
  for (int64_t i0 = 0; i0 < mc; i0 += kMr, out += kMr * kc) {
    const int64_t rows = std::min<int64_t>(kMr, mc - i0);
    for (int64_t k = 0; k < kc; ++k) {
      for (int i = 0; i < kMr; ++i) {
        out[k * kMr + i] =
            i < rows ? a.data[(i0 + i) * a.row_stride + k * a.col_stride]
                     : 0.0f;
      }
    }
  }
}

// Packs rows [0, kc) × cols [0, nc) of B into NR-column slivers, k-major.
template <int NR>
void PackB(ConstMatrix b, int64_t kc, int64_t nc, float* __restrict out) {
  for (int64_t j0 = 0; j0 < nc; j0 += NR, out += NR * kc) {
    const int64_t cols = std::min<int64_t>(NR, nc - j0);
    for (int64_t k = 0; k < kc; ++k) {
      const float* row = b.data + k * b.row_stride + j0 * b.col_stride;
      for (int j = 0; j < NR; ++j) {
        out[k * NR + j] = j < cols ? row[j * b.col_stride] : 0.0f;
      }
    }
  }
}

// C tile (mr×nr of it valid) = or += A sliver · B sliver. W floats per
// vector; the MR×(NR/W) accumulators live in registers.
template <int NR, int W>
[[gnu::always_inline]] inline void MicroKernel(int64_t kc,
                                               const float* __restrict ap,
                                               const float* __restrict bp,
                                               float* c, int64_t c_rs,
                                               int64_t c_cs, int64_t mr,
                                               int64_t nr, bool accumulate) {
  typedef float V __attribute__((vector_size(W * sizeof(float))));
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
      const float a = ap[k * kMr + i];
#pragma GCC unroll 4
      for (int v = 0; v < kVecs; ++v) acc[i][v] += a * b[v];
    }
  }
  if (mr == kMr && nr == NR && c_cs == 1) {
    for (int i = 0; i < kMr; ++i) {
      float* row = c + i * c_rs;
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
  alignas(64) float tile[kMr][NR];
  std::memcpy(tile, acc, sizeof(tile));
  for (int64_t i = 0; i < mr; ++i) {
    for (int64_t j = 0; j < nr; ++j) {
      float* p = c + i * c_rs + j * c_cs;
      *p = accumulate ? *p + tile[i][j] : tile[i][j];
    }
  }
}

// Every MR×NR tile of one packed A block times one packed B panel.
template <int NR, int W>
[[gnu::always_inline]] inline void MacroKernel(int64_t mc, int64_t nc,
                                               int64_t kc, const float* ap,
                                               const float* bp, Matrix c,
                                               bool accumulate) {
  for (int64_t j = 0; j < nc; j += NR) {
    for (int64_t i = 0; i < mc; i += kMr) {
      MicroKernel<NR, W>(kc, ap + i * kc, bp + j * kc,
                         c.data + i * c.row_stride + j * c.col_stride,
                         c.row_stride, c.col_stride,
                         std::min<int64_t>(kMr, mc - i),
                         std::min<int64_t>(NR, nc - j), accumulate);
    }
  }
}

using MacroFn = void (*)(int64_t mc, int64_t nc, int64_t kc, const float* ap,
                         const float* bp, Matrix c, bool accumulate);

#if defined(__x86_64__) || defined(__i386__)
#define SY_CPU_X86 1
[[gnu::target("avx512f,avx2,fma")]] void MacroAvx512(int64_t mc, int64_t nc,
                                                     int64_t kc,
                                                     const float* ap,
                                                     const float* bp, Matrix c,
                                                     bool accumulate) {
  MacroKernel<32, 16>(mc, nc, kc, ap, bp, c, accumulate);
}
[[gnu::target("avx2,fma")]] void MacroAvx2(int64_t mc, int64_t nc, int64_t kc,
                                           const float* ap, const float* bp,
                                           Matrix c, bool accumulate) {
  MacroKernel<16, 8>(mc, nc, kc, ap, bp, c, accumulate);
}
#endif
void MacroGeneric(int64_t mc, int64_t nc, int64_t kc, const float* ap,
                  const float* bp, Matrix c, bool accumulate) {
  MacroKernel<8, 4>(mc, nc, kc, ap, bp, c, accumulate);
}

template <int NR>
size_t ScratchFloats(int64_t m, int64_t n, int64_t k) {
  if (m == 0 || n == 0 || k == 0) return 0;
  const int64_t kc = std::min(k, kKc);
  // The A block is rounded to 16 floats so the B panel stays 64-byte aligned.
  const int64_t a = RoundUp(RoundUp(std::min(m, kMc), kMr) * kc, 16);
  return static_cast<size_t>(a + RoundUp(std::min(n, kNc), NR) * kc);
}

template <int NR, MacroFn kMacro>
void Run(int64_t m, int64_t n, int64_t k, ConstMatrix a, ConstMatrix b,
         Matrix c, float* scratch) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        c.data[i * c.row_stride + j * c.col_stride] = 0.0f;
      }
    }
    return;
  }
  float* a_block = scratch;
  float* b_panel =
      scratch + RoundUp(RoundUp(std::min(m, kMc), kMr) * std::min(k, kKc), 16);
  for (int64_t jc = 0; jc < n; jc += kNc) {
    const int64_t nc = std::min(kNc, n - jc);
    for (int64_t pc = 0; pc < k; pc += kKc) {
      const int64_t kc = std::min(kKc, k - pc);
      PackB<NR>({b.data + pc * b.row_stride + jc * b.col_stride, b.row_stride,
                 b.col_stride},
                kc, nc, b_panel);
      for (int64_t ic = 0; ic < m; ic += kMc) {
        const int64_t mc = std::min(kMc, m - ic);
        PackA({a.data + ic * a.row_stride + pc * a.col_stride, a.row_stride,
               a.col_stride},
              mc, kc, a_block);
        kMacro(mc, nc, kc, a_block, b_panel,
               {c.data + ic * c.row_stride + jc * c.col_stride, c.row_stride,
                c.col_stride},
               /*accumulate=*/pc > 0);
      }
    }
  }
}

constexpr GemmKernel kGeneric = {"generic", ScratchFloats<8>,
                                 Run<8, MacroGeneric>};
#if SY_CPU_X86
constexpr GemmKernel kAvx2 = {"avx2", ScratchFloats<16>, Run<16, MacroAvx2>};
constexpr GemmKernel kAvx512 = {"avx512", ScratchFloats<32>,
                                Run<32, MacroAvx512>};
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
