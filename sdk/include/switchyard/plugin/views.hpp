// sy::plugin tensor views: Shape, Strides, NumElements, IsContiguous,
// DataPtr, ShapeToString, MemoryOrderedDims, MergedDims, and
// ForEachStridedRun, the N-operand strided walker of elementwise kernels.
// Part of plugin.hpp (read its rules first).
#ifndef SWITCHYARD_PLUGIN_VIEWS_HPP_
#define SWITCHYARD_PLUGIN_VIEWS_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "switchyard/plugin.h"

namespace sy::plugin {

// ---- Tensor views --------------------------------------------------------
// Preconditions for all of these: 0 <= view.ndim <= SY_MAX_RANK, and shape
// and strides point at ndim entries (kernels check views first).

inline std::span<const int64_t> Shape(const sy_tensor_view_t& view) noexcept {
  return {view.shape, static_cast<size_t>(view.ndim)};
}
inline std::span<const int64_t> Strides(const sy_tensor_view_t& view) noexcept {
  return {view.strides, static_cast<size_t>(view.ndim)};
}

// The product of the shape (1 for rank 0, 0 when any dimension is 0).
// Assumes it fits in int64 (the core allocated the tensor).
inline int64_t NumElements(const sy_tensor_view_t& view) noexcept {
  int64_t n = 1;
  for (int64_t d : Shape(view)) n *= d;
  return n;
}

// True when the elements are dense in row-major order, so element i lives at
// DataPtr<T>(view)[i]. Dimensions of size 1 may have any stride; an empty
// tensor is contiguous.
inline bool IsContiguous(const sy_tensor_view_t& view) noexcept {
  int64_t expected = 1;
  for (int d = view.ndim - 1; d >= 0; --d) {
    if (view.shape[d] == 0) return true;
    if (view.shape[d] != 1 && view.strides[d] != expected) return false;
    expected *= view.shape[d];
  }
  return true;
}

// The address of element (0, …, 0): data + byte_offset, as T*; NULL when
// data is NULL (an empty tensor may have no storage, and offsetting NULL is
// undefined behaviour). Use a const T for inputs. Does not check that T
// matches view.dtype.
template <class T>
T* DataPtr(const sy_tensor_view_t& view) noexcept {
  using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
  if (view.data == nullptr) return nullptr;
  return reinterpret_cast<T*>(static_cast<Byte*>(view.data) + view.byte_offset);
}

// "[2, 3]"; "[]" for rank 0. For error messages.
inline std::string ShapeToString(std::span<const int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out.append(", ");
    out.append(std::to_string(shape[i]));
  }
  out.push_back(']');
  return out;
}

// ---- Memory order --------------------------------------------------------

// The dims of N operands that share `shape` (each strides[k] has
// shape.size() values), reordered into operand 0's memory order: outermost
// first, by |stride| descending, ties keeping their order. Note
// [Elementwise memory order]: an elementwise walk (every element computed
// on its own, so the visiting order is free) over these dims instead of
// the logical ones visits operand 0 — the output — sequentially. Merging
// (ForEachStridedRun, the plugins' walkers) then makes one dense run of a
// channels-last output and inputs in its layout, where the logical order
// [N, C, H·W] is a strided walk; contiguous outputs keep the logical order.
// Precondition: shape.size() <= SY_MAX_RANK. Holds pointers to none of its
// arguments; strides() points into this object.
template <size_t N>
class MemoryOrderedDims {
 public:
  MemoryOrderedDims(std::span<const int64_t> shape,
                    const std::array<const int64_t*, N>& strides) noexcept
      : ndim_(shape.size()) {
    int order[SY_MAX_RANK];
    for (size_t d = 0; d < ndim_; ++d) {
      // Insertion sort (at most SY_MAX_RANK dims), stable.
      size_t i = d;
      const int64_t key = Magnitude(strides[0][d]);
      for (; i > 0 && Magnitude(strides[0][order[i - 1]]) < key; --i) order[i] = order[i - 1];
      order[i] = static_cast<int>(d);
    }
    for (size_t i = 0; i < ndim_; ++i) {
      shape_[i] = shape[order[i]];
      for (size_t k = 0; k < N; ++k) strides_[k][i] = strides[k][order[i]];
    }
  }

  std::span<const int64_t> shape() const noexcept { return {shape_, ndim_}; }
  std::array<const int64_t*, N> strides() const noexcept {
    std::array<const int64_t*, N> out{};
    for (size_t k = 0; k < N; ++k) out[k] = strides_[k];
    return out;
  }

 private:
  static int64_t Magnitude(int64_t stride) noexcept { return stride < 0 ? -stride : stride; }

  size_t ndim_;
  int64_t shape_[SY_MAX_RANK] = {};
  int64_t strides_[N][SY_MAX_RANK] = {};
};

// ---- Merged dims -------------------------------------------------------------

// The dims of N operands that share `shape` (each strides[k] has
// shape.size() values, in elements, any sign), with size-1 dims dropped and
// neighbours that are dense for every operand (the outer stride is the
// inner stride times the inner size) merged, outermost first. Operands
// that are all contiguous, or share one dense layout, become one dim of
// stride 1 (or rank 0 for a single element): the layout every strided
// walker starts from (ForEachStridedRun; the cpu engine's StridedLayout;
// the GPU and Vulkan elementwise launches). numel() is the product of the
// shape, 0 when a dim is 0 (then ndim() is 0 too). Precondition:
// shape.size() <= SY_MAX_RANK. Holds pointers to none of its arguments.
template <size_t N>
class MergedDims {
 public:
  MergedDims(std::span<const int64_t> shape,
             const std::array<const int64_t*, N>& strides) noexcept {
    for (size_t d = 0; d < shape.size(); ++d) numel_ *= shape[d];
    if (numel_ == 0) return;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1) continue;
      bool merge = ndim_ > 0;
      for (size_t k = 0; k < N && merge; ++k) {
        merge = strides_[k][ndim_ - 1] == strides[k][d] * shape[d];
      }
      if (merge) {
        shape_[ndim_ - 1] *= shape[d];
        for (size_t k = 0; k < N; ++k) strides_[k][ndim_ - 1] = strides[k][d];
      } else {
        shape_[ndim_] = shape[d];
        for (size_t k = 0; k < N; ++k) strides_[k][ndim_] = strides[k][d];
        ++ndim_;
      }
    }
  }

  int ndim() const noexcept { return ndim_; }
  int64_t numel() const noexcept { return numel_; }
  // ndim() values each.
  const int64_t* shape() const noexcept { return shape_; }
  const int64_t* strides(size_t k) const noexcept { return strides_[k]; }

 private:
  int ndim_ = 0;
  int64_t numel_ = 1;
  int64_t shape_[SY_MAX_RANK] = {};
  int64_t strides_[N][SY_MAX_RANK] = {};
};

// ---- Strided walker ------------------------------------------------------

// Visits every index of `shape` for N operands that share it, each with its
// own strides (in elements; any value, including 0 for broadcast dims and
// negative). The walk is split into innermost runs: for each run,
//   body(offsets, count, steps)
// is called, where element i of the run lives at offsets[k] + i * steps[k]
// for operand k (offsets and steps in elements, from DataPtr). Dimensions of
// size 1 are dropped and neighbours that are dense for every operand are
// merged first, so when all operands are contiguous (or share one dense
// layout) the whole tensor is a single run with steps of 1: the body's
// unit-stride branch is the fast path. Runs come in row-major order of the
// merged dimensions.
//
// Rank 0 gives one run of count 1 (steps 0); a zero in the shape gives no
// runs. Returns false, calling nothing, when shape.size() > SY_MAX_RANK.
// Each strides[k] must point at shape.size() values.
template <size_t N, class Body>
bool ForEachStridedRun(std::span<const int64_t> shape,
                       const std::array<const int64_t*, N>& strides,
                       Body&& body) {
  if (shape.size() > SY_MAX_RANK) return false;
  const MergedDims<N> merged(shape, strides);
  if (merged.numel() == 0) return true;
  const int nd = merged.ndim();
  const int64_t* const dims = merged.shape();
  std::array<int64_t, N> offsets{};
  std::array<int64_t, N> steps{};
  if (nd == 0) {
    body(std::as_const(offsets), int64_t{1}, std::as_const(steps));
    return true;
  }
  const int64_t count = dims[nd - 1];
  for (size_t k = 0; k < N; ++k) steps[k] = merged.strides(k)[nd - 1];
  int64_t index[SY_MAX_RANK] = {};
  while (true) {
    body(std::as_const(offsets), count, std::as_const(steps));
    int d = nd - 2;
    for (; d >= 0; --d) {
      if (++index[d] < dims[d]) {
        for (size_t k = 0; k < N; ++k) offsets[k] += merged.strides(k)[d];
        break;
      }
      index[d] = 0;
      for (size_t k = 0; k < N; ++k) offsets[k] -= merged.strides(k)[d] * (dims[d] - 1);
    }
    if (d < 0) return true;
  }
}

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_VIEWS_HPP_
