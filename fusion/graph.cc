#include "fusion/graph.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/ops/dtype.h"
#include "fusion/capture/op_graph.h"
#include "fusion/capture/recorder.h"
#include "fusion/compile/plan.h"

namespace sy::fusion {

// ---- Graph -------------------------------------------------------------------

int Graph::num_inputs() const { return graph_ ? static_cast<int>(graph_->inputs.size()) : 0; }
int Graph::num_outputs() const { return graph_ ? static_cast<int>(graph_->outputs.size()) : 0; }
int Graph::num_ops() const { return graph_ ? graph_->num_live_nodes() : 0; }

std::string Graph::Describe() const {
  if (!graph_) return "empty graph\n";
  const OpGraph& g = *graph_;
  std::string out = absl::StrCat("captured graph: ", g.inputs.size(), " input(s), ",
                                 g.outputs.size(), " output(s), ", g.num_live_nodes(),
                                 " op(s)\n");
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const GraphInput& in = g.inputs[i];
    absl::StrAppend(&out, "  input ", i, " '", in.name, "': ", MetaText(in.meta), " on ",
                    in.device->label(), in.contiguous ? "" : " (strided)", "\n");
  }
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.dead) continue;
    std::vector<std::string> args;
    for (int v : node.inputs) args.push_back(g.DescribeValue(v));
    absl::StrAppend(&out, "  %", n, " = ", node.name(), "(", absl::StrJoin(args, "; "),
                    node.attrs.size() ? absl::StrCat("; attrs ", node.attrs.ToString()) : "",
                    ") → ", node.resolution, "\n");
  }
  for (const GraphOutput& o : g.outputs) {
    absl::StrAppend(&out, "  output ", o.name, " = ", g.DescribeValue(o.value), "\n");
  }
  return out;
}

// ---- Capture -----------------------------------------------------------------

absl::StatusOr<std::unique_ptr<Capture>> Capture::Begin(core::Dispatcher& dispatcher,
                                                        CaptureOptions options) {
  std::unique_ptr<Capture> capture(new Capture());
  capture->dispatcher_ = &dispatcher;
  capture->thread_ = std::this_thread::get_id();
  capture->graph_ = std::make_shared<OpGraph>();
  RecorderOptions recorder_options;
  if (!options.uncapturable.empty()) recorder_options.uncapturable = options.uncapturable;
  capture->recorder_ =
      std::make_unique<Recorder>(dispatcher, *capture->graph_, std::move(recorder_options));
  capture->scope_.emplace(capture->recorder_.get());
  return capture;
}

Capture::~Capture() {
  // Restores the interception that was active before Begin; only right on
  // the thread that began (the header says so).
  scope_.reset();
}

absl::Status Capture::CheckOpen(const char* what) const {
  if (ended_) {
    return absl::FailedPreconditionError(
        absl::StrCat("Capture::", what, ": the capture has ended"));
  }
  if (std::this_thread::get_id() != thread_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Capture::", what, ": called on another thread than the one that began "
        "the capture; a capture records one thread's calls"));
  }
  return recorder_->failure();
}

absl::StatusOr<core::Tensor> Capture::Input(const core::Tensor& example, std::string name) {
  if (absl::Status s = CheckOpen("Input"); !s.ok()) return s;
  if (!example.defined()) {
    return absl::InvalidArgumentError("Capture::Input: the example tensor is undefined");
  }
  return recorder_->AddInput(example.device(), example.meta(), example.strides(),
                             std::move(name));
}

absl::StatusOr<core::Tensor> Capture::Input(core::Device& device, sy_dtype_t dtype,
                                            absl::Span<const int64_t> shape,
                                            std::string name) {
  if (absl::Status s = CheckOpen("Input"); !s.ok()) return s;
  // Tensor::Empty's checks (dtype, rank, sizes), without the memory.
  if (shape.size() > SY_MAX_RANK) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Capture::Input: rank ", shape.size(), " is over ", SY_MAX_RANK));
  }
  sy_tensor_meta_t meta{};
  meta.dtype = dtype;
  meta.ndim = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return absl::InvalidArgumentError("Capture::Input: a dim is negative");
    }
    meta.shape[d] = shape[d];
  }
  if (!core::IsValidDType(dtype)) {
    return absl::InvalidArgumentError("Capture::Input: not a dtype of the core op set");
  }
  return recorder_->AddInput(device, meta, {}, std::move(name));
}

absl::Status Capture::Output(const core::Tensor& tensor, std::string name) {
  if (absl::Status s = CheckOpen("Output"); !s.ok()) return s;
  if (name.empty()) name = absl::StrCat("output ", graph_->outputs.size());
  absl::StatusOr<int> value = recorder_->ValueOf(tensor, absl::StrCat("output '", name, "'"));
  if (!value.ok()) return value.status();
  graph_->outputs.push_back({*value, std::move(name)});
  return absl::OkStatus();
}

absl::StatusOr<Graph> Capture::End() {
  if (ended_) return absl::FailedPreconditionError("Capture::End: called twice");
  if (std::this_thread::get_id() != thread_) {
    return absl::FailedPreconditionError(
        "Capture::End: called on another thread than the one that began the capture");
  }
  ended_ = true;
  scope_.reset();
  if (!recorder_->failure().ok()) return recorder_->failure();
  if (graph_->outputs.empty()) {
    return absl::FailedPreconditionError(
        "Capture::End: no output was marked; call Capture::Output on the results "
        "the graph should return");
  }
  Graph graph;
  graph.graph_ = graph_;
  graph.dispatcher_ = dispatcher_;
  return graph;
}

// ---- CompiledGraph -----------------------------------------------------------

absl::StatusOr<std::vector<core::Tensor>> CompiledGraph::Launch(
    absl::Span<const core::Tensor> inputs) const {
  if (!plan_) return absl::FailedPreconditionError("graph launch: the graph was never compiled");
  return RunPlan(*plan_, inputs);
}

std::string CompiledGraph::Describe(bool kernels) const {
  if (!plan_) return "not compiled\n";
  std::string out = plan_->description;
  if (kernels) {
    for (const FusedStep& step : plan_->fused) absl::StrAppend(&out, ToText(step.ir));
  }
  return out;
}

std::vector<const FusedKernel*> CompiledGraph::fused_kernels() const {
  std::vector<const FusedKernel*> out;
  if (plan_) {
    for (const FusedStep& step : plan_->fused) out.push_back(&step.ir);
  }
  return out;
}

const CompileStats& CompiledGraph::stats() const {
  static const CompileStats kEmpty;
  return plan_ ? plan_->stats : kEmpty;
}

}  // namespace sy::fusion
