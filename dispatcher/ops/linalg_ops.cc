// Shape functions of matmul, linear and conv2d.
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

std::string ShapeText(const sy_tensor_meta_t& t) {
  return FormatShape(ShapeOf(t));
}

// NumPy matmul: a 1-D a is a row [1, k] and a 1-D b a column [k, 1], and
// the added dim is dropped from the result; dims before the last two are
// batch dims and broadcast.
absl::Status MatmulShape(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kA = 0, kB = 1;
  if (absl::Status s = RequireMinRank(ctx, kA, 1); !s.ok()) return s;
  if (absl::Status s = RequireMinRank(ctx, kB, 1); !s.ok()) return s;
  if (absl::Status s = RequireNotBool(ctx, kA); !s.ok()) return s;
  if (absl::Status s = RequireSameDType(ctx, kB, kA); !s.ok()) return s;
  const sy_tensor_meta_t& a = ctx.tensor(kA);
  const sy_tensor_meta_t& b = ctx.tensor(kB);
  const int64_t k_a = a.shape[a.ndim - 1];
  const int64_t k_b = b.ndim == 1 ? b.shape[0] : b.shape[b.ndim - 2];
  if (k_a != k_b) {
    return ctx.TensorError(
        kB, absl::StrCat("has shape ", ShapeText(b), ", but 'a' has shape ",
                         ShapeText(a), ": the last dim of 'a' (", k_a,
                         ") must equal the ",
                         b.ndim == 1 ? "only" : "second-to-last",
                         " dim of 'b' (", k_b, ")"));
  }
  const absl::Span<const int64_t> batch_a =
      ShapeOf(a).first(a.ndim > 2 ? a.ndim - 2 : 0);
  const absl::Span<const int64_t> batch_b =
      ShapeOf(b).first(b.ndim > 2 ? b.ndim - 2 : 0);
  if (const int at = FindBroadcastConflict(batch_a, batch_b); at != 0) {
    return ctx.TensorError(
        kB, absl::StrCat(
                "has shape ", ShapeText(b), ", whose batch dims ",
                FormatShape(batch_b), " do not broadcast with the batch dims ",
                FormatShape(batch_a), " of 'a' (shape ", ShapeText(a),
                "): at batch dim ", -at, " the sizes are ",
                batch_b[batch_b.size() - at], " and ",
                batch_a[batch_a.size() - at], "; they must be equal or 1"));
  }
  sy_tensor_meta_t& out = outputs[0];
  if (absl::Status s = BroadcastShapes(batch_a, batch_b, out); !s.ok()) {
    return s;
  }
  if (a.ndim > 1) out.shape[out.ndim++] = a.shape[a.ndim - 2];
  if (b.ndim > 1) out.shape[out.ndim++] = b.shape[b.ndim - 1];
  out.dtype = a.dtype;
  return absl::OkStatus();
}

absl::Status LinearShape(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kX = 0, kWeight = 1, kBias = 2;
  if (absl::Status s = RequireMinRank(ctx, kX, 1); !s.ok()) return s;
  if (absl::Status s =
          RequireRank(ctx, kWeight, 2, "[out_features, in_features]");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = RequireNotBool(ctx, kX); !s.ok()) return s;
  if (absl::Status s = RequireSameDType(ctx, kWeight, kX); !s.ok()) return s;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const sy_tensor_meta_t& weight = ctx.tensor(kWeight);
  const int64_t out_features = weight.shape[0];
  if (weight.shape[1] != x.shape[x.ndim - 1]) {
    return ctx.TensorError(
        kWeight,
        absl::StrCat("has shape ", ShapeText(weight),
                     " ([out_features, in_features]), but the last dim of "
                     "'x' (shape ",
                     ShapeText(x), ") is ", x.shape[x.ndim - 1],
                     "; in_features must equal it"));
  }
  if (ctx.has_tensor(kBias)) {
    if (absl::Status s = RequireSameDType(ctx, kBias, kX); !s.ok()) return s;
    const sy_tensor_meta_t& bias = ctx.tensor(kBias);
    if (bias.ndim != 1 || bias.shape[0] != out_features) {
      return ctx.TensorError(
          kBias, absl::StrCat("has shape ", ShapeText(bias),
                              ", but it must be [", out_features,
                              "]: one value per output feature (the first "
                              "dim of 'weight')"));
    }
  }
  outputs[0] = x;
  outputs[0].shape[x.ndim - 1] = out_features;
  return absl::OkStatus();
}

// One spatial dim of conv2d's result: floor((in + 2p - d(k-1) - 1) / s) + 1.
absl::StatusOr<int64_t> ConvOutputSize(const ShapeContext& ctx,
                                       const char* what, int64_t in,
                                       int64_t kernel, int64_t stride,
                                       int64_t padding, int64_t dilation) {
  int64_t span = 0, padded = 0;
  if (__builtin_mul_overflow(dilation, kernel - 1, &span) ||
      __builtin_add_overflow(span, 1, &span) ||
      __builtin_mul_overflow(padding, 2, &padded) ||
      __builtin_add_overflow(padded, in, &padded)) {
    return ctx.OpError(absl::StrCat("the ", what,
                                    " arithmetic overflows int64; use smaller "
                                    "padding or dilation"));
  }
  if (padded < span) {
    return ctx.OpError(absl::StrCat(
        "the output ", what, " would be 0: the input ", what, " ", in,
        " plus padding 2 * ", padding, " is smaller than the dilated kernel ",
        what, " ", span, " (dilation ", dilation, " * (", kernel,
        " - 1) + 1); pad more, or use a smaller kernel or dilation"));
  }
  return (padded - span) / stride + 1;
}

absl::Status Conv2dShape(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kX = 0, kWeight = 1, kBias = 2;
  constexpr int kStride = 0, kPadding = 1, kDilation = 2, kGroups = 3;
  if (absl::Status s = RequireRank(ctx, kX, 4, "[N, C, H, W]"); !s.ok()) {
    return s;
  }
  if (absl::Status s =
          RequireRank(ctx, kWeight, 4, "[C_out, C_in / groups, kH, kW]");
      !s.ok()) {
    return s;
  }
  // Floating only, as in PyTorch: integer convolutions are quantized ops
  // with scales and zero points, not this one.
  if (absl::Status s = RequireFloating(ctx, kX); !s.ok()) return s;
  if (absl::Status s = RequireSameDType(ctx, kWeight, kX); !s.ok()) return s;
  // Kernels index these lists as [height, width], so the lengths are exact.
  for (int j : {kStride, kPadding, kDilation}) {
    const absl::Span<const int64_t> v = ctx.ints_attr(j);
    const int64_t min = j == kPadding ? 0 : 1;
    if (v.size() != 2) {
      return ctx.AttrError(j, absl::StrCat("is ", FormatShape(v),
                                           "; it needs exactly 2 values: "
                                           "[height, width]"));
    }
    if (v[0] < min || v[1] < min) {
      return ctx.AttrError(j, absl::StrCat("is ", FormatShape(v),
                                           "; each value must be >= ", min));
    }
  }
  const int64_t groups = ctx.int_attr(kGroups);
  if (groups < 1) {
    return ctx.AttrError(kGroups,
                         absl::StrCat("is ", groups, "; it must be >= 1"));
  }
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  const sy_tensor_meta_t& w = ctx.tensor(kWeight);
  const int64_t channels = x.shape[1], out_channels = w.shape[0];
  if (channels % groups != 0) {
    return ctx.TensorError(
        kX, absl::StrCat("has ", channels, " channels (shape ", ShapeText(x),
                         "), which is not a multiple of groups=", groups,
                         "; pass a groups value that divides the channels"));
  }
  if (out_channels % groups != 0) {
    return ctx.TensorError(
        kWeight, absl::StrCat("has ", out_channels, " output channels (shape ",
                              ShapeText(w),
                              "), which is not a multiple of groups=", groups,
                              "; pass a groups value that divides the "
                              "output channels"));
  }
  if (w.shape[1] != channels / groups) {
    return ctx.TensorError(
        kWeight,
        absl::StrCat("has shape ", ShapeText(w), ", so it takes ", w.shape[1],
                     " input channels per group, but 'x' "
                     "(shape ",
                     ShapeText(x), ") has ", channels, " channels in ", groups,
                     groups == 1 ? " group" : " groups",
                     "; the second dim of 'weight' must be ",
                     channels / groups));
  }
  if (w.shape[2] < 1 || w.shape[3] < 1) {
    return ctx.TensorError(kWeight,
                           absl::StrCat("has shape ", ShapeText(w),
                                        ", an empty kernel; kernel sizes "
                                        "must be >= 1"));
  }
  if (ctx.has_tensor(kBias)) {
    if (absl::Status s = RequireSameDType(ctx, kBias, kX); !s.ok()) return s;
    const sy_tensor_meta_t& bias = ctx.tensor(kBias);
    if (bias.ndim != 1 || bias.shape[0] != out_channels) {
      return ctx.TensorError(
          kBias,
          absl::StrCat("has shape ", ShapeText(bias), ", but it must be [",
                       out_channels, "]: one value per output channel"));
    }
  }
  const absl::Span<const int64_t> stride = ctx.ints_attr(kStride);
  const absl::Span<const int64_t> padding = ctx.ints_attr(kPadding);
  const absl::Span<const int64_t> dilation = ctx.ints_attr(kDilation);
  absl::StatusOr<int64_t> height =
      ConvOutputSize(ctx, "height", x.shape[2], w.shape[2], stride[0],
                     padding[0], dilation[0]);
  if (!height.ok()) return height.status();
  absl::StatusOr<int64_t> width = ConvOutputSize(
      ctx, "width", x.shape[3], w.shape[3], stride[1], padding[1], dilation[1]);
  if (!width.ok()) return width.status();
  const int64_t shape[] = {x.shape[0], out_channels, *height, *width};
  outputs[0] = MakeMeta(x.dtype, shape);
  return absl::OkStatus();
}

constexpr CoreOpDef kOps[] = {
    {"matmul(Tensor a, Tensor b) -> Tensor", &Checked<MatmulShape>},
    {"linear(Tensor x, Tensor weight, Tensor? bias=None) -> Tensor",
     &Checked<LinearShape>},
    {"conv2d(Tensor x, Tensor weight, Tensor? bias=None, "
     "int[] stride=[1, 1], int[] padding=[0, 0], int[] dilation=[1, 1], "
     "int groups=1) -> Tensor",
     &Checked<Conv2dShape>, OpKind::kGeneral, OutputLayout::kChannelsLastLikeInputs},
};

}  // namespace

absl::Span<const CoreOpDef> LinalgOps() { return kOps; }

}  // namespace sy::core::op_set
