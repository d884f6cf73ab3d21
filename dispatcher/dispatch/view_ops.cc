#include "dispatcher/dispatch/view_ops.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/dispatch/dispatcher.h"

namespace sy::core {
namespace {

int64_t Normalize(int64_t dim, int ndim) { return dim < 0 ? dim + ndim : dim; }

absl::Span<const int64_t> OutShape(const sy_tensor_meta_t& out) {
  return {out.shape, static_cast<size_t>(out.ndim)};
}

// Strides that show `x`'s elements, in order, as `shape`, when its strides
// allow it without a copy: the dims of `x` fall into chunks whose elements
// are evenly spaced (each dim's stride is the next one's stride times its
// size, size-1 dims aside), and the new shape must split or merge dims only
// inside a chunk. False when it would need a copy. (The rule PyTorch's
// view() follows: reshape then is a view exactly when view would be.)
bool ViewStrides(const Tensor& x, absl::Span<const int64_t> shape, int64_t* strides) {
  const int old_ndim = x.ndim();
  const int new_ndim = static_cast<int>(shape.size());
  if (x.numel() == 0 || old_ndim == 0) {
    ContiguousStrides(shape, strides);  // no element, or one: any strides
    return true;
  }
  absl::Span<const int64_t> old_shape = x.shape();
  absl::Span<const int64_t> old_strides = x.strides();
  int view_d = new_ndim - 1;
  int64_t chunk_stride = old_strides[old_ndim - 1];
  int64_t chunk_numel = 1, view_numel = 1;
  for (int d = old_ndim - 1; d >= 0; --d) {
    chunk_numel *= old_shape[d];
    const bool chunk_ends =
        d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != chunk_numel * chunk_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < chunk_numel || shape[view_d] == 1)) {
      strides[view_d] = view_numel * chunk_stride;
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != chunk_numel) return false;
    if (d > 0) {
      chunk_stride = old_strides[d - 1];
      chunk_numel = 1;
      view_numel = 1;
    }
  }
  return view_d == -1;
}

absl::StatusOr<Tensor> Reshape(Dispatcher& runtime, const Tensor& x,
                               const ShapeContext&, const sy_tensor_meta_t& out) {
  int64_t strides[SY_MAX_RANK];
  if (ViewStrides(x, OutShape(out), strides)) {
    return Tensor::View(x, OutShape(out), absl::MakeConstSpan(strides, out.ndim),
                        x.byte_offset());
  }
  // The strides cannot show the new shape: a contiguous copy always can.
  absl::StatusOr<OpHandle> copy = runtime.FindOp("copy");
  if (!copy.ok()) return copy.status();
  absl::StatusOr<std::vector<Tensor>> dense = runtime.Call(*copy, {x});
  if (!dense.ok()) return dense.status();
  const Tensor& base = (*dense)[0];
  ContiguousStrides(OutShape(out), strides);
  return Tensor::View(base, OutShape(out), absl::MakeConstSpan(strides, out.ndim),
                      base.byte_offset());
}

absl::StatusOr<Tensor> Permute(Dispatcher&, const Tensor& x, const ShapeContext& ctx,
                               const sy_tensor_meta_t& out) {
  absl::Span<const int64_t> dims = ctx.ints_attr(0);
  int64_t strides[SY_MAX_RANK];
  for (int d = 0; d < out.ndim; ++d) {
    strides[d] = x.strides()[Normalize(dims[d], x.ndim())];
  }
  return Tensor::View(x, OutShape(out), absl::MakeConstSpan(strides, out.ndim),
                      x.byte_offset());
}

absl::StatusOr<Tensor> Transpose(Dispatcher&, const Tensor& x,
                                 const ShapeContext& ctx,
                                 const sy_tensor_meta_t& out) {
  int64_t strides[SY_MAX_RANK];
  std::copy(x.strides().begin(), x.strides().end(), strides);
  if (x.ndim() > 0) {
    std::swap(strides[Normalize(ctx.int_attr(0), x.ndim())],
              strides[Normalize(ctx.int_attr(1), x.ndim())]);
  }
  return Tensor::View(x, OutShape(out), absl::MakeConstSpan(strides, out.ndim),
                      x.byte_offset());
}

absl::StatusOr<Tensor> Slice(Dispatcher&, const Tensor& x, const ShapeContext& ctx,
                             const sy_tensor_meta_t& out) {
  const int dim = static_cast<int>(Normalize(ctx.int_attr(0), x.ndim()));
  const int64_t size = x.shape()[dim];
  int64_t start = ctx.int_attr(1);
  if (start < 0) start += size;
  start = std::clamp<int64_t>(start, 0, size);
  const int64_t step = ctx.int_attr(3);
  int64_t strides[SY_MAX_RANK];
  std::copy(x.strides().begin(), x.strides().end(), strides);
  const uint64_t offset =
      x.byte_offset() +
      static_cast<uint64_t>(start * strides[dim]) * DTypeSize(x.dtype());
  strides[dim] *= step;
  return Tensor::View(x, OutShape(out), absl::MakeConstSpan(strides, out.ndim),
                      out.shape[dim] == 0 ? x.byte_offset() : offset);
}

absl::StatusOr<Tensor> Expand(Dispatcher&, const Tensor& x, const ShapeContext&,
                              const sy_tensor_meta_t& out) {
  int64_t strides[SY_MAX_RANK];
  const int lead = out.ndim - x.ndim();
  for (int d = 0; d < out.ndim; ++d) {
    const int in_d = d - lead;
    strides[d] = (in_d < 0 || (x.shape()[in_d] == 1 && out.shape[d] != 1))
                     ? 0
                     : x.strides()[in_d];
  }
  return Tensor::View(x, OutShape(out), absl::MakeConstSpan(strides, out.ndim),
                      x.byte_offset());
}

}  // namespace

void InstallViewOps(OpRegistry& ops) {
  struct Entry {
    const char* name;
    ViewFn fn;
  };
  const Entry entries[] = {{"reshape", Reshape},
                           {"permute", Permute},
                           {"transpose", Transpose},
                           {"slice", Slice},
                           {"expand", Expand}};
  for (const Entry& entry : entries) {
    if (OpDef* op = ops.Find(entry.name); op && op->kind() == OpKind::kView) {
      op->set_view_fn(entry.fn);
    }
  }
}

}  // namespace sy::core
