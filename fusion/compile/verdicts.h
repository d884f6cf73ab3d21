// Measured verdicts of the pattern pass (CompileOptions::Patterns::
// kMeasured): whether a replacement kernel is faster than its match as the
// plan would run the match without it.
//
// Note [Verdicts against the plan]
// A match's trailing ops are often elementwise ops the device's fusion
// backend takes (matmul → add → gelu: add and gelu). Left in the graph,
// they do not run one kernel each: the partitioner fuses them into one
// kernel, or into the group of a consumer they feed. Timing the
// replacement against the match op by op therefore favoured every
// replacement that swallows an elementwise op, even where the ops it
// swallowed would have cost nothing: onednn::matmul_add was taken for the
// up-projection of a transformer block (faster than matmul + add), which
// left gelu on its own — slower than matmul followed by the fused add +
// gelu the plan makes without the pattern. So the match is priced as the
// plan would run it (PlanWithout):
//
// - ops before the trailing elementwise run (the matmul) are their own
//   kernels: their times add up;
// - the trailing elementwise run, where a consumer of the match's result
//   is an op the backend fuses too, joins that consumer's group: one
//   memory pass that the consumer makes either way, so it adds nothing;
// - else it is one fused kernel of its own, priced at its slowest op alone
//   (a fused elementwise group is one pass over the largest operands,
//   about what its slowest op costs on its own).
//
// Each op is timed alone on scratch inputs (the match's shapes and
// layouts), after a warm-up, as the median of a few batches. The pricing
// of fused runs is an estimate, not a compile of the group: compiling it
// here would mean the fused-kernel toolchain inside the pattern pass.
//
// Thread-safety: runs on the calling thread; real kernels run while it
// measures. The verdict cache is locked.
#ifndef SWITCHYARD_FUSION_COMPILE_VERDICTS_H_
#define SWITCHYARD_FUSION_COMPILE_VERDICTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/memory/tensor.h"
#include "fusion/backend/backends.h"
#include "fusion/capture/op_graph.h"

namespace sy::fusion {

// How the plan would run a match's nodes without the replacement.
struct Unreplaced {
  enum class Run { kAlone, kFusedGroup, kJoinsConsumer };
  std::vector<Run> runs;     // per match node, in match order
  int consumer = -1;         // the node the joining ops' group belongs to
  // "matmul %0 alone; add.Tensor %1, gelu %2 fused (their slowest op)".
  std::string Describe(const OpGraph& g, const std::vector<int>& nodes) const;
  // For verdict keys: "AFJ…" per node.
  std::string Key() const;
};

// Note [Verdicts against the plan]. `nodes` are the match's nodes (the
// last one's single output is the match's result).
// `consumers` is g.ConsumersByBuffer().
Unreplaced PlanWithout(const OpGraph& g, const std::vector<int>& nodes,
                       const std::vector<std::vector<int>>& consumers,
                       const Backends& backends);

struct VerdictTimes {
  double replacement_us = 0;
  double unreplaced_us = 0;
};

// Times `replacement` (a node calling the replacement op on the match's
// inputs) and each match node alone on `inputs` (values of the graph
// values in `match_inputs`), and prices the match by `plan`.
absl::StatusOr<VerdictTimes> MeasureVerdict(core::Dispatcher& d, const OpGraph& g,
                                            const std::vector<int>& nodes,
                                            const std::vector<int>& match_inputs,
                                            const Unreplaced& plan, const Node& replacement,
                                            const std::vector<core::Tensor>& inputs);

// The process's verdicts, by key: whether the replacement was faster.
std::optional<bool> FindVerdict(const std::string& key);
void KeepVerdict(const std::string& key, bool faster);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_VERDICTS_H_
