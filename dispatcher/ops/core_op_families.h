// Internal to dispatcher/ops: the core op set, one table per op family,
// which core_ops.cc concatenates into CoreOps(). Each family lives in its own
// <family>_ops.cc with its shape functions.
#ifndef SWITCHYARD_DISPATCHER_OPS_CORE_OP_FAMILIES_H_
#define SWITCHYARD_DISPATCHER_OPS_CORE_OP_FAMILIES_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"
#include "switchyard/plugin.h"

namespace sy::core::op_set {

absl::Span<const CoreOpDef> CreationOps();  // fill copy cast
absl::Span<const CoreOpDef> UnaryOps();     // neg … gelu
absl::Span<const CoreOpDef> BinaryOps();    // add … minimum, eq … ge, where
absl::Span<const CoreOpDef> ReductionOps();  // sum mean max min argmax
absl::Span<const CoreOpDef> NormOps();       // softmax … rms_norm
absl::Span<const CoreOpDef> LinalgOps();     // matmul linear conv2d
absl::Span<const CoreOpDef> LayoutOps();     // reshape … concat
absl::Span<const CoreOpDef> AttentionOps();  // embedding, sdpa
absl::Span<const CoreOpDef> CollectiveOps();  // all_reduce … barrier

// Wraps a family's shape function so that it runs only on well-formed input
// metas (valid dtypes, ranks and sizes: CheckInputMetas) and its results are
// checked too. Family tables list Checked<F>, never F itself, so no shape
// function has to re-check what binding does not guarantee.
template <CoreShapeFn F>
absl::Status Checked(const ShapeContext& ctx,
                     absl::Span<sy_tensor_meta_t> outputs) {
  if (!ctx.inputs_trusted()) {
    if (absl::Status s = CheckInputMetas(ctx); !s.ok()) return s;
  }
  if (absl::Status s = F(ctx, outputs); !s.ok()) return s;
  return CheckOutputMetas(ctx, outputs);
}

}  // namespace sy::core::op_set

#endif  // SWITCHYARD_DISPATCHER_OPS_CORE_OP_FAMILIES_H_
