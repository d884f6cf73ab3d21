#include "dispatcher/ops/shape_util.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_context.h"

namespace sy::core {
namespace {

// Broadcasts `b` into the running shape acc[0..rank). Returns 0, or the
// position counted from the end (1 = last dim) where the two disagree, in
// which case acc is left unchanged.
int BroadcastStep(int64_t (&acc)[SY_MAX_RANK], int& rank,
                  absl::Span<const int64_t> b) {
  const int rb = static_cast<int>(b.size());
  const int r = rank > rb ? rank : rb;
  int64_t result[SY_MAX_RANK];
  for (int i = 1; i <= r; ++i) {
    const int64_t x = i <= rank ? acc[rank - i] : 1;
    const int64_t y = i <= rb ? b[rb - i] : 1;
    if (x != y && x != 1 && y != 1) return i;
    result[r - i] = x == 1 ? y : x;
  }
  for (int i = 0; i < r; ++i) acc[i] = result[i];
  rank = r;
  return 0;
}

// The size of `shape` at position `from_end` counted from the end, where a
// missing dim counts as 1.
int64_t SizeFromEnd(absl::Span<const int64_t> shape, int from_end) {
  const int n = static_cast<int>(shape.size());
  return from_end <= n ? shape[n - from_end] : 1;
}

std::string ValidRange(int64_t rank) {
  return absl::StrCat("[", -rank, ", ", rank - 1, "]");
}

std::string ElementPrefix(const ShapeContext& ctx, int k, int i) {
  return ctx.schema().args[ctx.schema().tensor_args[k]].kind ==
                 ArgKind::kTensorList
             ? absl::StrCat("element ", i, " ")
             : std::string();
}

}  // namespace

sy_tensor_meta_t MakeMeta(sy_dtype_t dtype, absl::Span<const int64_t> shape) {
  sy_tensor_meta_t meta{};
  meta.dtype = dtype;
  meta.ndim = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size() && i < SY_MAX_RANK; ++i) {
    meta.shape[i] = shape[i];
  }
  return meta;
}

std::string FormatShape(absl::Span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

std::optional<int64_t> NumElements(absl::Span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

bool ExtentFits(absl::Span<const int64_t> shape) {
  int64_t extent = 1;
  for (int64_t d : shape) {
    const int64_t positive = std::max<int64_t>(d, 1);
    if (extent > kMaxExtent / positive) return false;
    extent *= positive;
  }
  return true;
}

absl::StatusOr<int> NormalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dim ", dim, " is out of range for rank ", rank,
        rank == 0 ? "; a scalar has no dims"
                  : absl::StrCat("; expected a dim in ", ValidRange(rank))));
  }
  return static_cast<int>(dim < 0 ? dim + rank : dim);
}

int FindBroadcastConflict(absl::Span<const int64_t> a,
                          absl::Span<const int64_t> b) {
  const int r = static_cast<int>(a.size() > b.size() ? a.size() : b.size());
  for (int i = 1; i <= r; ++i) {
    const int64_t x = SizeFromEnd(a, i);
    const int64_t y = SizeFromEnd(b, i);
    if (x != y && x != 1 && y != 1) return i;
  }
  return 0;
}

absl::Status BroadcastShapes(absl::Span<const int64_t> a,
                             absl::Span<const int64_t> b,
                             sy_tensor_meta_t& out) {
  if (a.size() > SY_MAX_RANK || b.size() > SY_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot broadcast shapes of rank ", a.size(), " and ", b.size(),
        "; tensors have at most ", SY_MAX_RANK, " dims"));
  }
  int64_t acc[SY_MAX_RANK];
  int rank = static_cast<int>(a.size());
  for (int i = 0; i < rank; ++i) acc[i] = a[i];
  if (const int at = BroadcastStep(acc, rank, b); at != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shapes ", FormatShape(a), " and ", FormatShape(b),
        " do not broadcast: at dim ", -at,
        " (counting from the end) the sizes are ", SizeFromEnd(a, at), " and ",
        SizeFromEnd(b, at), "; broadcast sizes must be equal or 1"));
  }
  out.ndim = rank;
  for (int i = 0; i < rank; ++i) out.shape[i] = acc[i];
  return absl::OkStatus();
}

absl::StatusOr<int> NormalizeDimAttr(const ShapeContext& ctx, int j, int k,
                                     bool wrap_scalar) {
  const int64_t dim = ctx.int_attr(j);
  const int64_t rank = ctx.tensor(k).ndim;
  if (rank == 0 && wrap_scalar && (dim == 0 || dim == -1)) return 0;
  if (rank == 0 && !wrap_scalar) {
    return ctx.AttrError(
        j, absl::StrCat("is ", dim, ", but '", AsAbsl(ctx.tensor_name(k)),
                        "' is a scalar (rank 0) and has no "
                        "dims"));
  }
  const int64_t effective = rank == 0 ? 1 : rank;
  if (dim < -effective || dim >= effective) {
    return ctx.AttrError(
        j, absl::StrCat("is ", dim, ", out of range for '",
                        AsAbsl(ctx.tensor_name(k)), "' of rank ", rank,
                        "; expected a dim in ", ValidRange(effective)));
  }
  return static_cast<int>(dim < 0 ? dim + effective : dim);
}

absl::StatusOr<uint32_t> NormalizeDimListAttr(const ShapeContext& ctx, int j,
                                              int k, bool wrap_scalar,
                                              int* order) {
  const absl::Span<const int64_t> dims = ctx.ints_attr(j);
  const int64_t rank = ctx.tensor(k).ndim;
  const int64_t effective = rank == 0 && wrap_scalar ? 1 : rank;
  uint32_t mask = 0;
  int64_t first_spelling[SY_MAX_RANK] = {};
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t dim = dims[i];
    if (dim < -effective || dim >= effective) {
      return ctx.AttrError(
          j, absl::StrCat("has ", dim, " at index ", i, ", out of range for '",
                          AsAbsl(ctx.tensor_name(k)), "' of rank ", rank,
                          effective == 0
                              ? absl::StrCat("; '", AsAbsl(ctx.tensor_name(k)),
                                             "' is a scalar and has no dims")
                              : absl::StrCat("; expected dims in ",
                                             ValidRange(effective))));
    }
    const int d = static_cast<int>(dim < 0 ? dim + effective : dim);
    if (mask & (1u << d)) {
      return ctx.AttrError(
          j, absl::StrCat("lists dim ", d, " twice (as ", first_spelling[d],
                          " and as ", dim, " at index ", i,
                          "); list each dim once"));
    }
    mask |= 1u << d;
    first_spelling[d] = dim;
    if (order != nullptr) order[i] = d;
  }
  return mask;
}

absl::Status BroadcastTensorArgs(const ShapeContext& ctx,
                                 absl::Span<const int> ks,
                                 sy_tensor_meta_t& out) {
  int64_t acc[SY_MAX_RANK] = {};
  int rank = 0;
  for (size_t i = 0; i < ks.size(); ++i) {
    const absl::Span<const int64_t> shape = ShapeOf(ctx.tensor(ks[i]));
    const int at = BroadcastStep(acc, rank, shape);
    if (at == 0) continue;
    // The running shape's size there came from some earlier argument; name
    // the first one that conflicts, since that is what the user wrote.
    const int64_t size = SizeFromEnd(shape, at);
    for (size_t p = 0; p < i; ++p) {
      const absl::Span<const int64_t> earlier = ShapeOf(ctx.tensor(ks[p]));
      const int64_t other = SizeFromEnd(earlier, at);
      if (other == 1 || other == size) continue;
      return ctx.TensorError(
          ks[i],
          absl::StrCat("has shape ", FormatShape(shape),
                       ", which does not broadcast with shape ",
                       FormatShape(earlier), " of '",
                       AsAbsl(ctx.tensor_name(ks[p])), "': at dim ", -at,
                       " (counting from the end) the sizes are ", size, " and ",
                       other, "; broadcast sizes must be equal or 1"));
    }
    // Unreachable: a size other than 1 in the running shape came from one
    // of the earlier arguments.
    return ctx.TensorError(ks[i], absl::StrCat("has shape ", FormatShape(shape),
                                               ", which does not broadcast"));
  }
  out.ndim = rank;
  for (int i = 0; i < rank; ++i) out.shape[i] = acc[i];
  return absl::OkStatus();
}

absl::Status RequireFloating(const ShapeContext& ctx, int k) {
  for (int i = 0; i < ctx.num_tensors(k); ++i) {
    const sy_dtype_t dtype = ctx.tensor(k, i).dtype;
    if (IsFloatingPoint(dtype)) continue;
    return ctx.TensorError(
        k, absl::StrCat(ElementPrefix(ctx, k, i), "has dtype ",
                        AsAbsl(DTypeName(dtype)), ", but ",
                        ctx.schema().BaseName(),
                        " needs a floating dtype (f32, f64, f16 or bf16); "
                        "cast it first, e.g. cast(",
                        AsAbsl(ctx.tensor_name(k)), ", f32)"));
  }
  return absl::OkStatus();
}

absl::Status RequireNotBool(const ShapeContext& ctx, int k) {
  for (int i = 0; i < ctx.num_tensors(k); ++i) {
    if (ctx.tensor(k, i).dtype != SY_DTYPE_BOOL) continue;
    return ctx.TensorError(
        k, absl::StrCat(ElementPrefix(ctx, k, i), "has dtype bool, which ",
                        ctx.schema().BaseName(),
                        " does not accept; cast it to a numeric dtype first, "
                        "e.g. cast(",
                        AsAbsl(ctx.tensor_name(k)), ", i32)"));
  }
  return absl::OkStatus();
}

absl::Status RequireSameDType(const ShapeContext& ctx, int k, int other) {
  const sy_dtype_t a = ctx.tensor(k).dtype;
  const sy_dtype_t b = ctx.tensor(other).dtype;
  if (a == b) return absl::OkStatus();
  return ctx.TensorError(
      k, absl::StrCat("has dtype ", AsAbsl(DTypeName(a)), " but '",
                      AsAbsl(ctx.tensor_name(other)), "' has ",
                      AsAbsl(DTypeName(b)), "; ", ctx.schema().BaseName(),
                      " needs equal dtypes, so cast one of them"));
}

absl::Status RequireRank(const ShapeContext& ctx, int k, int rank,
                         std::string_view layout) {
  const sy_tensor_meta_t& t = ctx.tensor(k);
  if (t.ndim == rank) return absl::OkStatus();
  return ctx.TensorError(
      k, absl::StrCat("has shape ", FormatShape(ShapeOf(t)), " (rank ", t.ndim,
                      "), but ", ctx.schema().BaseName(), " needs rank ", rank,
                      ": ", AsAbsl(layout)));
}

absl::Status RequireMinRank(const ShapeContext& ctx, int k, int min_rank) {
  const sy_tensor_meta_t& t = ctx.tensor(k);
  if (t.ndim >= min_rank) return absl::OkStatus();
  return ctx.TensorError(
      k, absl::StrCat("has shape ", FormatShape(ShapeOf(t)), " (rank ", t.ndim,
                      "), but ", ctx.schema().BaseName(), " needs at least ",
                      min_rank, min_rank == 1 ? " dim" : " dims"));
}

absl::Status CheckResultRank(const ShapeContext& ctx, int64_t rank) {
  if (rank <= SY_MAX_RANK) return absl::OkStatus();
  return ctx.OpError(absl::StrCat("the result would have rank ", rank,
                                  ", but tensors have at most ", SY_MAX_RANK,
                                  " dims (SY_MAX_RANK)"));
}

absl::Status CheckInputMetas(const ShapeContext& ctx) {
  const int num_args = static_cast<int>(ctx.schema().tensor_args.size());
  for (int k = 0; k < num_args; ++k) {
    for (int i = 0; i < ctx.num_tensors(k); ++i) {
      const sy_tensor_meta_t& t = ctx.tensor(k, i);
      if (!IsValidDType(t.dtype)) {
        return ctx.TensorError(
            k, absl::StrCat(ElementPrefix(ctx, k, i), "has an invalid dtype (code ", t.dtype,
                            "); use one of f32 f64 f16 bf16 i32 i64 i8 u8 "
                            "bool"));
      }
      if (t.ndim < 0 || t.ndim > SY_MAX_RANK) {
        return ctx.TensorError(
            k, absl::StrCat(ElementPrefix(ctx, k, i), "has rank ", t.ndim,
                            "; tensors have 0 to ", SY_MAX_RANK, " dims"));
      }
      for (int d = 0; d < t.ndim; ++d) {
        if (t.shape[d] < 0) {
          return ctx.TensorError(
              k, absl::StrCat(ElementPrefix(ctx, k, i), "has shape ", FormatShape(ShapeOf(t)),
                              " with a negative size at dim ", d,
                              "; sizes must be >= 0"));
        }
      }
      if (!ExtentFits(ShapeOf(t))) {
        return ctx.TensorError(
            k, absl::StrCat(ElementPrefix(ctx, k, i), "has shape ", FormatShape(ShapeOf(t)),
                            ", too large to address (the product of its "
                            "nonzero sizes exceeds 2^56)"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckOutputMetas(const ShapeContext& ctx,
                              absl::Span<const sy_tensor_meta_t> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    const sy_tensor_meta_t& t = outputs[i];
    bool well_formed =
        IsValidDType(t.dtype) && t.ndim >= 0 && t.ndim <= SY_MAX_RANK;
    for (int d = 0; well_formed && d < t.ndim; ++d) {
      well_formed = t.shape[d] >= 0;
    }
    if (!well_formed) {
      return absl::InternalError(absl::StrCat(
          ctx.schema().FullName(),
          ": the shape function produced a malformed "
          "result ",
          i, " (dtype code ", t.dtype, ", rank ", t.ndim,
          "); this is a bug in the op's shape function, please report it"));
    }
    const std::optional<int64_t> n = NumElements(ShapeOf(t));
    int64_t bytes = 0;
    if (!n.has_value() ||
        __builtin_mul_overflow(*n, static_cast<int64_t>(DTypeSize(t.dtype)),
                               &bytes)) {
      return ctx.OpError(
          absl::StrCat("the result would have shape ", FormatShape(ShapeOf(t)),
                       ", more bytes than int64 can count; use smaller sizes"));
    }
    if (!ExtentFits(ShapeOf(t))) {
      return ctx.OpError(absl::StrCat(
          "the result would have shape ", FormatShape(ShapeOf(t)),
          ", too large to address (the product of its nonzero sizes "
          "exceeds 2^56); use smaller sizes"));
    }
  }
  return absl::OkStatus();
}

}  // namespace sy::core
