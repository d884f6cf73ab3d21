// What a compiled graph runs: its final op graph and the steps over it —
// an op called through the dispatcher, or a fused kernel launched — in an
// order where every step's inputs are ready.
//
// Thread-safety: a Plan is immutable once built; RunPlan may be called from
// several threads at once (each run has its own tensors).
#ifndef SWITCHYARD_FUSION_COMPILE_PLAN_H_
#define SWITCHYARD_FUSION_COMPILE_PLAN_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "fusion/backend/kernel_cache.h"
#include "fusion/capture/op_graph.h"
#include "fusion/graph.h"
#include "fusion/ir/fused_ir.h"

namespace sy::fusion {

struct FusedStep {
  std::shared_ptr<CompiledKernel> kernel;
  // Its launch configuration as Describe shows it ("tile 512 (2 of 3,
  // measured)"); "" when its plugin offers one.
  std::string launch;
  FusedKernel ir;
  std::vector<int> input_values;    // graph values bound to the IR inputs
  std::vector<int> output_buffers;  // graph buffers the IR outputs fill
  std::vector<int> nodes;           // the ops it stands for
  core::Device* device = nullptr;
};

struct Step {
  enum class Kind { kOp, kFused };
  Kind kind = Kind::kOp;
  int index = -1;  // kOp: a node; kFused: into Plan::fused
};

struct Plan {
  core::Dispatcher* dispatcher = nullptr;
  // The core's copy op, found once at compile time: a replay looks up no
  // op by name (a strided input, or an output a declining kernel left in
  // another layout, is copied by it).
  core::OpHandle copy;
  OpGraph graph;
  std::vector<FusedStep> fused;
  std::vector<Step> steps;
  std::string description;
  CompileStats stats;
  // By node of `graph`: why an op that runs alone was not fused ("" when
  // it was, or no reason was recorded).
  std::vector<std::string> why_not;
  // Remarks of the compilation (a plugin's hooks skipped, a group a plugin
  // refused and why).
  std::vector<std::string> notes;
};

absl::StatusOr<std::vector<core::Tensor>> RunPlan(const Plan& plan,
                                                  absl::Span<const core::Tensor> inputs);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_PLAN_H_
