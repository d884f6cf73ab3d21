// sy_graph_compile, sy_graph_launch, sy_graph_release and the queries: the
// C face of fusion::Compiler and fusion::CompiledGraph (fusion/graph.h).
// Capture is in c_graph_capture.cc.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "api/src/context_state.h"
#include "api/src/graph_object.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "autotune/tuner.h"
#include "dispatcher/base/small_vector.h"
#include "fusion/capture/op_graph.h"
#include "fusion/describe_json.h"
#include "fusion/graph.h"

namespace sy::capi {

std::shared_ptr<fusion::Compiler> ContextState::FusionCompiler() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fusion_compiler_ == nullptr) {
    fusion::CompilerOptions options;
    // Fused kernels' launch configurations follow the runtime's autotune
    // mode (fusion/backend/launch_tuning.h). libswitchyard makes every
    // runtime with autotune::MakeTunerFactory() (c_context.cc).
    options.launch.tuner = static_cast<autotune::Tuner*>(runtime->tuner());
    fusion_compiler_ = std::make_shared<fusion::Compiler>(*runtime, std::move(options));
  }
  return fusion_compiler_;
}

namespace {

absl::StatusOr<GraphObject*> GraphOf(sy_graph_t handle) {
  return HandleTable::Instance().Find<GraphObject>(Token(handle), "graph");
}

absl::Status CheckFlag(int32_t value, const char* field) {
  if (value == 0 || value == 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("args->", field, " is ", value, "; pass 0 or 1"));
}

absl::StatusOr<fusion::CompileOptions> CompileOptionsOf(const sy_graph_compile_args_t* args) {
  fusion::CompileOptions options;
  if (args == nullptr) return options;
  if (absl::Status s = CheckStructSize(args->struct_size, sizeof(*args), "args",
                                       "sy_graph_compile_args_t");
      !s.ok()) {
    return s;
  }
  for (auto [value, field] : {std::pair{args->fuse, "fuse"},
                              std::pair{args->plugin_compilers, "plugin_compilers"},
                              std::pair{args->decompose, "decompose"}}) {
    if (absl::Status s = CheckFlag(value, field); !s.ok()) return s;
  }
  options.fuse = args->fuse != 0;
  options.plugin_compilers = args->plugin_compilers != 0;
  options.decompose = args->decompose != 0;
  switch (args->patterns) {
    case SY_GRAPH_PATTERNS_MEASURED:
      options.patterns = fusion::CompileOptions::Patterns::kMeasured;
      break;
    case SY_GRAPH_PATTERNS_ALWAYS:
      options.patterns = fusion::CompileOptions::Patterns::kAlways;
      break;
    case SY_GRAPH_PATTERNS_OFF:
      options.patterns = fusion::CompileOptions::Patterns::kOff;
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "args->patterns is ", args->patterns, "; pass SY_GRAPH_PATTERNS_MEASURED (0), "
          "SY_GRAPH_PATTERNS_ALWAYS (1) or SY_GRAPH_PATTERNS_OFF (2)"));
  }
  return options;
}

absl::Status Compile(sy_graph_t handle, const sy_graph_compile_args_t* args) {
  absl::StatusOr<GraphObject*> graph = GraphOf(handle);
  if (!graph.ok()) return graph.status();
  absl::StatusOr<fusion::CompileOptions> options = CompileOptionsOf(args);
  if (!options.ok()) return options.status();
  std::shared_ptr<fusion::Compiler> compiler = (*graph)->keep_context->FusionCompiler();
  absl::StatusOr<fusion::CompiledGraph> compiled = compiler->Compile((*graph)->graph, *options);
  if (!compiled.ok()) return compiled.status();
  (*graph)->set_compiled(std::make_shared<const fusion::CompiledGraph>(*std::move(compiled)));
  return absl::OkStatus();
}

std::string InputNames(const fusion::OpGraph& g) {
  std::vector<std::string> names;
  for (const fusion::GraphInput& in : g.inputs) names.push_back(absl::StrCat("'", in.name, "'"));
  return absl::StrJoin(names, ", ");
}

absl::Status Launch(sy_graph_t handle, const sy_tensor_t* inputs, int32_t num_inputs,
                    sy_tensor_t* out_outputs, int32_t num_outputs) {
  absl::StatusOr<GraphObject*> found = GraphOf(handle);
  if (!found.ok()) return found.status();
  GraphObject& graph = **found;
  const fusion::OpGraph& g = graph.graph.graph();
  if (absl::Status s = CheckArray(inputs, num_inputs, "inputs"); !s.ok()) return s;
  if (absl::Status s = CheckNotNull(out_outputs, "out_outputs"); !s.ok()) return s;
  if (num_inputs != graph.graph.num_inputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the graph takes ", graph.graph.num_inputs(), " input(s) (", InputNames(g),
        ") but num_inputs is ", num_inputs, "; pass one tensor per declared input, in "
        "the order of sy_graph_capture_input"));
  }
  if (num_outputs != graph.graph.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the graph returns ", graph.graph.num_outputs(), " output(s) but num_outputs is ",
        num_outputs, "; pass room for exactly that many"));
  }
  std::shared_ptr<const fusion::CompiledGraph> compiled = graph.compiled();
  if (compiled == nullptr) {
    return absl::FailedPreconditionError(
        "the graph was never compiled; call sy_graph_compile first");
  }
  std::vector<Tensor> tensors;
  tensors.reserve(num_inputs);
  for (int32_t i = 0; i < num_inputs; ++i) {
    // The input's name goes into messages only: no string per launch.
    auto what = [&] { return absl::StrCat("input #", i, " ('", g.inputs[i].name, "')"); };
    absl::StatusOr<TensorObject*> t = TensorOf(inputs[i], "input");
    if (!t.ok()) t = TensorOf(inputs[i], what());
    if (!t.ok()) return t.status();
    if ((*t)->context != graph.context) {
      return absl::InvalidArgumentError(absl::StrCat(
          what(), " belongs to another context than the graph; move it over with "
          "DLPack or a host copy"));
    }
    tensors.push_back((*t)->tensor);
  }
  absl::StatusOr<std::vector<Tensor>> outputs = compiled->Launch(tensors);
  if (!outputs.ok()) return outputs.status();
  std::vector<uint64_t> made;
  for (Tensor& t : *outputs) {
    absl::StatusOr<sy_tensor_t> h = NewTensorHandle(*graph.keep_context, std::move(t));
    if (!h.ok()) {
      for (uint64_t token : made) HandleTable::Instance().Discard(token);
      return h.status();
    }
    made.push_back(Token(*h));
  }
  for (size_t j = 0; j < made.size(); ++j) out_outputs[j] = FromToken<sy_tensor_t>(made[j]);
  return absl::OkStatus();
}

absl::Status GetInfo(sy_graph_t handle, sy_graph_info_t* out_info) {
  absl::StatusOr<GraphObject*> graph = GraphOf(handle);
  if (!graph.ok()) return graph.status();
  if (absl::Status s = CheckOutStruct(out_info, sizeof(*out_info), "out_info",
                                      "sy_graph_info_t");
      !s.ok()) {
    return s;
  }
  sy_graph_info_t info{};
  info.num_inputs = (*graph)->graph.num_inputs();
  info.num_outputs = (*graph)->graph.num_outputs();
  info.num_ops = (*graph)->graph.num_ops();
  if (std::shared_ptr<const fusion::CompiledGraph> c = (*graph)->compiled()) {
    const fusion::CompileStats& s = c->stats();
    info.compiled = 1;
    info.fused_groups = s.fused_groups;
    info.fused_ops = s.fused_ops;
    info.unfused_groups = s.unfused_groups;
    info.patterns = s.patterns;
    info.kernels_compiled = s.kernels_compiled;
    info.kernels_from_memory = s.kernels_from_memory;
    info.kernels_from_disk = s.kernels_from_disk;
    info.compile_ms = s.total_ms;
  }
  WriteOutStruct(out_info, info);
  return absl::OkStatus();
}

absl::Status GetValue(sy_graph_t handle, int32_t is_output, int32_t index,
                      sy_graph_value_info_t* out_value) {
  absl::StatusOr<GraphObject*> graph = GraphOf(handle);
  if (!graph.ok()) return graph.status();
  if (absl::Status s = CheckOutStruct(out_value, sizeof(*out_value), "out_value",
                                      "sy_graph_value_info_t");
      !s.ok()) {
    return s;
  }
  if (is_output != 0 && is_output != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("is_output is ", is_output, "; pass 0 (inputs) or 1 (outputs)"));
  }
  const fusion::OpGraph& g = (*graph)->graph.graph();
  const int32_t count = static_cast<int32_t>(is_output ? g.outputs.size() : g.inputs.size());
  if (index < 0 || index >= count) {
    return absl::OutOfRangeError(absl::StrCat(is_output ? "output" : "input", " index ",
                                              index, " is outside [0, ", count, ")"));
  }
  const std::string* name;
  const sy_tensor_meta_t* meta;
  Device* device;
  if (is_output) {
    const fusion::Value& v = g.values[g.outputs[index].value];
    name = &g.outputs[index].name;
    meta = &v.meta;
    device = g.buffers[v.buffer].device;
  } else {
    name = &g.inputs[index].name;
    meta = &g.inputs[index].meta;
    device = g.inputs[index].device;
  }
  absl::StatusOr<uint64_t> device_handle = (*graph)->keep_context->DeviceHandle(device);
  if (!device_handle.ok()) return device_handle.status();
  sy_graph_value_info_t value{};
  value.name = name->c_str();
  value.dtype = meta->dtype;
  value.ndim = meta->ndim;
  for (int d = 0; d < meta->ndim; ++d) value.shape[d] = meta->shape[d];
  value.device = FromToken<sy_device_handle_t>(*device_handle);
  WriteOutStruct(out_value, value);
  return absl::OkStatus();
}

absl::Status Explain(sy_graph_t handle, int32_t flags, const char** out_text) {
  absl::StatusOr<GraphObject*> graph = GraphOf(handle);
  if (!graph.ok()) return graph.status();
  if (absl::Status s = CheckNotNull(out_text, "out_text"); !s.ok()) return s;
  constexpr int32_t kKnown = SY_GRAPH_EXPLAIN_JSON | SY_GRAPH_EXPLAIN_KERNELS;
  if ((flags & ~kKnown) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "flags ", flags, " has unknown bits; pass SY_GRAPH_EXPLAIN_JSON and/or "
        "SY_GRAPH_EXPLAIN_KERNELS"));
  }
  std::shared_ptr<const fusion::CompiledGraph> compiled = (*graph)->compiled();
  std::string text;
  if (flags & SY_GRAPH_EXPLAIN_JSON) {
    text = fusion::DescribeJson((*graph)->graph, compiled.get());
  } else if (compiled != nullptr) {
    text = compiled->Describe((flags & SY_GRAPH_EXPLAIN_KERNELS) != 0);
  } else {
    text = absl::StrCat((*graph)->graph.Describe(),
                        "not compiled yet: sy_graph_compile fuses it\n");
  }
  *out_text = KeepThreadText(std::move(text));
  return absl::OkStatus();
}

}  // namespace
}  // namespace sy::capi

using sy::capi::Guard;

extern "C" {

SY_API sy_status_code_t sy_graph_compile_args_init(sy_graph_compile_args_t* args) {
  return Guard("sy_graph_compile_args_init", [&]() -> absl::Status {
    if (absl::Status s = sy::capi::CheckNotNull(args, "args"); !s.ok()) return s;
    *args = sy_graph_compile_args_t{};
    args->struct_size = sizeof(*args);
    args->fuse = 1;
    args->plugin_compilers = 1;
    args->decompose = 1;
    args->patterns = SY_GRAPH_PATTERNS_MEASURED;
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_graph_compile(sy_graph_t graph,
                                         const sy_graph_compile_args_t* args) {
  return Guard("sy_graph_compile", [&] { return sy::capi::Compile(graph, args); });
}

SY_API sy_status_code_t sy_graph_launch(sy_graph_t graph, const sy_tensor_t* inputs,
                                        int32_t num_inputs, sy_tensor_t* out_outputs,
                                        int32_t num_outputs) {
  return Guard("sy_graph_launch", [&] {
    return sy::capi::Launch(graph, inputs, num_inputs, out_outputs, num_outputs);
  });
}

SY_API sy_status_code_t sy_graph_release(sy_graph_t graph) {
  return Guard("sy_graph_release", [&] {
    return sy::capi::HandleTable::Instance().Free(sy::capi::Token(graph),
                                                  sy::capi::HandleKind::kGraph, "graph");
  });
}

SY_API sy_status_code_t sy_graph_get_info(sy_graph_t graph, sy_graph_info_t* out_info) {
  return Guard("sy_graph_get_info", [&] { return sy::capi::GetInfo(graph, out_info); });
}

SY_API sy_status_code_t sy_graph_get_value(sy_graph_t graph, int32_t is_output,
                                           int32_t index, sy_graph_value_info_t* out_value) {
  return Guard("sy_graph_get_value",
               [&] { return sy::capi::GetValue(graph, is_output, index, out_value); });
}

SY_API sy_status_code_t sy_graph_explain(sy_graph_t graph, int32_t flags,
                                         const char** out_text) {
  return Guard("sy_graph_explain",
               [&] { return sy::capi::Explain(graph, flags, out_text); });
}

}  // extern "C"
