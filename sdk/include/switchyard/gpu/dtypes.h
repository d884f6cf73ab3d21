// Note [Kernel dtypes]: the one place that says which dtypes the shared
// GPU kernels are built and registered for. Every family (creation, unary,
// binary, compare, reductions, norms, layout) draws its dtypes from these
// lists, so adding one — f64 to kFloatDtypes, i8/u8 to kIntDtypes — is an
// edit here: device_types.cuh already maps every ABI dtype to its storage
// and compute types, and the functors are written over compute types
// (math:: overloads for float and double). The ops' semantics per
// category are the families' own (integers wrap, floats propagate NaN, …).
//
// Order matters only for registration order (and so for ties between
// kernels of equal priority, which the shared kernels never have).
//
// Host code; no GPU compiler needed.
#ifndef SWITCHYARD_GPU_DTYPES_H_
#define SWITCHYARD_GPU_DTYPES_H_

#include <cstddef>
#include <iterator>
#include <string>
#include <utility>

#include "switchyard/common.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {

// Floating dtypes: every float op (exp, softmax, mean, div, …).
inline constexpr sy_dtype_t kFloatDtypes[] = {SY_DTYPE_F32, SY_DTYPE_F64,
                                              SY_DTYPE_F16, SY_DTYPE_BF16};
// Integer dtypes: the ops integers have (neg, add, compare, sum, max, …).
inline constexpr sy_dtype_t kIntDtypes[] = {SY_DTYPE_I32, SY_DTYPE_I64,
                                            SY_DTYPE_I8, SY_DTYPE_U8};
// bool, where an op means something for it (and, or, compare, cast, sum).
inline constexpr sy_dtype_t kBoolDtypes[] = {SY_DTYPE_BOOL};
// Index dtypes of embedding.
inline constexpr sy_dtype_t kIndexDtypes[] = {SY_DTYPE_I32, SY_DTYPE_I64};

// Calls f.template operator()<D>() for each dtype D of each list, in order:
//   ForEachDtype<kFloatDtypes, kIntDtypes>([&]<sy_dtype_t D>() { … });
template <const auto&... kLists, class F>
void ForEachDtype(F&& f) {
  const auto one = [&]<const auto& kList, size_t... I>(std::index_sequence<I...>) {
    (f.template operator()<kList[I]>(), ...);
  };
  (one.template operator()<kLists>(
       std::make_index_sequence<std::size(kLists)>{}),
   ...);
}

// Calls f.template operator()<D>() for the D of the lists equal to
// `dtype` and returns its result; `otherwise()` when none is.
template <const auto&... kLists, class F, class G>
auto VisitDtype(sy_dtype_t dtype, F&& f, G&& otherwise) {
  using R = decltype(otherwise());
  R result{};
  bool found = false;
  ForEachDtype<kLists...>([&]<sy_dtype_t D>() {
    if (!found && D == dtype) {
      result = f.template operator()<D>();
      found = true;
    }
  });
  return found ? result : otherwise();
}

// "f32 f16 bf16 i32 i64 bool": the lists' dtype names, for messages.
template <const auto&... kLists>
std::string DtypeNames() {
  std::string out;
  ForEachDtype<kLists...>([&]<sy_dtype_t D>() {
    if (!out.empty()) out.push_back(' ');
    out.append(plugin::DtypeName(D));
  });
  return out;
}

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_DTYPES_H_
