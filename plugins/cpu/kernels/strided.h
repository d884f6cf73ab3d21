// StridedLayout: N operands of one shape, each with its own strides, with
// size-1 dims dropped and dims that are dense for every operand merged
// (sy::plugin::MergedDims), walkable from any element index. That
// last part is what lets ParallelForEachRun hand each thread a contiguous
// range of the row-major index space.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_STRIDED_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_STRIDED_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "kernels/parallel.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin/views.hpp"

namespace sy::cpu {

template <size_t N>
class StridedLayout {
 public:
  // `shape` has at most SY_MAX_RANK dims (kernels check views first); each
  // strides[k] points at shape.size() values, in elements, any sign.
  StridedLayout(std::span<const int64_t> shape,
                const std::array<const int64_t*, N>& strides)
      : merged_(shape, strides) {}

  int64_t numel() const { return merged_.numel(); }

  // True when the merged layout is one run with unit steps for every
  // operand: all operands dense and in the same order.
  bool all_dense() const {
    if (merged_.ndim() == 0) return true;
    if (merged_.ndim() > 1) return false;
    for (size_t k = 0; k < N; ++k) {
      if (merged_.strides(k)[0] != 1) return false;
    }
    return true;
  }

  // Calls body(offsets, count, steps) for the elements [begin, end) of the
  // row-major index space, in order, in runs along the innermost merged
  // dim: element i of a run lives at offsets[k] + i * steps[k] of operand k
  // (elements, relative to its DataPtr). Rank 0 is one run of one element.
  template <class Body>
  void ForEachRun(int64_t begin, int64_t end, Body&& body) const {
    std::array<int64_t, N> offsets{};
    std::array<int64_t, N> steps{};
    if (begin >= end) return;
    const int nd = merged_.ndim();
    const int64_t* const dims = merged_.shape();
    if (nd == 0) {
      body(std::as_const(offsets), end - begin, std::as_const(steps));
      return;
    }
    const int last = nd - 1;
    for (size_t k = 0; k < N; ++k) steps[k] = merged_.strides(k)[last];
    int64_t index[SY_MAX_RANK];
    int64_t rest = begin;
    for (int d = last; d >= 0; --d) {
      index[d] = rest % dims[d];
      rest /= dims[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += index[d] * merged_.strides(k)[d];
    }
    int64_t remaining = end - begin;
    while (true) {
      const int64_t count = std::min(remaining, dims[last] - index[last]);
      body(std::as_const(offsets), count, std::as_const(steps));
      remaining -= count;
      if (remaining == 0) return;
      // Move to the start of the next row: back along the last dim, then
      // carry into the outer dims.
      for (size_t k = 0; k < N; ++k) offsets[k] -= index[last] * merged_.strides(k)[last];
      index[last] = 0;
      for (int d = last - 1; d >= 0; --d) {
        if (++index[d] < dims[d]) {
          for (size_t k = 0; k < N; ++k) offsets[k] += merged_.strides(k)[d];
          break;
        }
        index[d] = 0;
        for (size_t k = 0; k < N; ++k) offsets[k] -= merged_.strides(k)[d] * (dims[d] - 1);
      }
    }
  }

 private:
  plugin::MergedDims<N> merged_;
};

// ForEachRun over the whole layout, split into ranges of at least `grain`
// elements run on the thread pool. `body` must be callable concurrently on
// disjoint ranges.
template <size_t N, class Body>
void ParallelForEachRun(const StridedLayout<N>& layout, int64_t grain,
                        Body&& body) {
  ParallelFor(layout.numel(), grain, [&](int64_t begin, int64_t end) {
    layout.ForEachRun(begin, end, body);
  });
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_STRIDED_H_
