#include "fusion/capture/recorder.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/run.h"

namespace sy::fusion {

absl::Status Recorder::Fail(absl::Status status) {
  if (failure_.ok()) {
    failure_ = absl::Status(status.code(),
                            absl::StrCat("graph capture ended: ", status.message()));
  }
  return failure_;
}

core::Tensor Recorder::AddInput(core::Device& device, const sy_tensor_meta_t& meta,
                                absl::Span<const int64_t> strides,
                                std::string name) {
  Buffer buffer;
  buffer.kind = Buffer::Kind::kInput;
  buffer.input = static_cast<int>(graph_.inputs.size());
  buffer.device = &device;
  buffer.meta = meta;
  const int id = static_cast<int>(graph_.buffers.size());
  graph_.buffers.push_back(buffer);

  GraphInput input;
  input.buffer = id;
  input.name = name.empty() ? absl::StrCat("input ", buffer.input) : std::move(name);
  input.device = &device;
  input.meta = meta;
  core::Tensor tensor = core::Tensor::Symbolic(device, meta);
  for (int d = 0; d < meta.ndim; ++d) {
    input.strides[d] = strides.empty() ? tensor.strides()[d] : strides[d];
    if (meta.shape[d] != 1 && input.strides[d] != tensor.strides()[d]) {
      input.contiguous = false;
    }
  }
  if (!input.contiguous) {
    tensor = core::Tensor::View(tensor, tensor.shape(),
                                absl::MakeConstSpan(input.strides, meta.ndim), 0);
  }
  graph_.inputs.push_back(input);
  buffer_of_[&tensor.storage()] = id;
  buffer_tensors_.push_back(tensor);
  return tensor;
}

absl::StatusOr<int> Recorder::BufferOf(const core::Tensor& tensor,
                                       absl::string_view what) {
  if (auto it = buffer_of_.find(&tensor.storage()); it != buffer_of_.end()) {
    return it->second;
  }
  if (tensor.symbolic()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is a symbolic tensor of another graph capture, or of one that "
        "has ended; use the tensors of this capture (Capture::Input and the "
        "results of ops called in it) or real tensors"));
  }
  // A real tensor the captured code uses without declaring it an input: a
  // constant of the graph (a weight), read again at every replay.
  Buffer buffer;
  buffer.kind = Buffer::Kind::kConstant;
  buffer.constant = tensor;
  buffer.device = &tensor.device();
  buffer.meta = tensor.meta();
  const int id = static_cast<int>(graph_.buffers.size());
  graph_.buffers.push_back(buffer);
  buffer_of_[&tensor.storage()] = id;
  buffer_tensors_.push_back(tensor);
  return id;
}

absl::StatusOr<int> Recorder::ValueOf(const core::Tensor& tensor,
                                      absl::string_view what) {
  if (!tensor.defined()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is an undefined tensor"));
  }
  absl::StatusOr<int> buffer = BufferOf(tensor, what);
  if (!buffer.ok()) return buffer.status();
  Value value;
  value.buffer = *buffer;
  value.meta = tensor.meta();
  for (int d = 0; d < tensor.ndim(); ++d) value.strides[d] = tensor.strides()[d];
  // Constants keep their offset within their storage (their origin is 0);
  // symbolic buffers start at 0 anyway.
  value.byte_offset = tensor.byte_offset();
  return graph_.AddValue(value);
}

absl::StatusOr<core::TensorList> Recorder::Record(
    const core::BoundCall& bound, const core::Resolution& resolution,
    absl::Span<const core::Tensor* const> provided) {
  if (!failure_.ok()) return failure_;
  const core::OpDef& op = *bound.op;
  if (!provided.empty()) {
    return Fail(absl::FailedPreconditionError(absl::StrCat(
        "op '", op.full_name(), "' was called with its outputs passed in "
        "(CallOut), which a capture cannot record; inside a capture call "
        "ops so that they return their outputs")));
  }
  // The thread's capture records every dispatcher's calls; one of another
  // runtime (a second C API context) cannot run in this graph.
  if (dispatcher_.state().ops.Find(op.full_name()) != &op) {
    return Fail(absl::InvalidArgumentError(absl::StrCat(
        "op '", op.full_name(), "' of another context was called while this "
        "thread captures a graph of its own context; a capture records one "
        "context's ops — end the capture before calling another context's")));
  }
  const std::string base = op.schema().BaseName();
  for (const std::string& name : options_.uncapturable) {
    // "nonzero" also names a plugin's "vendor::nonzero".
    if (base == name || op.schema().name == name) {
      return Fail(absl::UnimplementedError(absl::StrCat(
          "op '", op.full_name(), "' cannot be captured: the shape of its "
          "output depends on the values of its inputs, which a capture does "
          "not have; call it outside the capture (capture the parts before "
          "and after it as graphs of their own)")));
    }
  }
  std::vector<int> inputs;
  inputs.reserve(bound.tensors.size());
  for (size_t i = 0; i < bound.tensors.size(); ++i) {
    absl::StatusOr<int> value = ValueOf(
        *bound.tensors[i], absl::StrCat("op '", op.full_name(), "': input #", i));
    if (!value.ok()) return Fail(value.status());
    inputs.push_back(*value);
  }

  if (resolution.route == core::Route::kView) {
    // The core's own view function, on the symbolic input: the result is a
    // view of the same buffer, or (a reshape that cannot be viewed) the
    // result of a copy this recorder records through the dispatcher.
    absl::StatusOr<core::Tensor> view = op.view_fn()(
        dispatcher_, *bound.tensors[0], bound.context(), bound.outputs[0]);
    if (!view.ok()) return view.status();
    core::TensorList out;
    out.push_back(*std::move(view));
    return out;
  }
  if (resolution.route == core::Route::kDecomposition &&
      options_.expand_decompositions) {
    std::vector<core::Tensor> flat;
    flat.reserve(bound.tensors.size());
    for (const core::Tensor* t : bound.tensors) flat.push_back(*t);
    absl::StatusOr<std::vector<core::Tensor>> results = op.decomposition()(
        dispatcher_,
        core::DecompositionArgs{flat, bound.offsets, bound.attrs, &op});
    if (!results.ok()) return results.status();
    core::TensorList out;
    for (core::Tensor& t : *results) out.push_back(std::move(t));
    return out;
  }

  const int node_id = static_cast<int>(graph_.nodes.size());
  Node node;
  node.op = &op;
  node.inputs = std::move(inputs);
  node.offsets.assign(bound.offsets.begin(), bound.offsets.end());
  if (op.list_arg() >= 0) {
    const int k = op.list_arg();
    node.list_sizes.push_back(bound.offsets[k + 1] - bound.offsets[k]);
  }
  node.attrs = OwnedAttrs(absl::MakeConstSpan(bound.attrs.data(), bound.attrs.size()));
  node.device = bound.device;
  node.route = resolution.route;
  node.resolution = core::DescribeResolution(resolution);
  core::TensorList out;
  for (size_t j = 0; j < bound.outputs.size(); ++j) {
    Buffer buffer;
    buffer.kind = Buffer::Kind::kProduced;
    buffer.node = node_id;
    buffer.output = static_cast<int>(j);
    buffer.device = bound.device;
    buffer.meta = bound.outputs[j];
    const int id = static_cast<int>(graph_.buffers.size());
    graph_.buffers.push_back(buffer);
    core::Tensor tensor = core::Tensor::Symbolic(*bound.device, bound.outputs[j]);
    // The layout the kernel will write (Note [Attention output layout],
    // Note [Channels-last outputs], Note [Elementwise output layout]; a
    // fused group writes it too, lower.h), so that the views the captured code
    // makes of it are the views eager makes — attention's
    // transpose(1, 2).reshape stays a view, not a copy at every replay.
    // Other routes produce contiguous outputs.
    if (node.route == core::Route::kKernel) {
      int64_t strides[SY_MAX_RANK];
      core::KernelOutputStrides(op, bound.outputs[j], bound.tensors, strides);
      const absl::Span<const int64_t> written(strides, tensor.ndim());
      if (!std::equal(written.begin(), written.end(), tensor.strides().begin())) {
        tensor = core::Tensor::View(tensor, tensor.shape(), written, 0);
      }
    }
    buffer_of_[&tensor.storage()] = id;
    buffer_tensors_.push_back(tensor);
    Value value;
    value.buffer = id;
    value.meta = bound.outputs[j];
    for (int d = 0; d < tensor.ndim(); ++d) value.strides[d] = tensor.strides()[d];
    node.outputs.push_back(graph_.AddValue(value));
    out.push_back(std::move(tensor));
  }
  graph_.nodes.push_back(std::move(node));
  return out;
}

}  // namespace sy::fusion
