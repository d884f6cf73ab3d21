// See Note [Vectorized loops] in reduce_simd.h.
#include "kernels/reduce_simd.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__linux__) && !defined(SY_CPU_NO_MULTIVERSION)
#define SY_CPU_MULTIVERSION \
  __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define SY_CPU_MULTIVERSION
#endif

namespace sy::cpu::simd {
namespace {

using ::sy::plugin::BFloat16;
using ::sy::plugin::Half;

// Accumulators: G groups of 16 lanes, each group one loop that the
// vectorizer turns into one zmm register (two ymm, four xmm) of a clone;
// unrolling over the groups keeps them all in registers, enough to cover
// the add latency. The lane layout fixes the summation order, so it is the
// same for every clone.
constexpr int kLanes = 16;
constexpr int kSumGroups = 2;      // 32 lanes of double
constexpr int kExtremeGroups = 4;  // 64 lanes of float

// NaN-propagating max/min of an accumulator and a value: once acc is NaN no
// comparison is true, so it stays NaN.
template <class C>
[[gnu::always_inline]] inline C MaxOf(C acc, C v) {
  return (v > acc || v != v) ? v : acc;
}
template <class C>
[[gnu::always_inline]] inline C MinOf(C acc, C v) {
  return (v < acc || v != v) ? v : acc;
}

// The lanes added in a fixed tree order, so that every clone rounds alike.
template <class A, int G>
[[gnu::always_inline]] inline A SumLanes(const A (&acc)[G][kLanes]) {
  A t[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    t[j] = acc[0][j];
    for (int k = 1; k < G; ++k) t[j] += acc[k][j];
  }
  for (int w = kLanes / 2; w >= 1; w /= 2) {
    for (int j = 0; j < w; ++j) t[j] = t[j] + t[j + w];
  }
  return t[0];
}

// Runs step(acc[k][j], x[i + 16k + j]) over the whole lane blocks of x and
// returns where they end.
template <int G, class A, class T, class Step>
[[gnu::always_inline]] inline int64_t LaneLoop(A (&acc)[G][kLanes],
                                               const T* __restrict x, int64_t n,
                                               Step step) {
  int64_t i = 0;
  for (; i + G * kLanes <= n; i += G * kLanes) {
#pragma GCC unroll 4
    for (int k = 0; k < G; ++k) {
      for (int j = 0; j < kLanes; ++j) step(acc[k][j], x[i + k * kLanes + j]);
    }
  }
  return i;
}

template <class C>
constexpr C Lowest() {
  if constexpr (std::numeric_limits<C>::has_infinity) {
    return -std::numeric_limits<C>::infinity();
  } else {
    return std::numeric_limits<C>::lowest();
  }
}
template <class C>
constexpr C Highest() {
  if constexpr (std::numeric_limits<C>::has_infinity) {
    return std::numeric_limits<C>::infinity();
  } else {
    return std::numeric_limits<C>::max();
  }
}

// Sum of term(x[i]) in double. For double inputs the lanes are double.
// For float-computed inputs (f32, f16, bf16) the lanes are float within
// blocks of kSumBlock elements (16 additions per lane), and each block's
// lanes are added into double lanes: half the vector work of converting
// every element, and a two-level, pairwise-like order (each float lane adds
// 16 terms, a bound of ~1e-6 of the sum of |terms|; measured on 16M
// uniform f32, 5e-11 of the exact sum before the result is rounded).
constexpr int kFloatGroups = 4;
constexpr int64_t kSumBlock = kFloatGroups * kLanes * 16;

template <class T, class Term>
[[gnu::always_inline]] inline double LaneSum(const T* __restrict x, int64_t n,
                                             Term term) {
  using C = ReduceCompute<T>;
  int64_t i = 0;
  double blocks[kLanes] = {};
  if constexpr (std::is_same_v<C, float>) {
    for (; i + kSumBlock <= n; i += kSumBlock) {
      float acc[kFloatGroups][kLanes] = {};
      LaneLoop(acc, x + i, kSumBlock, [&](float& a, T v) { a += term(C(v)); });
      for (int j = 0; j < kLanes; ++j) {
        blocks[j] += (double(acc[0][j]) + double(acc[1][j])) +
                     (double(acc[2][j]) + double(acc[3][j]));
      }
    }
  }
  double acc[kSumGroups][kLanes] = {};
  const T* rest = x + i;
  const int64_t m = LaneLoop(acc, rest, n - i, [&](double& a, T v) {
    a += static_cast<double>(term(C(v)));
  });
  for (int j = 0; j < kLanes; ++j) acc[0][j] += blocks[j];
  double total = SumLanes(acc);
  for (int64_t k = m; k < n - i; ++k)
    total += static_cast<double>(term(C(rest[k])));
  return total;
}

}  // namespace

// ---- Reductions ---------------------------------------------------------

template <class T>
SY_CPU_MULTIVERSION double SumF(const T* __restrict x, int64_t n) {
  return LaneSum(x, n, [](ReduceCompute<T> v) { return v; });
}

template <class T>
SY_CPU_MULTIVERSION uint64_t SumI(const T* __restrict x, int64_t n) {
  uint64_t acc[1][kLanes] = {};
  int64_t i = LaneLoop(acc, x, n, [](uint64_t& a, T v) {
    a += static_cast<uint64_t>(static_cast<int64_t>(v));
  });
  uint64_t total = SumLanes(acc);
  for (; i < n; ++i) total += static_cast<uint64_t>(static_cast<int64_t>(x[i]));
  return total;
}

SY_CPU_MULTIVERSION uint64_t CountNonzero(const uint8_t* __restrict x,
                                          int64_t n) {
  // 32-bit counters (4x the lanes of 64-bit ones) over blocks that cannot
  // overflow them.
  uint64_t total = 0;
  for (int64_t b = 0; b < n; b += int64_t{1} << 30) {
    const int64_t end = std::min(n, b + (int64_t{1} << 30));
    uint32_t count = 0;
    for (int64_t i = b; i < end; ++i) count += x[i] != 0;
    total += count;
  }
  return total;
}

template <class T>
SY_CPU_MULTIVERSION void AddF(double* __restrict acc, const T* __restrict x,
                              int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    acc[i] += static_cast<double>(static_cast<ReduceCompute<T>>(x[i]));
  }
}

template <class T>
SY_CPU_MULTIVERSION void AddI(uint64_t* __restrict acc, const T* __restrict x,
                              int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    acc[i] += static_cast<uint64_t>(static_cast<int64_t>(x[i]));
  }
}

SY_CPU_MULTIVERSION void AddNonzero(uint64_t* __restrict acc,
                                    const uint8_t* __restrict x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) acc[i] += x[i] != 0;
}

template <class T>
SY_CPU_MULTIVERSION ReduceCompute<T> Max(const T* __restrict x, int64_t n) {
  using C = ReduceCompute<T>;
  C acc[kExtremeGroups][kLanes];
  for (auto& group : acc) std::fill(group, group + kLanes, Lowest<C>());
  int64_t i = LaneLoop(acc, x, n, [](C& a, T v) { a = MaxOf(a, C(v)); });
  C m = acc[0][0];
  for (const auto& group : acc) {
    for (C v : group) m = MaxOf(m, v);
  }
  for (; i < n; ++i) m = MaxOf(m, C(x[i]));
  return m;
}

template <class T>
SY_CPU_MULTIVERSION ReduceCompute<T> Min(const T* __restrict x, int64_t n) {
  using C = ReduceCompute<T>;
  C acc[kExtremeGroups][kLanes];
  for (auto& group : acc) std::fill(group, group + kLanes, Highest<C>());
  int64_t i = LaneLoop(acc, x, n, [](C& a, T v) { a = MinOf(a, C(v)); });
  C m = acc[0][0];
  for (const auto& group : acc) {
    for (C v : group) m = MinOf(m, v);
  }
  for (; i < n; ++i) m = MinOf(m, C(x[i]));
  return m;
}

template <class T>
SY_CPU_MULTIVERSION void MaxInto(ReduceCompute<T>* __restrict acc,
                                 const T* __restrict x, int64_t n) {
  using C = ReduceCompute<T>;
  for (int64_t i = 0; i < n; ++i) acc[i] = MaxOf(acc[i], C(x[i]));
}

template <class T>
SY_CPU_MULTIVERSION void MinInto(ReduceCompute<T>* __restrict acc,
                                 const T* __restrict x, int64_t n) {
  using C = ReduceCompute<T>;
  for (int64_t i = 0; i < n; ++i) acc[i] = MinOf(acc[i], C(x[i]));
}

template <class T>
int64_t ArgMax(const T* x, int64_t n) {
  using C = ReduceCompute<T>;
  const C m = Max(x, n);
  if (m != m) {
    for (int64_t i = 0; i < n; ++i) {
      const C v = C(x[i]);
      if (v != v) return i;
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    if (C(x[i]) == m) return i;
  }
  return 0;  // unreachable: m is one of the elements
}

// ---- Normalizations -------------------------------------------------------

template <class C>
SY_CPU_MULTIVERSION void Scale(C* y, const C* x, C s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s;
}

template <class C>
SY_CPU_MULTIVERSION void SubSub(C* y, const C* x, C a, C b, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - a) - b;
}

template <class C>
SY_CPU_MULTIVERSION double SumSquares(const C* __restrict x, int64_t n) {
  return LaneSum(x, n, [](C v) { return v * v; });
}

template <class C>
SY_CPU_MULTIVERSION double SumSquaredDeviations(const C* __restrict x,
                                                double mean, int64_t n) {
  const C m = static_cast<C>(mean);
  return LaneSum(x, n, [m](C v) { return (v - m) * (v - m); });
}

template <class C>
SY_CPU_MULTIVERSION void Normalize(C* y, const C* x, C mean, C rstd, const C* w,
                                   const C* b, int64_t n) {
  // One loop per case, so none tests a pointer per element.
  if (w != nullptr && b != nullptr) {
    for (int64_t i = 0; i < n; ++i) y[i] = ((x[i] - mean) * rstd) * w[i] + b[i];
  } else if (w != nullptr) {
    for (int64_t i = 0; i < n; ++i) y[i] = ((x[i] - mean) * rstd) * w[i];
  } else if (b != nullptr) {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd + b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd;
  }
}

// ---- Instantiations ---------------------------------------------------------

#define SY_FLOATING(X) X(float) X(double) X(Half) X(BFloat16)
#define SY_INTEGER(X) X(int32_t) X(int64_t) X(int8_t) X(uint8_t)

#define SY_SUM_F(T)                           \
  template double SumF<T>(const T*, int64_t); \
  template void AddF<T>(double*, const T*, int64_t);
#define SY_SUM_I(T)                             \
  template uint64_t SumI<T>(const T*, int64_t); \
  template void AddI<T>(uint64_t*, const T*, int64_t);
#define SY_EXTREMES(T)                                      \
  template ReduceCompute<T> Max<T>(const T*, int64_t);            \
  template ReduceCompute<T> Min<T>(const T*, int64_t);            \
  template void MaxInto<T>(ReduceCompute<T>*, const T*, int64_t); \
  template void MinInto<T>(ReduceCompute<T>*, const T*, int64_t); \
  template int64_t ArgMax<T>(const T*, int64_t);
#define SY_NORM(C)                                                    \
  template void Scale<C>(C*, const C*, C, int64_t);                   \
  template void SubSub<C>(C*, const C*, C, C, int64_t);               \
  template double SumSquares<C>(const C*, int64_t);                   \
  template double SumSquaredDeviations<C>(const C*, double, int64_t); \
  template void Normalize<C>(C*, const C*, C, C, const C*, const C*, int64_t);

SY_FLOATING(SY_SUM_F)
SY_INTEGER(SY_SUM_I)
SY_FLOATING(SY_EXTREMES)
SY_INTEGER(SY_EXTREMES)
SY_NORM(float)
SY_NORM(double)

}  // namespace sy::cpu::simd
