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
//
// Note [Bucket signatures]: a bucket table is looked up by a 64-bit
// signature, not by the ShapeBucket itself, because a call pays for the
// lookup (docs/autotune.md: a tuned call costs <= 5 ns more than an untuned
// one). Each bucketed tensor packs into one word — layout class (2 bits),
// rank (4 bits), 7 bits per dimension's bucket byte: 62 bits, exact — and
// the words are mixed with the tensor count by a multiply-xor chain. A
// call computes it straight from its tensors (BucketSignatureOf) with a few
// instructions per tensor and no ShapeBucket; ShapeBucket::Signature() gives
// the same number for the bucket, which is how entries are filed. Two
// buckets share a signature with probability ~2^-64, and sharing an entry
// costs only speed: a verdict's kernel and a decline's next candidate both
// compute the right result for any call of the key (a kernel that would not
// take the call declines it at run time and resolution moves on).
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

  // Note [Bucket signatures].
  uint64_t Signature() const;
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
  // Unsigned: no real tensor overflows (its element count fits int64), but
  // a bucket is computed from whatever metas it is given, and wrapping is
  // defined (and the same in BucketSignatureOf).
  uint64_t expected = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    int k = d;
    if (swap_last && d >= ndim - 2) k = d == ndim - 1 ? ndim - 2 : ndim - 1;
    if (shape[k] != 1 && static_cast<uint64_t>(strides[k]) != expected) return false;
    expected *= static_cast<uint64_t>(shape[k]);
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

namespace bucket_internal {

// One tensor's word (Note [Bucket signatures]).
inline uint64_t TensorWord(LayoutClass layout, int ndim, const uint8_t* dims) {
  uint64_t word = static_cast<uint64_t>(layout) | (static_cast<uint64_t>(ndim) << 2);
  for (int d = 0; d < ndim; ++d) word |= static_cast<uint64_t>(dims[d]) << (6 + 7 * d);
  return word;
}

// Word t is multiplied by its own odd constant, so the products are
// independent (no chain of multiplies on the call path) and a word means
// something else in another position.
inline uint64_t Position(int t) {
  return 0x9e3779b97f4a7c15ull + 0x3c6ef372fe94f82aull * static_cast<uint64_t>(t);
}

inline uint64_t Finish(uint64_t h) {
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  return h ^ (h >> 29);
}

// BucketDim without a branch.
inline uint64_t Dim(int64_t d) {
  const uint64_t log2_ceil =
      d <= 1 ? 0 : 64 - __builtin_clzll(static_cast<uint64_t>(d - 1));
  return d <= 8 ? static_cast<uint64_t>(d) : 5 + log2_ceil;
}

}  // namespace bucket_internal

inline uint64_t ShapeBucket::Signature() const {
  uint64_t h = num_tensors;
  const int shown = num_tensors < kMaxBucketTensors ? num_tensors : kMaxBucketTensors;
  for (int t = 0; t < shown; ++t) {
    h ^= bucket_internal::TensorWord(layout(t), ranks[t], dims[t]) *
         bucket_internal::Position(t);
  }
  return bucket_internal::Finish(h);
}

// The signature of the bucket of a call's input tensors, without building
// the bucket: `metas[t]` holds tensor t's rank and shape (BoundCall::metas),
// `tensors[t]` its strides (strides(), as sy::core::Tensor). Equal to the
// Signature() of the ShapeBucket the same tensors make (AddToBucket).
template <class TensorPtr>
inline uint64_t BucketSignatureOf(const sy_tensor_meta_t* metas, const TensorPtr* tensors,
                                  size_t count) {
  uint64_t h = count < 255 ? count : 255;
  const size_t shown = count < kMaxBucketTensors ? count : kMaxBucketTensors;
  for (size_t t = 0; t < shown; ++t) {
    const int ndim = metas[t].ndim;
    const int64_t* shape = metas[t].shape;
    const int64_t* strides = tensors[t]->strides().data();
    uint64_t word = static_cast<uint64_t>(ndim) << 2;
    uint64_t expected = 1;  // unsigned, as IsDenseRowMajor
    bool dense = true;
    for (int d = ndim - 1; d >= 0; --d) {
      dense &= (shape[d] == 1) | (static_cast<uint64_t>(strides[d]) == expected);
      expected *= static_cast<uint64_t>(shape[d]);
      word |= bucket_internal::Dim(shape[d]) << (6 + 7 * d);
    }
    if (!dense) {  // transposed or strided: the rare case
      word |= static_cast<uint64_t>(ClassifyLayout(ndim, shape, strides));
    }
    h ^= word * bucket_internal::Position(static_cast<int>(t));
  }
  return bucket_internal::Finish(h);
}

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_SHAPE_BUCKET_H_
