#include "fusion/compile/plan.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "fusion/compile/rebuild.h"

namespace sy::fusion {
namespace {

bool IsTensor(const Value& value, const core::Tensor& t, uint64_t origin) {
  if (t.dtype() != value.meta.dtype || t.ndim() != value.meta.ndim ||
      t.byte_offset() != origin + value.byte_offset) {
    return false;
  }
  for (int d = 0; d < t.ndim(); ++d) {
    if (t.shape()[d] != value.meta.shape[d]) return false;
    if (t.shape()[d] != 1 && t.strides()[d] != value.strides[d]) return false;
  }
  return true;
}

// A replay's tensors: one per buffer, with its origin (Note [Buffers and
// values]), and views of them made on first use.
class Frame {
 public:
  explicit Frame(const OpGraph& g)
      : g_(g), buffers_(g.buffers.size()), origins_(g.buffers.size(), 0),
        values_(g.values.size()) {}

  void SetBuffer(int b, core::Tensor t, uint64_t origin) {
    buffers_[b] = std::move(t);
    origins_[b] = origin;
  }
  const core::Tensor& buffer(int b) const { return buffers_[b]; }
  uint64_t origin(int b) const { return origins_[b]; }

  const core::Tensor& value(int v) {
    if (!values_[v].defined()) {
      const Value& value = g_.values[v];
      const core::Tensor& buffer = buffers_[value.buffer];
      // A value that is its buffer's tensor as it stands (every op output
      // read whole, an input as passed) is that tensor: no view to make.
      values_[v] = IsTensor(value, buffer, origins_[value.buffer])
                       ? buffer
                       : ViewOf(value, buffer, origins_[value.buffer]);
    }
    return values_[v];
  }

 private:
  const OpGraph& g_;
  std::vector<core::Tensor> buffers_;
  std::vector<uint64_t> origins_;
  std::vector<core::Tensor> values_;
};

absl::Status BindInputs(const Plan& plan, absl::Span<const core::Tensor> inputs,
                        Frame& frame) {
  const OpGraph& g = plan.graph;
  if (inputs.size() != g.inputs.size()) {
    std::vector<std::string> names;
    for (const GraphInput& in : g.inputs) names.push_back(in.name);
    return absl::InvalidArgumentError(absl::StrCat(
        "graph launch: the graph takes ", g.inputs.size(), " input(s) (",
        absl::StrJoin(names, ", "), ") but ", inputs.size(), " were passed"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const GraphInput& want = g.inputs[i];
    const core::Tensor& t = inputs[i];
    const std::string who = absl::StrCat("graph launch: input '", want.name, "' (#", i, ")");
    if (!t.defined()) return absl::InvalidArgumentError(absl::StrCat(who, " is undefined"));
    if (t.symbolic()) {
      return absl::InvalidArgumentError(absl::StrCat(
          who, " is a symbolic tensor of a capture; launch with real tensors"));
    }
    bool same = t.dtype() == want.meta.dtype && t.ndim() == want.meta.ndim;
    for (int d = 0; same && d < t.ndim(); ++d) same = t.shape()[d] == want.meta.shape[d];
    if (!same) {
      return absl::InvalidArgumentError(absl::StrCat(
          who, " is ", MetaText(t.meta()), " but the graph was captured with ",
          MetaText(want.meta), "; launch it with inputs of the captured dtypes and "
          "shapes, or capture it again for these"));
    }
    if (&t.device() != want.device) {
      return absl::InvalidArgumentError(absl::StrCat(
          who, " is on ", t.device().label(), " but the graph was captured on ",
          want.device->label(),
          "; move the input there (sy_tensor_to_device in C, Tensor::To "
          "in C++, tensor.to(device) in Python)"));
    }
    core::Tensor tensor = t;
    bool same_layout = true;
    for (int d = 0; d < t.ndim(); ++d) {
      if (t.shape()[d] != 1 && t.strides()[d] != want.strides[d]) same_layout = false;
    }
    if (!same_layout) {
      if (!want.contiguous) {
        return absl::InvalidArgumentError(absl::StrCat(
            who, " has strides [", absl::StrJoin(t.strides(), ", "),
            "] but the graph was captured with strides [",
            absl::StrJoin(want.strides, want.strides + want.meta.ndim, ", "),
            "]; pass a tensor of the captured layout, or capture with a "
            "contiguous example"));
      }
      // Captured contiguous: any layout is made contiguous first.
      absl::StatusOr<std::vector<core::Tensor>> dense = plan.dispatcher->Call(plan.copy, {t});
      if (!dense.ok()) return dense.status();
      tensor = (*dense)[0];
    }
    const uint64_t origin = tensor.byte_offset();
    frame.SetBuffer(want.buffer, std::move(tensor), origin);
  }
  for (size_t b = 0; b < g.buffers.size(); ++b) {
    if (g.buffers[b].kind == Buffer::Kind::kConstant) {
      frame.SetBuffer(static_cast<int>(b), g.buffers[b].constant, 0);
    }
  }
  return absl::OkStatus();
}

absl::Status RunOp(const Plan& plan, int n, Frame& frame) {
  const Node& node = plan.graph.nodes[n];
  std::vector<core::Tensor> tensors;
  tensors.reserve(node.inputs.size());
  for (int v : node.inputs) tensors.push_back(frame.value(v));
  const std::vector<const core::Tensor*> inputs = CallInputs(node, tensors);
  core::TensorList produced;
  core::CallArgs args;
  args.inputs = inputs;
  args.attrs = node.attrs.span();
  args.list_sizes = node.list_sizes;
  args.produced = &produced;
  absl::Status status =
      plan.dispatcher->Execute(core::OpHandle(const_cast<core::OpDef*>(node.op)), args);
  if (!status.ok()) return status;
  for (size_t j = 0; j < node.outputs.size(); ++j) {
    // A kernel's output is its buffer as recorded (attention's [B, L, H, E]
    // included): no copy. Only another route's layout is copied.
    const Value& recorded = plan.graph.values[node.outputs[j]];
    absl::StatusOr<core::Tensor> t =
        AsRecorded(*plan.dispatcher, plan.copy, produced[j], recorded);
    if (!t.ok()) return t.status();
    const uint64_t origin = t->byte_offset();
    frame.SetBuffer(recorded.buffer, *std::move(t), origin);
  }
  return absl::OkStatus();
}

absl::Status RunFused(const Plan& plan, const FusedStep& step, Frame& frame) {
  const OpGraph& g = plan.graph;
  for (int b : step.output_buffers) {
    absl::StatusOr<core::Tensor> out = core::Tensor::Empty(*step.device, g.buffers[b].meta);
    if (!out.ok()) return out.status();
    frame.SetBuffer(b, *std::move(out), 0);
  }
  if (step.ir.rows() == 0) return absl::OkStatus();  // nothing to compute
  const FusedKernel& k = step.ir;
  sy_tensor_view_t views[64];
  std::vector<sy_tensor_view_t> heap;
  const size_t count = k.inputs.size() + k.outputs.size();
  sy_tensor_view_t* all = views;
  if (count > 64) {
    heap.resize(count);
    all = heap.data();
  }
  for (size_t i = 0; i < k.inputs.size(); ++i) {
    const Value& v = g.values[step.input_values[i]];
    const sy_tensor_view_t base = frame.buffer(v.buffer).view();
    all[i] = sy_tensor_view_t{base.data, base.device, k.ndim, k.inputs[i].dtype, k.shape,
                              k.inputs[i].strides, frame.origin(v.buffer) + v.byte_offset};
  }
  for (size_t o = 0; o < k.outputs.size(); ++o) {
    const sy_tensor_view_t base = frame.buffer(step.output_buffers[o]).view();
    all[k.inputs.size() + o] = sy_tensor_view_t{
        base.data, base.device, k.ndim, k.outputs[o].dtype, k.shape, k.outputs[o].strides, 0};
  }
  return step.kernel->Launch({all, k.inputs.size()}, {all + k.inputs.size(), k.outputs.size()});
}

}  // namespace

absl::StatusOr<std::vector<core::Tensor>> RunPlan(const Plan& plan,
                                                  absl::Span<const core::Tensor> inputs) {
  if (core::CaptureActive()) {
    return absl::FailedPreconditionError(
        "graph launch: a capture is recording on this thread; launch compiled "
        "graphs outside captures (inside one, call the ops themselves)");
  }
  Frame frame(plan.graph);
  if (absl::Status status = BindInputs(plan, inputs, frame); !status.ok()) return status;
  for (const Step& step : plan.steps) {
    absl::Status status = step.kind == Step::Kind::kOp
                              ? RunOp(plan, step.index, frame)
                              : RunFused(plan, plan.fused[step.index], frame);
    if (!status.ok()) return status;
  }
  std::vector<core::Tensor> outputs;
  outputs.reserve(plan.graph.outputs.size());
  for (const GraphOutput& o : plan.graph.outputs) outputs.push_back(frame.value(o.value));
  return outputs;
}

}  // namespace sy::fusion
