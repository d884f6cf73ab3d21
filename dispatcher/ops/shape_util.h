// Helpers for shape functions: shape text, element counts, dims, NumPy
// broadcasting, argument checks whose errors follow ShapeContext's format,
// and the sanity checks every core shape function runs on its metas.
//
// On success nothing here allocates: shapes live in sy_tensor_meta_t's fixed
// array, because the core calls shape functions on every op call. Strings
// are built only for errors.
#ifndef SWITCHYARD_DISPATCHER_OPS_SHAPE_UTIL_H_
#define SWITCHYARD_DISPATCHER_OPS_SHAPE_UTIL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dispatcher/ops/shape_context.h"
#include "switchyard/plugin.h"

namespace sy::core {

// ---- Plain shapes -----------------------------------------------------------

inline absl::Span<const int64_t> ShapeOf(const sy_tensor_meta_t& meta) {
  return {meta.shape, static_cast<size_t>(meta.ndim)};
}

// A meta with `dtype` and `shape`; unused dims are zero.
// Requires shape.size() <= SY_MAX_RANK.
sy_tensor_meta_t MakeMeta(sy_dtype_t dtype, absl::Span<const int64_t> shape);

// "[2, 3]"; "[]" for a scalar.
std::string FormatShape(absl::Span<const int64_t> shape);

// The product of the dims (1 for a scalar), or nullopt when it does not fit
// in int64. Requires every dim >= 0.
std::optional<int64_t> NumElements(absl::Span<const int64_t> shape);

// The largest extent a tensor may have (see ExtentFits): 2^56, so that any
// contiguous stride, times any dtype's size, stays far inside int64.
inline constexpr int64_t kMaxExtent = int64_t{1} << 56;

// Whether the product of max(dim, 1) over `shape` is at most kMaxExtent.
// The contiguous strides are made of that product, so it must stay bounded
// even when a 0 makes the element count 0: [0, 2^62, 49] has no element, but
// its strides would overflow. Requires every dim >= 0.
bool ExtentFits(absl::Span<const int64_t> shape);

// Maps a dim in [-rank, rank) to [0, rank), counting negative dims from the
// end. Otherwise InvalidArgument, e.g.
//   "dim 2 is out of range for rank 2; expected a dim in [-2, 1]".
absl::StatusOr<int> NormalizeDim(int64_t dim, int64_t rank);

// 0 when `a` and `b` broadcast; otherwise the first position, counted from
// the end (1 = the last dim), where their sizes differ and neither is 1.
// For callers that word their own message.
int FindBroadcastConflict(absl::Span<const int64_t> a,
                          absl::Span<const int64_t> b);

// NumPy broadcasting: shapes align at the right, a missing dim counts as 1,
// and a dim of 1 stretches to the other's size. Writes out.ndim and
// out.shape (not out.dtype); `a` and `b` may point into `out`. Both ranks
// must be <= SY_MAX_RANK. Otherwise InvalidArgument, e.g.
//   "shapes [2, 3] and [4] do not broadcast: at dim -1 (counting from the
//   end) the sizes are 3 and 4; broadcast sizes must be equal or 1".
absl::Status BroadcastShapes(absl::Span<const int64_t> a,
                             absl::Span<const int64_t> b,
                             sy_tensor_meta_t& out);

// ---- Within a shape function ------------------------------------------------
// `k` is a tensor argument index and `j` an attribute index, as in
// ShapeContext; errors come from its builders, so they name op and argument.

// Normalizes int attribute j as a dim of tensor argument k. With
// `wrap_scalar`, a rank-0 tensor accepts dims -1 and 0 (as PyTorch does for
// softmax and reductions) and the result is 0.
absl::StatusOr<int> NormalizeDimAttr(const ShapeContext& ctx, int j, int k,
                                     bool wrap_scalar = false);

// Normalizes every entry of int[] attribute j as a dim of tensor argument k;
// out of range or listed twice is an error. Returns the dims as a bit mask
// (bit d for dim d). When `order` is not null it receives the normalized
// dims in the written order; it needs room for SY_MAX_RANK entries.
absl::StatusOr<uint32_t> NormalizeDimListAttr(const ShapeContext& ctx, int j,
                                              int k, bool wrap_scalar,
                                              int* order = nullptr);

// Broadcasts the shapes of the present single-tensor arguments `ks` into
// out.ndim/out.shape. The error names the argument that does not fit, one
// earlier argument it conflicts with, both shapes and the dim.
absl::Status BroadcastTensorArgs(const ShapeContext& ctx,
                                 absl::Span<const int> ks,
                                 sy_tensor_meta_t& out);

// Dtype and rank requirements on (every tensor of) argument k, e.g.
//   "mean: argument 'x' has dtype i32, but mean needs a floating dtype (f32,
//   f64, f16 or bf16); cast it first, e.g. cast(x, f32)".
absl::Status RequireFloating(const ShapeContext& ctx, int k);
absl::Status RequireNotBool(const ShapeContext& ctx, int k);
// Argument k's dtype must equal argument `other`'s.
absl::Status RequireSameDType(const ShapeContext& ctx, int k, int other);
// `layout` describes the expected dims in the message, e.g. "[N, C, H, W]".
absl::Status RequireRank(const ShapeContext& ctx, int k, int rank,
                         std::string_view layout);
absl::Status RequireMinRank(const ShapeContext& ctx, int k, int min_rank);

// InvalidArgument when a result of rank `rank` cannot be represented:
//   "<op>: the result would have rank 9, but tensors have at most 8 dims
//   (SY_MAX_RANK)". Call it before writing the dims of such a result.
absl::Status CheckResultRank(const ShapeContext& ctx, int64_t rank);

// Every input meta has a valid dtype, a rank in [0, SY_MAX_RANK], no
// negative size and an element count that fits in int64. Core shape
// functions run this before anything else, so they may index shapes freely.
absl::Status CheckInputMetas(const ShapeContext& ctx);

// Every output has a valid dtype, a rank in range, no negative size
// (Internal errors: a broken shape function) and a byte size that fits in
// int64 (InvalidArgument: the caller asked for too large a tensor).
absl::Status CheckOutputMetas(const ShapeContext& ctx,
                              absl::Span<const sy_tensor_meta_t> outputs);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_OPS_SHAPE_UTIL_H_
