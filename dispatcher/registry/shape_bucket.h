// The shape bucket of a call: what the core remembers a kernel's decline
// and an autotuner's verdict by, within one dispatch key (op, device type,
// dtypes).
//
// Note [Shape buckets]: each dimension of the call's input tensors is kept
// exactly when it is at most 8 and rounded up to a power of two above, and
// each tensor adds its layout class: contiguous, transposed (a contiguous
// tensor with its last two dimensions swapped, as a GEMM operand often is)
// or otherwise strided. So [16] and [13] share a bucket, [3, 1000] and
// [3, 1024] too, while [7] and [8] do not.
// Only the first kMaxBucketTensors input tensors take part (a long Tensor[]
// argument adds its count, not its shapes). Two calls in one bucket are
// expected to be served best by the same kernel: a kernel that declines
// must decline on properties a bucket keeps (plugin.h, sy_kernel_fn).
#ifndef SWITCHYARD_DISPATCHER_REGISTRY_SHAPE_BUCKET_H_
#define SWITCHYARD_DISPATCHER_REGISTRY_SHAPE_BUCKET_H_

#include <cstdint>
#include <cstring>
#include <string>

#include "absl/hash/hash.h"
#include "switchyard/plugin.h"

namespace sy::core {

inline constexpr int kMaxBucketTensors = 6;

// The layout class of a tensor in a bucket (Note [Shape buckets]).
enum class LayoutClass : uint8_t { kContiguous, kTransposed, kStrided };

struct ShapeBucket {
  uint8_t num_tensors = 0;   // min(tensors in the call, 255)
  uint8_t contiguous = 0;    // bit t: tensor t is contiguous
  uint8_t transposed = 0;    // bit t: tensor t is transposed (LayoutClass)
  uint8_t ranks[kMaxBucketTensors] = {};
  // dims[t][d]: d <= 8 as is; above, 8 + ceil(log2(d)) - 3 (so 16 → 9).
  uint8_t dims[kMaxBucketTensors][SY_MAX_RANK] = {};

  friend bool operator==(const ShapeBucket& a, const ShapeBucket& b) {
    return std::memcmp(&a, &b, sizeof(ShapeBucket)) == 0;
  }
  template <typename H>
  friend H AbslHashValue(H h, const ShapeBucket& b) {
    return H::combine_contiguous(std::move(h),
                                 reinterpret_cast<const unsigned char*>(&b),
                                 sizeof(ShapeBucket));
  }

  LayoutClass layout(int t) const {
    if ((contiguous >> t) & 1) return LayoutClass::kContiguous;
    return (transposed >> t) & 1 ? LayoutClass::kTransposed : LayoutClass::kStrided;
  }

  // "[16, 1024]c [16, 1024]t" (c: contiguous, t: transposed, s: strided),
  // for messages.
  std::string ToString() const;
};

// The byte a dimension of size `d` (>= 0) becomes in a bucket.
inline uint8_t BucketDim(int64_t d) {
  if (d <= 8) return static_cast<uint8_t>(d);
  const int log2_ceil = 64 - __builtin_clzll(static_cast<uint64_t>(d - 1));
  return static_cast<uint8_t>(8 + log2_ceil - 3);
}

// Whether strides (in elements) lay `shape` out densely in row-major
// order; dimensions of size 1 may have any stride (as Tensor::is_contiguous).
// `swap_last` checks the layout with the last two dimensions swapped.
inline bool IsDenseRowMajor(int ndim, const int64_t* shape,
                            const int64_t* strides, bool swap_last) {
  int64_t expected = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    int k = d;
    if (swap_last && d >= ndim - 2) k = d == ndim - 1 ? ndim - 2 : ndim - 1;
    if (shape[k] != 1 && strides[k] != expected) return false;
    expected *= shape[k];
  }
  return true;
}

inline LayoutClass ClassifyLayout(int ndim, const int64_t* shape,
                                  const int64_t* strides) {
  if (IsDenseRowMajor(ndim, shape, strides, false)) return LayoutClass::kContiguous;
  if (ndim >= 2 && IsDenseRowMajor(ndim, shape, strides, true)) {
    return LayoutClass::kTransposed;
  }
  return LayoutClass::kStrided;
}

// Adds tensor `index` of a call: its shape and layout class.
inline void AddToBucket(ShapeBucket& bucket, int index, int ndim,
                        const int64_t* shape, const int64_t* strides) {
  if (bucket.num_tensors < 255) ++bucket.num_tensors;
  if (index >= kMaxBucketTensors) return;
  bucket.ranks[index] = static_cast<uint8_t>(ndim);
  const LayoutClass layout = ClassifyLayout(ndim, shape, strides);
  if (layout == LayoutClass::kContiguous) {
    bucket.contiguous |= static_cast<uint8_t>(1u << index);
  } else if (layout == LayoutClass::kTransposed) {
    bucket.transposed |= static_cast<uint8_t>(1u << index);
  }
  for (int d = 0; d < ndim; ++d) bucket.dims[index][d] = BucketDim(shape[d]);
}

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_SHAPE_BUCKET_H_
