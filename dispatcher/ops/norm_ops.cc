// Shape functions of the normalizations: softmax, log_softmax, layer_norm
// and rms_norm. All keep x's shape and dtype and need floating x.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "dispatcher/ops/core_op_families.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"

namespace sy::core::op_set {
namespace {

constexpr int kX = 0;

absl::Status RequireEps(const ShapeContext& ctx, int j) {
  const double eps = ctx.float_attr(j);
  if (std::isfinite(eps) && eps >= 0) return absl::OkStatus();
  return ctx.AttrError(j, absl::StrCat("is ", eps,
                                       "; it must be a finite number >= 0, "
                                       "such as 1e-05"));
}

absl::Status SoftmaxShape(const ShapeContext& ctx,
                          absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kDim = 0;
  if (absl::Status s = RequireFloating(ctx, kX); !s.ok()) return s;
  absl::StatusOr<int> dim =
      NormalizeDimAttr(ctx, kDim, kX, /*wrap_scalar=*/true);
  if (!dim.ok()) return dim.status();
  outputs[0] = ctx.tensor(kX);
  return absl::OkStatus();
}

absl::Status LayerNormShape(const ShapeContext& ctx,
                            absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kWeight = 1, kBias = 2;
  constexpr int kNormalizedShape = 0, kEps = 1;
  if (absl::Status s = RequireFloating(ctx, kX); !s.ok()) return s;
  if (absl::Status s = RequireMinRank(ctx, kX, 1); !s.ok()) return s;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const absl::Span<const int64_t> x_shape = ShapeOf(x);
  const absl::Span<const int64_t> normalized = ctx.ints_attr(kNormalizedShape);
  const std::string x_text =
      absl::StrCat("'x' (shape ", FormatShape(x_shape), ")");
  if (normalized.empty()) {
    return ctx.AttrError(
        kNormalizedShape,
        absl::StrCat("is [], but it must list the trailing dims of ", x_text,
                     " to normalize over, e.g. ",
                     FormatShape(x_shape.last(1))));
  }
  if (normalized.size() > x_shape.size()) {
    return ctx.AttrError(
        kNormalizedShape,
        absl::StrCat("is ", FormatShape(normalized), ", more dims than ",
                     x_text, " has; it must equal the trailing dims of 'x'"));
  }
  const absl::Span<const int64_t> trailing = x_shape.last(normalized.size());
  if (trailing != normalized) {
    return ctx.AttrError(
        kNormalizedShape,
        absl::StrCat("is ", FormatShape(normalized), ", but the last ",
                     normalized.size(), " dims of ", x_text, " are ",
                     FormatShape(trailing), "; they must be equal"));
  }
  for (int k : {kWeight, kBias}) {
    if (!ctx.has_tensor(k)) continue;
    if (absl::Status s = RequireFloating(ctx, k); !s.ok()) return s;
    const absl::Span<const int64_t> shape = ShapeOf(ctx.tensor(k));
    if (shape != normalized) {
      return ctx.TensorError(
          k, absl::StrCat("has shape ", FormatShape(shape),
                          ", but it must equal normalized_shape ",
                          FormatShape(normalized)));
    }
  }
  if (absl::Status s = RequireEps(ctx, kEps); !s.ok()) return s;
  outputs[0] = x;
  return absl::OkStatus();
}

absl::Status RmsNormShape(const ShapeContext& ctx,
                          absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kWeight = 1;
  constexpr int kEps = 0;
  if (absl::Status s = RequireFloating(ctx, kX); !s.ok()) return s;
  if (absl::Status s = RequireMinRank(ctx, kX, 1); !s.ok()) return s;
  if (absl::Status s = RequireFloating(ctx, kWeight); !s.ok()) return s;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const sy_tensor_meta_t& weight = ctx.tensor(kWeight);
  const int64_t last = x.shape[x.ndim - 1];
  if (weight.ndim != 1 || weight.shape[0] != last) {
    return ctx.TensorError(
        kWeight, absl::StrCat("has shape ", FormatShape(ShapeOf(weight)),
                              ", but it must be [", last,
                              "]: one scale per element of the last dim of "
                              "'x' (shape ",
                              FormatShape(ShapeOf(x)), ")"));
  }
  if (absl::Status s = RequireEps(ctx, kEps); !s.ok()) return s;
  outputs[0] = x;
  return absl::OkStatus();
}

constexpr CoreOpDef kOps[] = {
    {"softmax(Tensor x, int dim=-1) -> Tensor", &Checked<SoftmaxShape>},
    {"log_softmax(Tensor x, int dim=-1) -> Tensor", &Checked<SoftmaxShape>},
    {"layer_norm(Tensor x, int[] normalized_shape, Tensor? weight=None, "
     "Tensor? bias=None, float eps=1e-05) -> Tensor",
     &Checked<LayerNormShape>},
    {"rms_norm(Tensor x, Tensor weight, float eps=1e-06) -> Tensor",
     &Checked<RmsNormShape>},
};

}  // namespace

absl::Span<const CoreOpDef> NormOps() { return kOps; }

}  // namespace sy::core::op_set
