// Packing strided matrices into the micro-kernels' sliver layout (gemm.h),
// converting each element to the compute type on the way: f16/bf16 to
// float, integers to the unsigned type of their accumulator. Packing is the
// one pass that reads the operands, so the conversion costs no extra pass.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_PACK_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_PACK_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/gemm.h"

namespace sy::cpu {

// A matrix of T: element (i, j) at data[i * rs + j * cs]; strides in
// elements, any value (0 for a broadcast row or column).
template <class T>
struct StridedMatrix {
  const T* data;
  int64_t rs;
  int64_t cs;
};

namespace gemm_internal {

// GCC spells a two-vector shuffle __builtin_shuffle, clang
// __builtin_shufflevector (constant lane indices).
#if defined(__clang__)
#define SY_SHUFFLE4(a, b, i0, i1, i2, i3) \
  __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define SY_SHUFFLE4(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, I{i0, i1, i2, i3})
#endif

// dst[k * ld + j] = src[j * cs + k] for 4 columns j and k < kc: 4×4 blocks
// transposed in 128-bit registers (SSE2 on x86-64, so no target attribute).
inline void TransposeColumns4(const float* src, int64_t cs, int64_t kc,
                              float* dst, int64_t ld) {
  typedef float V __attribute__((vector_size(16)));
  typedef int I __attribute__((vector_size(16), unused));  // GCC's shuffle mask
  const float* c[4] = {src, src + cs, src + 2 * cs, src + 3 * cs};
  int64_t k = 0;
  for (; k + 4 <= kc; k += 4) {
    V v[4];
    for (int j = 0; j < 4; ++j) std::memcpy(&v[j], c[j] + k, sizeof(V));
    const V t0 = SY_SHUFFLE4(v[0], v[1], 0, 4, 1, 5);
    const V t1 = SY_SHUFFLE4(v[0], v[1], 2, 6, 3, 7);
    const V t2 = SY_SHUFFLE4(v[2], v[3], 0, 4, 1, 5);
    const V t3 = SY_SHUFFLE4(v[2], v[3], 2, 6, 3, 7);
    const V r[4] = {SY_SHUFFLE4(t0, t2, 0, 1, 4, 5),
                    SY_SHUFFLE4(t0, t2, 2, 3, 6, 7),
                    SY_SHUFFLE4(t1, t3, 0, 1, 4, 5),
                    SY_SHUFFLE4(t1, t3, 2, 3, 6, 7)};
    for (int t = 0; t < 4; ++t)
      std::memcpy(dst + (k + t) * ld, &r[t], sizeof(V));
  }
  for (; k < kc; ++k) {
    for (int j = 0; j < 4; ++j) dst[k * ld + j] = c[j][k];
  }
}

}  // namespace gemm_internal

// Packs rows [0, mc) × cols [0, kc) of `a` into kGemmMr-row slivers, each
// row's kc elements in a run (gemm.h's layout); rows past mc are zero so
// the micro-kernel never branches. static_cast<S> is the conversion:
// Half/BFloat16 → float exactly, and an integer to uint32/uint64 modulo
// 2^32/2^64 (sign-extending), which keeps the wrapped product exact modulo
// the output's width.
template <class S, class T>
void PackA(StridedMatrix<T> a, int64_t mc, int64_t kc, S* __restrict out) {
  constexpr int kMr = kGemmMr;
  const int64_t padded = (mc + kMr - 1) / kMr * kMr;
  if (a.rs == 1 && a.cs != 1) {
    // Column-major (a transposed view): read each column once, in order;
    // the writes go to mc runs that stay in L1 for a few columns.
    for (int64_t k = 0; k < kc; ++k) {
      const T* col = a.data + k * a.cs;
      for (int64_t i = 0; i < mc; ++i) {
        out[i / kMr * kMr * kc + i % kMr * kc + k] = static_cast<S>(col[i]);
      }
    }
  } else {
    constexpr int64_t kLine = 64 / sizeof(T);
    for (int64_t i = 0; i < mc; ++i) {
      const T* row = a.data + i * a.rs;
      S* dst = out + i / kMr * kMr * kc + i % kMr * kc;
      if (a.cs == 1) {
        if (i + 2 < mc) {  // rows are often pages apart: prefetch ahead
          const T* next = row + 2 * a.rs;
          for (int64_t k = 0; k < kc; k += kLine) __builtin_prefetch(next + k);
        }
        for (int64_t k = 0; k < kc; ++k) dst[k] = static_cast<S>(row[k]);
      } else {
        for (int64_t k = 0; k < kc; ++k) dst[k] = static_cast<S>(row[k * a.cs]);
      }
    }
  }
  for (int64_t i = mc; i < padded; ++i) {
    S* dst = out + i / kMr * kMr * kc + i % kMr * kc;
    for (int64_t k = 0; k < kc; ++k) dst[k] = S{};
  }
}

// Packs rows [0, kc) × cols [0, nc) of `b` into NR-column slivers, k-major
// (gemm.h's layout), `sliver` elements apart (kc * NR for a whole panel; a
// part of a taller panel passes that panel's); columns past nc are zero.
// Same conversion as PackA. Both loop orders read `b` along its unit
// stride (prefetching the next rows, which are often pages apart, where
// hardware prefetch does not follow).
template <int NR, class S, class T>
void PackB(StridedMatrix<T> b, int64_t kc, int64_t nc, S* __restrict out,
           int64_t sliver) {
  const int64_t full = nc / NR * NR;
  if (b.rs == 1 && b.cs != 1) {
    // Column-major (a transposed weight, as `linear` passes it): each
    // column is read in one run down k while its sliver (kc × NR, 32 KiB
    // at most) stays in L1 for the writes. Reading a line of each of NR
    // columns in turn instead thrashes L1 when the columns are 4 KiB apart.
    for (int64_t j0 = 0; j0 < nc; j0 += NR, out += sliver) {
      const int64_t cols = std::min<int64_t>(NR, nc - j0);
      int64_t j = 0;
      if constexpr (std::is_same_v<S, float> && std::is_same_v<T, float>) {
        for (; j + 4 <= cols; j += 4) {
          gemm_internal::TransposeColumns4(b.data + (j0 + j) * b.cs, b.cs, kc,
                                           out + j, NR);
        }
      }
      for (; j < NR; ++j) {
        S* dst = out + j;
        if (j < cols) {
          const T* col = b.data + (j0 + j) * b.cs;
          for (int64_t k = 0; k < kc; ++k) dst[k * NR] = static_cast<S>(col[k]);
        } else {
          for (int64_t k = 0; k < kc; ++k) dst[k * NR] = S{};
        }
      }
    }
    return;
  }
  // Row-major (or any other layout): one row of B at a time, across every
  // sliver.
  constexpr int64_t kLine = 64 / sizeof(T);
  constexpr int64_t kAhead = 4;  // rows
  for (int64_t k = 0; k < kc; ++k) {
    const T* row = b.data + k * b.rs;
    if (b.cs == 1 && k + kAhead < kc) {
      const T* next = row + kAhead * b.rs;
      for (int64_t j = 0; j < nc; j += kLine) __builtin_prefetch(next + j);
    }
    S* dst = out + k * NR;
    int64_t j0 = 0;
    for (; j0 < full; j0 += NR, dst += sliver) {
      if (b.cs == 1) {
        for (int j = 0; j < NR; ++j) dst[j] = static_cast<S>(row[j0 + j]);
      } else {
        for (int j = 0; j < NR; ++j)
          dst[j] = static_cast<S>(row[(j0 + j) * b.cs]);
      }
    }
    if (j0 < nc) {
      for (int j = 0; j < NR; ++j) {
        dst[j] = j0 + j < nc ? static_cast<S>(row[(j0 + j) * b.cs]) : S{};
      }
    }
  }
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_GEMM_PACK_H_
