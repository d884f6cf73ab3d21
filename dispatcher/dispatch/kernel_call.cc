#include "dispatcher/dispatch/kernel_call.h"

#include <algorithm>

#include "dispatcher/memory/device.h"

namespace sy::core {

bool BroadcastInput(const Tensor& input, const sy_tensor_meta_t& out,
                    int64_t* strides) {
  if (SameShape(input, out)) return false;
  const int offset = out.ndim - input.ndim();
  for (int d = 0; d < out.ndim; ++d) {
    const int in_d = d - offset;
    if (in_d < 0 || (input.shape()[in_d] == 1 && out.shape[d] != 1)) {
      strides[d] = 0;
    } else {
      strides[d] = input.strides()[in_d];
    }
  }
  return true;
}

void FillKernelCall(const KernelCallParts& parts, const sy_tensor_view_t* inputs,
                    int32_t num_inputs, const sy_tensor_view_t* outputs,
                    int32_t num_outputs, sy_kernel_call_t& call) {
  call.struct_size = sizeof(call);
  call.extension = nullptr;
  call.inputs = inputs;
  call.num_inputs = num_inputs;
  call.num_tensor_args = parts.op->num_tensor_args();
  call.input_offsets = parts.input_offsets;
  call.outputs = outputs;
  call.num_outputs = num_outputs;
  call.num_attrs = parts.num_attrs;
  call.attrs = parts.attrs;
  call.stream = parts.device->stream();
  call.variant = parts.choice->variant;
  call.reserved = 0;
  call.variant_config = parts.choice->variant_config;
  call.kernel_data = parts.choice->kernel->kernel_data;
  call.host_call = nullptr;
  // Binding checked the call against the schema, resolution picked the
  // kernel by its registered dtypes, and the views are the core's.
  call.flags = SY_KERNEL_CALL_HOST_CHECKED | (parts.query ? SY_KERNEL_CALL_QUERY : 0u);
  call.reserved1 = 0;
}

KernelCallFrame::KernelCallFrame(const BoundCall& bound,
                                 absl::Span<const Tensor* const> outputs,
                                 const KernelChoice& choice) {
  const OpDef& op = *bound.op;
  const size_t n = bound.tensors.size();
  const bool elementwise = op.kind() == OpKind::kElementwise;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& input = *bound.tensors[i];
    views_.push_back(input.view());
    if (!elementwise) continue;
    const sy_tensor_meta_t& out = bound.outputs[0];
    int64_t broadcast[SY_MAX_RANK];
    if (!BroadcastInput(input, out, broadcast)) continue;
    if (strides_.empty()) strides_.resize(n * SY_MAX_RANK);
    int64_t* row = strides_.data() + i * SY_MAX_RANK;
    std::copy(broadcast, broadcast + out.ndim, row);
    views_[i].ndim = out.ndim;
    views_[i].shape = out.shape;
    views_[i].strides = row;
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

  KernelCallParts parts;
  parts.op = &op;
  parts.device = bound.device;
  parts.choice = &choice;
  parts.input_offsets = bound.offsets.data();
  parts.attrs = bound.attrs.data();
  parts.num_attrs = static_cast<int32_t>(bound.attrs.size());
  parts.query = query;
  FillKernelCall(parts, views_.data(), static_cast<int32_t>(n), out_views_.data(),
                 static_cast<int32_t>(out_views_.size()), call_);
}

}  // namespace sy::core
