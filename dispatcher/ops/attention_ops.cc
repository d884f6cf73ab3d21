// Shape functions of embedding and scaled_dot_product_attention.
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/core_op_families.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"

namespace sy::core::op_set {
namespace {

std::string ShapeText(const sy_tensor_meta_t& t) {
  return FormatShape(ShapeOf(t));
}

absl::Status EmbeddingShape(const ShapeContext& ctx,
                            absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kWeight = 0, kIndices = 1;
  if (absl::Status s =
          RequireRank(ctx, kWeight, 2, "[num_embeddings, embedding_dim]");
      !s.ok()) {
    return s;
  }
  const sy_tensor_meta_t& weight = ctx.tensor(kWeight);
  const sy_tensor_meta_t& indices = ctx.tensor(kIndices);
  if (indices.dtype != SY_DTYPE_I32 && indices.dtype != SY_DTYPE_I64) {
    return ctx.TensorError(
        kIndices, absl::StrCat("has dtype ", AsAbsl(DTypeName(indices.dtype)),
                               ", but it must be i32 or i64; cast it, e.g. "
                               "cast(indices, i64)"));
  }
  if (absl::Status s = CheckResultRank(ctx, indices.ndim + 1); !s.ok()) {
    return s;
  }
  outputs[0] = indices;
  outputs[0].dtype = weight.dtype;
  outputs[0].shape[outputs[0].ndim++] = weight.shape[1];
  return absl::OkStatus();
}

// The dims before the last two.
absl::Span<const int64_t> Batch(const sy_tensor_meta_t& t) {
  return ShapeOf(t).first(t.ndim - 2);
}

// q [..., Lq, E], k [..., Lk, E], v [..., Lk, Ev] -> [..., Lq, Ev], with the
// batch dims broadcast as the decomposition's matmuls would broadcast them.
absl::Status SdpaShape(const ShapeContext& ctx,
                       absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kQ = 0, kK = 1, kV = 2, kMask = 3;
  constexpr int kCausal = 0, kScale = 1;
  for (int k : {kQ, kK, kV}) {
    if (absl::Status s = RequireMinRank(ctx, k, 2); !s.ok()) return s;
  }
  if (absl::Status s = RequireFloating(ctx, kQ); !s.ok()) return s;
  if (absl::Status s = RequireSameDType(ctx, kK, kQ); !s.ok()) return s;
  if (absl::Status s = RequireSameDType(ctx, kV, kQ); !s.ok()) return s;
  const sy_tensor_meta_t& q = ctx.tensor(kQ);
  const sy_tensor_meta_t& k = ctx.tensor(kK);
  const sy_tensor_meta_t& v = ctx.tensor(kV);
  const int64_t lq = q.shape[q.ndim - 2], lk = k.shape[k.ndim - 2];
  if (k.shape[k.ndim - 1] != q.shape[q.ndim - 1]) {
    return ctx.TensorError(
        kK, absl::StrCat("has shape ", ShapeText(k),
                         ", but its last dim (E) "
                         "must equal the last dim of 'q' (shape ",
                         ShapeText(q), ")"));
  }
  if (v.shape[v.ndim - 2] != lk) {
    return ctx.TensorError(
        kV, absl::StrCat("has shape ", ShapeText(v),
                         ", but its second-to-last dim (Lk) must equal that "
                         "of 'k' (shape ",
                         ShapeText(k), ")"));
  }
  const int pairs[][2] = {{kK, kQ}, {kV, kQ}, {kV, kK}};
  for (const auto& [a, b] : pairs) {
    const sy_tensor_meta_t& ta = ctx.tensor(a);
    const sy_tensor_meta_t& tb = ctx.tensor(b);
    if (FindBroadcastConflict(Batch(ta), Batch(tb)) == 0) continue;
    return ctx.TensorError(
        a, absl::StrCat("has shape ", ShapeText(ta), ", whose batch dims ",
                        FormatShape(Batch(ta)),
                        " do not broadcast with the batch dims ",
                        FormatShape(Batch(tb)), " of '",
                        AsAbsl(ctx.tensor_name(b)), "' (shape ", ShapeText(tb),
                        "); each batch dim must be equal or 1"));
  }
  sy_tensor_meta_t& out = outputs[0];
  if (absl::Status s = BroadcastShapes(Batch(q), Batch(k), out); !s.ok()) {
    return s;
  }
  if (absl::Status s = BroadcastShapes(ShapeOf(out), Batch(v), out); !s.ok()) {
    return s;
  }
  const int batch_rank = out.ndim;
  if (ctx.has_tensor(kMask)) {
    if (ctx.bool_attr(kCausal)) {
      return ctx.OpError(
          "got both 'mask' and causal=True; pass one of them (causal=True "
          "applies the lower-triangular mask by itself)");
    }
    const sy_tensor_meta_t& mask = ctx.tensor(kMask);
    if (mask.dtype != SY_DTYPE_BOOL && mask.dtype != q.dtype) {
      return ctx.TensorError(
          kMask,
          absl::StrCat("has dtype ", AsAbsl(DTypeName(mask.dtype)),
                       ", but it must be bool (True = keep) or the "
                       "dtype of 'q', ",
                       AsAbsl(DTypeName(q.dtype)), " (added to the scores)"));
    }
    // The mask applies to the scores [..., Lq, Lk] and may not grow them.
    sy_tensor_meta_t scores = out;
    scores.shape[scores.ndim++] = lq;
    scores.shape[scores.ndim++] = lk;
    bool fits = mask.ndim <= scores.ndim;
    for (int i = 1; fits && i <= mask.ndim; ++i) {
      const int64_t m = mask.shape[mask.ndim - i];
      fits = m == 1 || m == scores.shape[scores.ndim - i];
    }
    if (!fits) {
      return ctx.TensorError(
          kMask, absl::StrCat("has shape ", ShapeText(mask),
                              ", which does not broadcast to the attention "
                              "scores' shape ",
                              ShapeText(scores),
                              " ([..., Lq, Lk]); each of its dims must equal "
                              "the scores' or be 1"));
    }
  }
  if (!ctx.attr_is_none(kScale) && !std::isfinite(ctx.float_attr(kScale))) {
    return ctx.AttrError(kScale,
                         absl::StrCat("is ", ctx.float_attr(kScale),
                                      "; it must be a finite number, or None "
                                      "for 1/sqrt(E)"));
  }
  out.ndim = batch_rank;
  out.shape[out.ndim++] = lq;
  out.shape[out.ndim++] = v.shape[v.ndim - 1];
  out.dtype = q.dtype;
  return absl::OkStatus();
}

constexpr CoreOpDef kOps[] = {
    {"embedding(Tensor weight, Tensor indices) -> Tensor",
     &Checked<EmbeddingShape>},
    {"scaled_dot_product_attention(Tensor q, Tensor k, Tensor v, "
     "Tensor? mask=None, bool causal=False, float? scale=None) -> Tensor",
     &Checked<SdpaShape>, OpKind::kGeneral, OutputLayout::kHeadsInner},
};

}  // namespace

absl::Span<const CoreOpDef> AttentionOps() { return kOps; }

}  // namespace sy::core::op_set
