#include "fusion/compile/rebuild.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "fusion/capture/recorder.h"

namespace sy::fusion {

std::vector<const core::Tensor*> CallInputs(const Node& node,
                                            const std::vector<core::Tensor>& tensors) {
  std::vector<const core::Tensor*> args;
  const int num_args = node.op->num_tensor_args();
  for (int k = 0; k < num_args; ++k) {
    const int begin = node.offsets[k];
    const int end = node.offsets[k + 1];
    if (k == node.op->list_arg()) {
      for (int i = begin; i < end; ++i) args.push_back(&tensors[i]);
    } else {
      args.push_back(end > begin ? &tensors[begin] : nullptr);
    }
  }
  return args;
}

absl::StatusOr<core::Tensor> AsRecorded(core::Dispatcher& dispatcher, core::OpHandle copy,
                                        const core::Tensor& t, const Value& recorded) {
  bool same = true;
  for (int d = 0; d < t.ndim(); ++d) {
    if (t.shape()[d] != 1 && t.strides()[d] != recorded.strides[d]) same = false;
  }
  if (same || t.numel() == 0) return t;
  // The recorded layout's dims, outermost first; `t` viewed in that order
  // and copied is dense in it, so the recorded strides index the copy.
  int order[SY_MAX_RANK];
  for (int d = 0; d < t.ndim(); ++d) order[d] = d;
  std::stable_sort(order, order + t.ndim(), [&](int a, int b) {
    return recorded.strides[a] > recorded.strides[b];
  });
  int64_t shape[SY_MAX_RANK], strides[SY_MAX_RANK];
  for (int i = 0; i < t.ndim(); ++i) {
    shape[i] = t.shape()[order[i]];
    strides[i] = t.strides()[order[i]];
  }
  const core::Tensor permuted =
      core::Tensor::View(t, absl::MakeConstSpan(shape, t.ndim()),
                         absl::MakeConstSpan(strides, t.ndim()), t.byte_offset());
  absl::StatusOr<std::vector<core::Tensor>> dense = dispatcher.Call(copy, {permuted});
  if (!dense.ok()) return dense.status();
  return (*dense)[0];
}

absl::StatusOr<OpGraph> Rebuild(core::Dispatcher& dispatcher, const OpGraph& graph,
                                const std::function<bool(int node)>& decompose,
                                std::vector<int>* origin) {
  if (origin != nullptr) origin->clear();
  OpGraph out;
  RecorderOptions options;
  options.expand_decompositions = true;
  options.uncapturable.clear();  // the capture already refused those
  Recorder recorder(dispatcher, out, options);
  core::ScopedInterception scope(&recorder);

  // What each buffer of `graph` is in the new graph: a symbolic tensor
  // whose byte_offset is the buffer's origin (constants: the real tensor,
  // whose values keep absolute offsets).
  std::vector<core::Tensor> buffer_tensor(graph.buffers.size());
  for (const GraphInput& in : graph.inputs) {
    buffer_tensor[in.buffer] = recorder.AddInput(
        *in.device, in.meta, absl::MakeConstSpan(in.strides, in.meta.ndim), in.name);
  }
  for (size_t b = 0; b < graph.buffers.size(); ++b) {
    if (graph.buffers[b].kind == Buffer::Kind::kConstant) {
      buffer_tensor[b] = graph.buffers[b].constant;
    }
  }
  auto tensor_of = [&](int v) {
    const Value& value = graph.values[v];
    const core::Tensor& base = buffer_tensor[value.buffer];
    const bool constant = graph.buffers[value.buffer].kind == Buffer::Kind::kConstant;
    // An input's symbolic tensor may itself be a strided view at offset 0.
    return ViewOf(value, base, constant ? 0 : base.byte_offset());
  };
  absl::StatusOr<core::OpHandle> copy = dispatcher.FindOp("copy");
  if (!copy.ok()) return copy.status();

  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const Node& node = graph.nodes[n];
    if (node.dead) continue;
    std::vector<core::Tensor> tensors;
    tensors.reserve(node.inputs.size());
    for (int v : node.inputs) tensors.push_back(tensor_of(v));
    const std::vector<const core::Tensor*> inputs = CallInputs(node, tensors);
    core::TensorList produced;
    core::CallArgs args;
    args.inputs = inputs;
    args.attrs = node.attrs.span();
    args.list_sizes = node.list_sizes;
    args.produced = &produced;
    if (decompose(static_cast<int>(n))) args.route = core::RouteRequest::Decomposition();
    absl::Status status = dispatcher.Execute(core::OpHandle(const_cast<core::OpDef*>(node.op)), args);
    if (!recorder.failure().ok()) return recorder.failure();
    if (!status.ok()) {
      return absl::Status(status.code(), absl::StrCat("compiling the graph: op '",
                                                      node.name(), "': ", status.message()));
    }
    for (size_t j = 0; j < node.outputs.size() && j < produced.size(); ++j) {
      // Values over this buffer assume the layout it was recorded with.
      absl::StatusOr<core::Tensor> t =
          AsRecorded(dispatcher, *copy, produced[j], graph.values[node.outputs[j]]);
      if (!t.ok()) return t.status();
      buffer_tensor[graph.values[node.outputs[j]].buffer] = *std::move(t);
    }
    if (origin != nullptr) origin->resize(out.nodes.size(), static_cast<int>(n));
  }
  for (const GraphOutput& o : graph.outputs) {
    absl::StatusOr<int> value = recorder.ValueOf(tensor_of(o.value), o.name);
    if (!value.ok()) return value.status();
    out.outputs.push_back({*value, o.name});
  }
  return out;
}

}  // namespace sy::fusion
