// Shape functions of the reductions: sum mean max min over a list of dims,
// and argmax over one dim or the flattened tensor.
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

enum class Reduce { kSum, kMean, kMax, kMin };

// Keeps the dims of x not in `reduced`, or sets them to 1 with keepdim.
void WriteReduced(const sy_tensor_meta_t& x, uint32_t reduced, bool keepdim,
                  sy_tensor_meta_t& out) {
  int rank = 0;
  for (int d = 0; d < x.ndim; ++d) {
    if ((reduced & (1u << d)) == 0) {
      out.shape[rank++] = x.shape[d];
    } else if (keepdim) {
      out.shape[rank++] = 1;
    }
  }
  out.ndim = rank;
}

// max, min and argmax have no identity element, so reducing over nothing
// has no answer (sum and mean give 0 and NaN).
absl::Status RequireNonEmpty(const ShapeContext& ctx, uint32_t reduced) {
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  for (int d = 0; d < x.ndim; ++d) {
    if ((reduced & (1u << d)) == 0 || x.shape[d] != 0) continue;
    const std::string name(ctx.schema().BaseName());
    return ctx.TensorError(
        kX, absl::StrCat("has shape ", FormatShape(ShapeOf(x)), ", and ", name,
                         " over dim ", d,
                         " of size 0 has no result; reduce over non-empty "
                         "dims only"));
  }
  return absl::OkStatus();
}

template <Reduce op>
absl::Status ReduceShape(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kDims = 0, kKeepdim = 1;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  sy_dtype_t dtype = x.dtype;
  if (op == Reduce::kMean) {
    if (absl::Status s = RequireFloating(ctx, kX); !s.ok()) return s;
  } else if (op == Reduce::kSum && !IsFloatingPoint(dtype)) {
    dtype = SY_DTYPE_I64;  // as PyTorch: integer sums do not overflow early
  }
  absl::StatusOr<uint32_t> reduced =
      NormalizeDimListAttr(ctx, kDims, kX, /*wrap_scalar=*/true);
  if (!reduced.ok()) return reduced.status();
  if (ctx.ints_attr(kDims).empty()) *reduced = (1u << x.ndim) - 1;
  if (op == Reduce::kMax || op == Reduce::kMin) {
    if (absl::Status s = RequireNonEmpty(ctx, *reduced); !s.ok()) return s;
  }
  outputs[0].dtype = dtype;
  WriteReduced(x, *reduced, ctx.bool_attr(kKeepdim), outputs[0]);
  return absl::OkStatus();
}

absl::Status ArgmaxShape(const ShapeContext& ctx,
                         absl::Span<sy_tensor_meta_t> outputs) {
  constexpr int kDim = 0, kKeepdim = 1;
  const sy_tensor_meta_t& x = ctx.tensor(kX);
  uint32_t reduced = (1u << x.ndim) - 1;  // dim=None: the flattened tensor
  if (!ctx.attr_is_none(kDim)) {
    absl::StatusOr<int> dim =
        NormalizeDimAttr(ctx, kDim, kX, /*wrap_scalar=*/true);
    if (!dim.ok()) return dim.status();
    reduced = x.ndim == 0 ? 0 : 1u << *dim;
  }
  if (absl::Status s = RequireNonEmpty(ctx, reduced); !s.ok()) return s;
  outputs[0].dtype = SY_DTYPE_I64;
  WriteReduced(x, reduced, ctx.bool_attr(kKeepdim), outputs[0]);
  return absl::OkStatus();
}

constexpr CoreOpDef kOps[] = {
    {"sum(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor",
     &Checked<ReduceShape<Reduce::kSum>>},
    {"mean(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor",
     &Checked<ReduceShape<Reduce::kMean>>},
    {"max(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor",
     &Checked<ReduceShape<Reduce::kMax>>},
    {"min(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor",
     &Checked<ReduceShape<Reduce::kMin>>},
    {"argmax(Tensor x, int? dim=None, bool keepdim=False) -> Tensor",
     &Checked<ArgmaxShape>},
};

}  // namespace

absl::Span<const CoreOpDef> ReductionOps() { return kOps; }

}  // namespace sy::core::op_set
