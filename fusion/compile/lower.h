// Lowering: one fusion group (partition.h) → one fused kernel in the IR
// (Note [Fused-kernel IR]) and the graph values and buffers it binds.
//
// The domain is S reordered so the reduced dims come last and the others
// follow the first stored output's memory order, with adjacent dims merged
// where every operand allows it and size-1 dims dropped (so a contiguous
// or channels-last elementwise group is one long dim, and softmax over the
// last dim of [B, T, C] is rows × C). Outputs are written in the layout
// the capture recorded for them. Stages follow the reductions: a value that
// depends on a reduction of stage s is computed in stage s+1 or later; a
// per-element value a later stage needs again is recomputed there from the
// inputs (reading them again from memory, where a row is still cached)
// rather than kept. Each stored value is written in the first stage that
// has it.
//
// Thread-safety: pure function.
#ifndef SWITCHYARD_FUSION_COMPILE_LOWER_H_
#define SWITCHYARD_FUSION_COMPILE_LOWER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "fusion/capture/op_graph.h"
#include "fusion/compile/partition.h"
#include "fusion/ir/fused_ir.h"

namespace sy::fusion {

struct LoweredGroup {
  FusedKernel kernel;
  std::vector<int> input_values;    // graph value of each IR input
  std::vector<int> output_buffers;  // graph buffer of each IR output
};

// `stored`: the buffers of the group it must write (StoredBuffers).
// FailedPrecondition when the kernel breaks the backend's limits.
absl::StatusOr<LoweredGroup> Lower(const OpGraph& graph, const Group& group,
                                   const std::vector<int>& stored,
                                   const std::string& name);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_LOWER_H_
