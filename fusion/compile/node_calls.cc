#include "fusion/compile/node_calls.h"

#include "dispatcher/ops/dtype.h"
#include "fusion/compile/rebuild.h"

namespace sy::fusion {

absl::StatusOr<std::vector<core::Tensor>> ScratchTensors(core::Dispatcher& d,
                                                         core::Device& device, const OpGraph& g,
                                                         const std::vector<int>& values,
                                                         bool fill) {
  absl::StatusOr<core::OpHandle> fill_op = d.FindOp("fill.Scalar");
  if (!fill_op.ok()) return fill_op.status();
  std::vector<core::Tensor> tensors;
  for (int v : values) {
    const Value& value = g.values[v];
    const int64_t size = static_cast<int64_t>(core::DTypeSize(value.meta.dtype));
    int64_t elements = static_cast<int64_t>(value.byte_offset) / size + 1;
    for (int k = 0; k < value.meta.ndim; ++k) {
      if (value.meta.shape[k] == 0) elements = 0;
      if (elements > 0) elements += (value.meta.shape[k] - 1) * value.strides[k];
    }
    absl::StatusOr<core::Tensor> base = d.Empty(device, value.meta.dtype, {elements});
    if (!base.ok()) return base.status();
    if (fill) {
      absl::StatusOr<std::vector<core::Tensor>> filled =
          d.Call(*fill_op, {*base}, {core::Attr(0.5)});
      if (!filled.ok()) return filled.status();
      base = (*filled)[0];
    }
    tensors.push_back(
        core::Tensor::View(*base, value.shape(), value.stride_span(), value.byte_offset));
  }
  return tensors;
}

absl::Status RunNode(core::Dispatcher& d, const Node& node,
                     const std::vector<core::Tensor>& tensors, core::TensorList& produced) {
  const std::vector<const core::Tensor*> inputs = CallInputs(node, tensors);
  core::CallArgs args;
  args.inputs = inputs;
  args.attrs = node.attrs.span();
  args.list_sizes = node.list_sizes;
  args.produced = &produced;
  produced.clear();
  return d.Execute(core::OpHandle(const_cast<core::OpDef*>(node.op)), args);
}

}  // namespace sy::fusion
