// Which ops of the core set the fusion pass can put into a fused kernel,
// and the IR instructions each becomes (Note [Fused-kernel IR]).
//
// Elementwise (one output, every input broadcast to it): the unary ops,
// the binary ops (.Tensor and .Scalar), compares, where, cast, copy and
// fill.Scalar, when the output is floating or bool (compares, casts to
// bool) — integer arithmetic stays with the kernels, which define its
// overflow and division-by-zero behaviour; casts to integer dtypes too.
// Reductions: sum, mean, max and min of a floating tensor over some dims.
// Every dtype an op reads or writes must be one the backend accepts.
//
// Thread-safety: pure functions.
#ifndef SWITCHYARD_FUSION_COMPILE_OP_TABLE_H_
#define SWITCHYARD_FUSION_COMPILE_OP_TABLE_H_

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "fusion/backend/backends.h"
#include "fusion/capture/op_graph.h"
#include "fusion/ir/fused_ir.h"

namespace sy::fusion {

enum class FusedRole { kNone, kElementwise, kReduction };

// How `node` may be fused on `backend`; kNone with the reason in *why.
FusedRole Classify(const OpGraph& graph, const Node& node,
                   const FusionBackend& backend, std::string* why);

struct ReductionInfo {
  sy_fused_op_t op = SY_FUSED_REDUCE_SUM;
  bool mean = false;
  std::vector<int> dims;  // normalized, ascending; [] in the call = all
  bool keepdim = false;
};
// For a node Classify called kReduction.
ReductionInfo ReductionOf(const OpGraph& graph, const Node& node);

// Appends the instructions of elementwise `node` to `kernel`, given the
// instructions that hold its tensor inputs (flattened order), all of one
// `stage` and `row_level`; returns the instruction that holds its output.
// Constants and casts it needs are appended too.
int32_t EmitElementwise(FusedKernel& kernel, const OpGraph& graph,
                        const Node& node, absl::Span<const int32_t> operands,
                        int32_t stage, int32_t row_level);

// Appends `value` as an instruction of `dtype` (a CAST when it differs).
int32_t EmitCast(FusedKernel& kernel, int32_t value, sy_dtype_t dtype,
                 int32_t stage, int32_t row_level);

// Appends a CONST of `dtype` holding `value`.
int32_t EmitConst(FusedKernel& kernel, double value, sy_dtype_t dtype,
                  int32_t stage, int32_t row_level);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_OP_TABLE_H_
