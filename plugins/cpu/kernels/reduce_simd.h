// The vectorized inner loops of the reduction and normalization kernels:
// each works on one contiguous run of elements and is compiled once per
// x86-64 ISA level, the best one picked when the library loads.
//
// Note [Vectorized loops]: the build never uses -march (the plugin must run
// on any x86-64), so these functions carry GCC's target_clones for the
// baseline (SSE2), x86-64-v3 (AVX2, FMA, F16C) and x86-64-v4 (AVX-512); an
// ifunc resolver binds the widest the CPU has. The source files are built
// at -O2 with -fvect-cost-model=dynamic (-O2's "very cheap" model skips
// loops whose trip count is only known at run time; -O3 fully unrolls the
// lane loops first and the max/min selects then stay scalar) and
// -ffp-contract=off (plugins/cpu/CMakeLists.txt).
//
// Reductions are written with explicit lanes, groups of 16 (`acc[k][j] +=
// x[i + 16k + j]`): the vectorizer maps each group to vector registers
// without reordering a single addition, so every clone gives bit-identical
// results and no -ffast-math is needed. No clone contracts a*b+c into an FMA
// (GCC would, even in ISO mode, without -ffp-contract=off), for the same
// reason. Vectorization is checked with -fopt-info-vec-optimized (the lane
// and elementwise loops report "loop vectorized using 64 byte vectors" for
// the x86-64-v4 clone; f16 loads, whose conversion branches, do not
// vectorize) and in the disassembly
// (in the x86-64-v4 clones: SumF<float> adds four zmm registers of floats
// per step, vaddps, and folds them into doubles per block, vcvtps2pd;
// Max<float> keeps four zmm maxima, vcmpltps/vcmpneqps and a masked move).
// exp is not here: the norms call vector_math.h's VecMath, which reaches
// glibc's libmvec.
//
// Every function requires n >= 0 (n >= 1 where it says so), pointers to n
// valid elements, and no overlap between an output and an input unless it
// says the two may be equal. NaN propagates like NumPy: a run containing NaN
// has NaN as its sum, max and min.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_SIMD_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_SIMD_H_

#include <cstdint>

#include "kernels/reduce_util.h"

namespace sy::cpu::simd {

// ---- Reductions ---------------------------------------------------------
// T is one of float, double, Half, BFloat16 (SumF, AddF) or int32_t,
// int64_t, int8_t, uint8_t (SumI, AddI; also Max/Min and friends, which take
// every one of the eight). bool tensors are uint8_t runs: CountNonzero sums
// them, and Max/Min of their bytes tested != 0 is any/all.

// Sum of x in double.
template <class T>
double SumF(const T* x, int64_t n);
// Sum of x, wrapping modulo 2^64 (reinterpret as int64 for i64's result).
template <class T>
uint64_t SumI(const T* x, int64_t n);
// Number of nonzero bytes.
uint64_t CountNonzero(const uint8_t* x, int64_t n);

// acc[i] += x[i], in the accumulator's type.
template <class T>
void AddF(double* acc, const T* x, int64_t n);
template <class T>
void AddI(uint64_t* acc, const T* x, int64_t n);
void AddNonzero(uint64_t* acc, const uint8_t* x, int64_t n);

// Largest / smallest element (n >= 1), in ReduceCompute<T>; NaN if any is NaN.
template <class T>
ReduceCompute<T> Max(const T* x, int64_t n);
template <class T>
ReduceCompute<T> Min(const T* x, int64_t n);
// acc[i] = max(acc[i], x[i]) / min(…), NaN-propagating.
template <class T>
void MaxInto(ReduceCompute<T>* acc, const T* x, int64_t n);
template <class T>
void MinInto(ReduceCompute<T>* acc, const T* x, int64_t n);

// Index of the first largest element (n >= 1); the first NaN if any.
template <class T>
int64_t ArgMax(const T* x, int64_t n);

// ---- Normalizations: C is float or double ------------------------------

// y[i] = x[i] * s. y may equal x.
template <class C>
void Scale(C* y, const C* x, C s, int64_t n);
// y[i] = (x[i] - a) - b. y may equal x.
template <class C>
void SubSub(C* y, const C* x, C a, C b, int64_t n);
// Sum of x[i]^2, and of (x[i] - mean)^2, in double.
template <class C>
double SumSquares(const C* x, int64_t n);
template <class C>
double SumSquaredDeviations(const C* x, double mean, int64_t n);
// y[i] = ((x[i] - mean) * rstd) * w[i] + b[i], with w and b optional
// (NULL: 1 and 0). y may equal x.
template <class C>
void Normalize(C* y, const C* x, C mean, C rstd, const C* w, const C* b,
               int64_t n);

}  // namespace sy::cpu::simd

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_SIMD_H_
