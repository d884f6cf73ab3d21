// Helpers shared by the reduction, normalization and layout kernels
// (reduction.cc, reduce_argmax.cc, norm*.cc, layout.cc): dtype-checked
// views, attribute and dim checks with uniform messages, optional tensor
// arguments, and a fixed split of work into thread-pool chunks.
//
// Every check returns NULL when it passes, else INVALID_ARGUMENT
// "cpu plugin: <op>: <what>; <what to do>" (see kernel_util.h).
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_UTIL_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_UTIL_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "kernels/parallel.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

// The type f16 and bf16 are computed in (float); every other element type
// computes in itself.
template <class T>
struct ReduceComputeOf {
  using type = T;
};
template <>
struct ReduceComputeOf<plugin::Half> {
  using type = float;
};
template <>
struct ReduceComputeOf<plugin::BFloat16> {
  using type = float;
};
template <class T>
using ReduceCompute = typename ReduceComputeOf<T>::type;

template <class T>
inline constexpr bool kIsFloating =
    std::is_floating_point_v<T> || std::is_same_v<T, plugin::Half> ||
    std::is_same_v<T, plugin::BFloat16>;

// `d` as float rounded to odd: truncated, with the last bit set when
// inexact. Rounding that on to f16 or bf16 gives the same result as rounding
// `d` directly (float has more than two extra bits), so a double
// accumulator reaches a half-precision output with a single rounding.
inline float RoundToOddFloat(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || d != d) return f;
  uint32_t bits = std::bit_cast<uint32_t>(f);
  // f was rounded away from zero: step back towards zero first.
  const double back = static_cast<double>(f);
  if ((back < 0 ? -back : back) > (d < 0 ? -d : d)) --bits;
  return std::bit_cast<float>(bits | 1u);
}

// A double result stored as element type T (floating), rounded once.
template <class T>
inline T FromDouble(double d) {
  if constexpr (std::is_same_v<T, plugin::Half> ||
                std::is_same_v<T, plugin::BFloat16>) {
    return T(RoundToOddFloat(d));
  } else {
    return static_cast<T>(d);
  }
}

// Checks `view` (CheckView's checks) and that its dtype is `dtype`, the one
// the kernel was registered for. A different dtype means the host sent the
// call to the wrong kernel, and the message says so.
sy_error_t* CheckTensor(const sy_tensor_view_t& view, std::string_view op,
                        std::string_view arg, sy_dtype_t dtype);

// Checks that attribute `index` (named `name` in messages) has `kind`, and,
// for SY_ATTR_INTS, a size >= 0 with data when the size is positive.
sy_error_t* CheckAttr(const sy_kernel_call_t* call, std::string_view op,
                      int index, std::string_view name, sy_attr_kind_t kind);

// "[1, -2]" for an SY_ATTR_INTS attribute already checked by CheckAttr.
std::string IntsToString(const sy_attr_t& attr);
std::span<const int64_t> Ints(const sy_attr_t& attr);

// Maps `dim` into [0, rank). With `wrap_scalar` a rank-0 tensor accepts 0
// and -1 (as PyTorch does for reductions and softmax) and gives 0. `what`
// names the attribute in messages: "attribute 'dim' = 3".
sy_error_t* WrapDim(std::string_view op, std::string_view what, int64_t dim,
                    int rank, std::string_view tensor, bool wrap_scalar,
                    int* out);

// The inputs of schema tensor argument `k` as [first, first + count), from
// call->input_offsets; checks that the offsets are present, in order and
// within num_inputs, and that the call has `num_tensor_args` arguments.
sy_error_t* TensorArg(const sy_kernel_call_t* call, std::string_view op,
                      int num_tensor_args, int k, int* first, int* count);

// Splits [0, n) into NumChunks(n, grain) contiguous chunks of nearly equal
// size and runs body(chunk, begin, end) for each, in parallel. Unlike a bare
// ParallelFor the chunk index is known, so callers can hand each chunk its
// own pre-allocated scratch (bodies must not throw, hence not allocate).
int64_t NumChunks(int64_t n, int64_t grain);
template <class Body>
void ForEachChunk(int64_t n, int64_t grain, Body&& body) {
  const int64_t chunks = NumChunks(n, grain);
  if (chunks == 0) return;
  const int64_t size = (n + chunks - 1) / chunks;
  ParallelFor(chunks, 1, [&](int64_t first, int64_t last) {
    for (int64_t c = first; c < last; ++c) {
      const int64_t begin = std::min(n, c * size);
      body(c, begin, std::min(n, begin + size));
    }
  });
}

// Elements per parallel chunk when each of `n` items costs `cost` elements
// of work: enough items that a chunk does kParallelGrain elements.
inline int64_t GrainFor(int64_t cost) {
  return cost >= kParallelGrain
             ? 1
             : (kParallelGrain + cost - 1) / std::max<int64_t>(cost, 1);
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_REDUCE_UTIL_H_
