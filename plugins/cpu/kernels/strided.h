// StridedLayout: N operands of one shape, each with its own strides, with
// size-1 dims dropped and dims that are dense for every operand merged (as
// sy::plugin::ForEachStridedRun does), walkable from any element index. That
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

namespace sy::cpu {

template <size_t N>
class StridedLayout {
 public:
  // `shape` has at most SY_MAX_RANK dims (kernels check views first); each
  // strides[k] points at shape.size() values, in elements, any sign.
  StridedLayout(std::span<const int64_t> shape,
                const std::array<const int64_t*, N>& strides) {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 0) {
        numel_ = 0;
        nd_ = 0;
        return;
      }
      numel_ *= shape[d];
      if (shape[d] == 1) continue;
      bool merge = nd_ > 0;
      for (size_t k = 0; k < N && merge; ++k) {
        merge = st_[k][nd_ - 1] == strides[k][d] * shape[d];
      }
      if (merge) {
        dims_[nd_ - 1] *= shape[d];
        for (size_t k = 0; k < N; ++k) st_[k][nd_ - 1] = strides[k][d];
      } else {
        dims_[nd_] = shape[d];
        for (size_t k = 0; k < N; ++k) st_[k][nd_] = strides[k][d];
        ++nd_;
      }
    }
  }

  int64_t numel() const { return numel_; }

  // True when the merged layout is one run with unit steps for every
  // operand: all operands dense and in the same order.
  bool all_dense() const {
    if (nd_ == 0) return true;
    if (nd_ > 1) return false;
    for (size_t k = 0; k < N; ++k) {
      if (st_[k][0] != 1) return false;
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
    if (nd_ == 0) {
      body(std::as_const(offsets), end - begin, std::as_const(steps));
      return;
    }
    const int last = nd_ - 1;
    for (size_t k = 0; k < N; ++k) steps[k] = st_[k][last];
    int64_t index[SY_MAX_RANK];
    int64_t rest = begin;
    for (int d = last; d >= 0; --d) {
      index[d] = rest % dims_[d];
      rest /= dims_[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += index[d] * st_[k][d];
    }
    int64_t remaining = end - begin;
    while (true) {
      const int64_t count = std::min(remaining, dims_[last] - index[last]);
      body(std::as_const(offsets), count, std::as_const(steps));
      remaining -= count;
      if (remaining == 0) return;
      // Move to the start of the next row: back along the last dim, then
      // carry into the outer dims.
      for (size_t k = 0; k < N; ++k) offsets[k] -= index[last] * st_[k][last];
      index[last] = 0;
      for (int d = last - 1; d >= 0; --d) {
        if (++index[d] < dims_[d]) {
          for (size_t k = 0; k < N; ++k) offsets[k] += st_[k][d];
          break;
        }
        index[d] = 0;
        for (size_t k = 0; k < N; ++k) offsets[k] -= st_[k][d] * (dims_[d] - 1);
      }
    }
  }

 private:
  int nd_ = 0;
  int64_t numel_ = 1;
  int64_t dims_[SY_MAX_RANK] = {};
  int64_t st_[N][SY_MAX_RANK] = {};
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
