// Shape functions of the layout ops. reshape, permute, transpose, slice and
// expand are views: they compute only the result's shape, and the core
// derives strides (or, for a reshape no view can express, makes a copy).
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/core_op_families.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"

namespace sy::core::op_set {
namespace {

constexpr int kX = 0;

std::string Described(const ShapeContext& ctx, int k) {
  const sy_tensor_meta_t& t = ctx.tensor(k);
  return absl::StrCat("'", AsAbsl(ctx.tensor_name(k)), "' (shape ",
                      FormatShape(ShapeOf(t)), ")");
}

absl::Status ReshapeShape(const ShapeContext& ctx,
                          absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kShape = 0;
  const absl::Span<const int64_t> shape = ctx.ints_attr(kShape);
  if (absl::Status s = CheckResultRank(ctx, shape.size()); !s.ok()) return s;
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && inferred < 0) {
      inferred = static_cast<int>(i);
    } else if (shape[i] == -1) {
      return ctx.AttrError(kShape, absl::StrCat("is ", FormatShape(shape),
                                                "; at most one size may be "
                                                "-1 (inferred)"));
    } else if (shape[i] < 0) {
      return ctx.AttrError(kShape,
                           absl::StrCat("has ", shape[i], " at index ", i,
                                        "; sizes must be >= 0, or -1 "
                                        "for one inferred size"));
    } else if (__builtin_mul_overflow(known, shape[i], &known)) {
      return ctx.AttrError(kShape, absl::StrCat("is ", FormatShape(shape),
                                                ", more elements than int64 "
                                                "can count"));
    }
  }
  const int64_t count = *NumElements(ShapeOf(ctx.tensor(kX)));
  outputs[0] = MakeMeta(ctx.tensor(kX).dtype, shape);
  if (inferred >= 0) {
    if (known == 0 || count % known != 0) {
      return ctx.AttrError(
          kShape,
          absl::StrCat("is ", FormatShape(shape), ", but ", Described(ctx, kX),
                       " has ", count, " elements, ",
                       known == 0 ? "and the -1 cannot be inferred when the "
                                    "other sizes multiply to 0"
                                  : absl::StrCat("not a multiple of ", known,
                                                 ", the product of the other "
                                                 "sizes")));
    }
    outputs[0].shape[inferred] = count / known;
  } else if (known != count) {
    return ctx.AttrError(
        kShape, absl::StrCat("is ", FormatShape(shape), " (", known,
                             " elements), but ", Described(ctx, kX), " has ",
                             count, "; the element counts must match"));
  }
  return absl::OkStatus();
}

absl::Status PermuteShape(const ShapeContext& ctx,
                          absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kDims = 0;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const absl::Span<const int64_t> dims = ctx.ints_attr(kDims);
  if (dims.size() != static_cast<size_t>(x.ndim)) {
    return ctx.AttrError(
        kDims, absl::StrCat("is ", FormatShape(dims), " with ", dims.size(),
                            dims.size() == 1 ? " entry" : " entries", ", but ",
                            Described(ctx, kX), " has ", x.ndim,
                            x.ndim == 1 ? " dim" : " dims",
                            "; list each dim of 'x' exactly once"));
  }
  int order[SY_MAX_RANK];
  absl::StatusOr<uint32_t> mask =
      NormalizeDimListAttr(ctx, kDims, kX, /*wrap_scalar=*/false, order);
  if (!mask.ok()) return mask.status();
  outputs[0] = x;
  for (int i = 0; i < x.ndim; ++i) outputs[0].shape[i] = x.shape[order[i]];
  return absl::OkStatus();
}

absl::Status TransposeShape(const ShapeContext& ctx,
                            absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kDim0 = 0, kDim1 = 1;
  absl::StatusOr<int> dim0 = NormalizeDimAttr(ctx, kDim0, kX);
  if (!dim0.ok()) return dim0.status();
  absl::StatusOr<int> dim1 = NormalizeDimAttr(ctx, kDim1, kX);
  if (!dim1.ok()) return dim1.status();
  outputs[0] = ctx.tensor(kX);
  outputs[0].shape[*dim0] = ctx.tensor(kX).shape[*dim1];
  outputs[0].shape[*dim1] = ctx.tensor(kX).shape[*dim0];
  return absl::OkStatus();
}

// Python's rule: a negative bound counts from the end, then both clamp to
// [0, size]; an empty range gives size 0, never an error.
int64_t ClampBound(int64_t bound, int64_t size) {
  if (bound < 0) bound += size;
  return bound < 0 ? 0 : (bound > size ? size : bound);
}

absl::Status SliceShape(const ShapeContext& ctx,
                        absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kDim = 0, kStart = 1, kEnd = 2, kStep = 3;
  absl::StatusOr<int> dim = NormalizeDimAttr(ctx, kDim, kX);
  if (!dim.ok()) return dim.status();
  const int64_t step = ctx.int_attr(kStep);
  if (step < 1) {
    return ctx.AttrError(kStep, absl::StrCat("is ", step,
                                             "; it must be >= 1 (negative "
                                             "steps are not supported)"));
  }
  const int64_t size = ctx.tensor(kX).shape[*dim];
  const int64_t start = ClampBound(ctx.int_attr(kStart), size);
  const int64_t end =
      ctx.attr_is_none(kEnd) ? size : ClampBound(ctx.int_attr(kEnd), size);
  const int64_t length = end <= start ? 0 : (end - start - 1) / step + 1;
  outputs[0] = ctx.tensor(kX);
  outputs[0].shape[*dim] = length;
  return absl::OkStatus();
}

absl::Status ExpandShape(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kShape = 0;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const absl::Span<const int64_t> shape = ctx.ints_attr(kShape);
  if (absl::Status s = CheckResultRank(ctx, shape.size()); !s.ok()) return s;
  const int n = static_cast<int>(shape.size());
  if (n < x.ndim) {
    return ctx.AttrError(
        kShape, absl::StrCat("is ", FormatShape(shape), " with ", n,
                             n == 1 ? " dim" : " dims", ", fewer than ",
                             Described(ctx, kX),
                             "; expand can add leading dims but not drop "
                             "any"));
  }
  const int lead = n - x.ndim;
  sy_tensor_meta_t& out = outputs[0];
  out = MakeMeta(x.dtype, shape);
  for (int i = 0; i < n; ++i) {
    const int64_t want = shape[i];
    if (i < lead) {
      if (want < 0) {
        return ctx.AttrError(kShape,
                             absl::StrCat("has ", want, " at index ", i,
                                          ", a new leading dim, which needs an "
                                          "explicit size >= 0"));
      }
      continue;
    }
    const int64_t have = x.shape[i - lead];
    if (want == -1 || want == have) {
      out.shape[i] = have;
    } else if (want < -1) {
      return ctx.AttrError(kShape, absl::StrCat("has ", want, " at index ", i,
                                                "; sizes must be >= 0, or -1 "
                                                "to keep a dim"));
    } else if (have != 1) {
      return ctx.AttrError(
          kShape,
          absl::StrCat("has ", want, " at index ", i, ", but dim ", i - lead,
                       " of ", Described(ctx, kX), " has size ", have,
                       "; only size-1 dims stretch (use -1 or ", have,
                       " to keep it)"));
    }
  }
  return absl::OkStatus();
}

absl::Status ContiguousShape(const ShapeContext& ctx,
                             absl::Span<sy_tensor_meta_t> outputs) {
  outputs[0] = ctx.tensor(kX);
  return absl::OkStatus();
}

absl::Status ConcatShape(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kTensors = 0, kDim = 0;
  const int n = ctx.num_tensors(kTensors);
  if (n == 0) {
    return ctx.TensorError(kTensors,
                           "is an empty list; concat needs at least one "
                           "tensor");
  }
  const sy_tensor_meta_t& first = ctx.tensor(kTensors, 0);
  if (first.ndim == 0) {
    return ctx.TensorError(kTensors,
                           "element 0 is a scalar (shape []); concat needs "
                           "tensors with at least 1 dim");
  }
  absl::StatusOr<int> dim = NormalizeDimAttr(ctx, kDim, kTensors);
  if (!dim.ok()) return dim.status();
  const std::string first_text = FormatShape(ShapeOf(first));
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const sy_tensor_meta_t& t = ctx.tensor(kTensors, i);
    const std::string text = FormatShape(ShapeOf(t));
    if (t.dtype != first.dtype) {
      return ctx.TensorError(
          kTensors,
          absl::StrCat("element ", i, " has dtype ", AsAbsl(DTypeName(t.dtype)),
                       " but element 0 has ", AsAbsl(DTypeName(first.dtype)),
                       "; concat needs equal dtypes, so cast "
                       "first"));
    }
    bool same = t.ndim == first.ndim;
    for (int d = 0; same && d < t.ndim; ++d) {
      same = d == *dim || t.shape[d] == first.shape[d];
    }
    if (!same) {
      return ctx.TensorError(
          kTensors,
          absl::StrCat("element ", i, " has shape ", text,
                       " but element 0 has ", first_text,
                       "; all dims except dim ", *dim, " must be equal"));
    }
    if (__builtin_add_overflow(total, t.shape[*dim], &total)) {
      return ctx.TensorError(kTensors,
                             absl::StrCat("has more elements along dim ", *dim,
                                          " than int64 can count"));
    }
  }
  outputs[0] = first;
  outputs[0].shape[*dim] = total;
  return absl::OkStatus();
}

constexpr CoreOpDef View(const char* schema, CoreShapeFn fn) {
  return {schema, fn, OpKind::kView};
}

constexpr CoreOpDef kOps[] = {
    View("reshape(Tensor x, int[] shape) -> Tensor", &Checked<ReshapeShape>),
    View("permute(Tensor x, int[] dims) -> Tensor", &Checked<PermuteShape>),
    View("transpose(Tensor x, int dim0, int dim1) -> Tensor",
         &Checked<TransposeShape>),
    View("slice(Tensor x, int dim, int start=0, int? end=None, int step=1) "
         "-> Tensor",
         &Checked<SliceShape>),
    View("expand(Tensor x, int[] shape) -> Tensor", &Checked<ExpandShape>),
    {"contiguous(Tensor x) -> Tensor", &Checked<ContiguousShape>},
    {"concat(Tensor[] tensors, int dim=0) -> Tensor", &Checked<ConcatShape>},
};

}  // namespace

absl::Span<const CoreOpDef> LayoutOps() { return kOps; }

}  // namespace sy::core::op_set
