#include "fusion/describe_json.h"

#include <nlohmann/json.hpp>

#include "dispatcher/ops/dtype.h"
#include "fusion/capture/op_graph.h"
#include "fusion/compile/plan.h"

namespace sy::fusion {
namespace {

using nlohmann::json;

json MetaJson(const std::string& name, const sy_tensor_meta_t& meta,
              const core::Device& device) {
  return {{"name", name},
          {"dtype", std::string(core::DTypeName(meta.dtype))},
          {"shape", std::vector<int64_t>(meta.shape, meta.shape + meta.ndim)},
          {"device", device.label()}};
}

json Outputs(const OpGraph& g) {
  json out = json::array();
  for (const GraphOutput& o : g.outputs) {
    const Value& v = g.values[o.value];
    out.push_back(MetaJson(o.name, v.meta, *g.buffers[v.buffer].device));
  }
  return out;
}

json Stats(const CompileStats& s) {
  return {{"captured_ops", s.captured_ops},
          {"ops_after_decomposition", s.ops_after_decomposition},
          {"dead_ops", s.dead_ops},
          {"merged_ops", s.merged_ops},
          {"patterns", s.patterns},
          {"fused_groups", s.fused_groups},
          {"fused_ops", s.fused_ops},
          {"unfused_groups", s.unfused_groups},
          {"kernels_compiled", s.kernels_compiled},
          {"kernels_from_memory", s.kernels_from_memory},
          {"kernels_from_disk", s.kernels_from_disk},
          {"codegen_ms", s.codegen_ms},
          {"launch_measured", s.launch_measured},
          {"launch_cached", s.launch_cached},
          {"launch_tune_ms", s.launch_tune_ms},
          {"total_ms", s.total_ms}};
}

json Steps(const Plan& plan) {
  const OpGraph& g = plan.graph;
  json steps = json::array();
  for (const Step& step : plan.steps) {
    if (step.kind == Step::Kind::kFused) {
      const FusedStep& f = plan.fused[step.index];
      json ops = json::array();
      for (int n : f.nodes) ops.push_back(g.nodes[n].name());
      json s = {{"kind", "fused"},
                {"device", f.device->label()},
                {"plugin", f.kernel->plugin()},
                {"kernel", f.ir.name},
                {"launch_config", f.kernel->config()},
                {"ops", ops}};
      if (!f.launch.empty()) s["launch"] = f.launch;
      if (f.ir.reduce_ndim > 0) {
        s["rows"] = f.ir.rows();
        s["row_length"] = f.ir.row_length();
      } else {
        int64_t elements = 1;
        for (int d = 0; d < f.ir.ndim; ++d) elements *= f.ir.shape[d];
        s["elements"] = elements;
      }
      steps.push_back(std::move(s));
    } else {
      const Node& node = g.nodes[step.index];
      const size_t n = static_cast<size_t>(step.index);
      steps.push_back({{"kind", "op"},
                       {"id", step.index},
                       {"op", node.name()},
                       {"device", node.device->label()},
                       {"runs", node.resolution},
                       {"not_fused", n < plan.why_not.size() ? plan.why_not[n] : ""}});
    }
  }
  return steps;
}

}  // namespace

std::string DescribeJson(const Graph& graph, const CompiledGraph* compiled) {
  const OpGraph& g = graph.graph();
  json doc;
  doc["compiled"] = compiled != nullptr && compiled->plan() != nullptr;
  json inputs = json::array();
  for (const GraphInput& in : g.inputs) inputs.push_back(MetaJson(in.name, in.meta, *in.device));
  doc["inputs"] = std::move(inputs);
  doc["outputs"] = Outputs(g);
  json captured = json::array();
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    const Node& node = g.nodes[n];
    if (node.dead) continue;
    captured.push_back({{"id", n},
                        {"op", node.name()},
                        {"device", node.device->label()},
                        {"runs", node.resolution}});
  }
  doc["captured"] = std::move(captured);
  if (doc["compiled"].get<bool>()) {
    const Plan& plan = *compiled->plan();
    doc["stats"] = Stats(plan.stats);
    doc["steps"] = Steps(plan);
    doc["notes"] = plan.notes;
  }
  // Op names and labels are UTF-8 from our own registries; replace guards
  // against a plugin's odd bytes rather than throwing.
  return doc.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace sy::fusion
