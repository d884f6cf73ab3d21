#include "dispatcher/dispatch/kernel_call.h"

#include "dispatcher/memory/device.h"

namespace sy::core {
namespace {

// A plain loop: ranks are tiny, and std::equal on int64 becomes a memcmp
// call that costs more than the comparison.
bool SameShape(const Tensor& t, const sy_tensor_meta_t& meta) {
  if (t.ndim() != meta.ndim) return false;
  for (int d = 0; d < meta.ndim; ++d) {
    if (t.shape()[d] != meta.shape[d]) return false;
  }
  return true;
}

// Strides that make `input` walk the output's shape (NumPy broadcasting:
// aligned at the right, stretched dims get stride 0).
void BroadcastStrides(const Tensor& input, const sy_tensor_meta_t& out,
                      int64_t* strides) {
  const int offset = out.ndim - input.ndim();
  for (int d = 0; d < out.ndim; ++d) {
    const int in_d = d - offset;
    if (in_d < 0 || (input.shape()[in_d] == 1 && out.shape[d] != 1)) {
      strides[d] = 0;
    } else {
      strides[d] = input.strides()[in_d];
    }
  }
}

}  // namespace

KernelCallFrame::KernelCallFrame(const BoundCall& bound,
                                 absl::Span<const Tensor* const> outputs,
                                 const KernelChoice& choice) {
  const OpDef& op = *bound.op;
  const size_t n = bound.tensors.size();
  const bool elementwise = op.kind() == OpKind::kElementwise;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& input = *bound.tensors[i];
    views_.push_back(input.view());
    if (elementwise && !SameShape(input, bound.outputs[0])) {
      const sy_tensor_meta_t& out = bound.outputs[0];
      if (strides_.empty()) strides_.resize(n * SY_MAX_RANK);
      int64_t* row = strides_.data() + i * SY_MAX_RANK;
      BroadcastStrides(input, out, row);
      views_[i].ndim = out.ndim;
      views_[i].shape = out.shape;
      views_[i].strides = row;
    }
  }
  const bool query = outputs.empty();
  if (query) {
    out_strides_.resize(bound.outputs.size() * SY_MAX_RANK);
    for (size_t i = 0; i < bound.outputs.size(); ++i) {
      const sy_tensor_meta_t& meta = bound.outputs[i];
      int64_t* row = out_strides_.data() + i * SY_MAX_RANK;
      ContiguousStrides(absl::MakeConstSpan(meta.shape, meta.ndim), row);
      out_views_.push_back(sy_tensor_view_t{nullptr, bound.device->dl_device(),
                                            meta.ndim, meta.dtype, meta.shape,
                                            row, 0});
    }
  } else {
    for (const Tensor* out : outputs) out_views_.push_back(out->view());
  }

  call_.struct_size = sizeof(call_);
  call_.extension = nullptr;
  call_.inputs = views_.data();
  call_.num_inputs = static_cast<int32_t>(n);
  call_.num_tensor_args = op.num_tensor_args();
  call_.input_offsets = bound.offsets.data();
  call_.outputs = out_views_.data();
  call_.num_outputs = static_cast<int32_t>(out_views_.size());
  call_.num_attrs = static_cast<int32_t>(bound.attrs.size());
  call_.attrs = bound.attrs.data();
  call_.stream = bound.device->stream();
  call_.variant = choice.variant;
  call_.reserved = 0;
  call_.variant_config = choice.variant_config;
  call_.kernel_data = choice.kernel->kernel_data;
  call_.host_call = nullptr;
  // Binding checked the call against the schema, resolution picked the
  // kernel by its registered dtypes, and the views above are the core's.
  call_.flags = SY_KERNEL_CALL_HOST_CHECKED | (query ? SY_KERNEL_CALL_QUERY : 0u);
  call_.reserved1 = 0;
}

}  // namespace sy::core
