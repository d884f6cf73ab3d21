// The core's decomposition functions, one family per file; installed on
// their ops by core_decompositions.cc. Internal to dispatcher/.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_DECOMPOSITIONS_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_DECOMPOSITIONS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/memory/tensor.h"

namespace sy::core::decompositions {

using Result = absl::StatusOr<std::vector<Tensor>>;

// basic.cc
Result Contiguous(Runtime& runtime, const DecompositionArgs& args);
Result Square(Runtime& runtime, const DecompositionArgs& args);
Result Linear(Runtime& runtime, const DecompositionArgs& args);
// Binary, compare and where ops whose tensor inputs differ in dtype: casts
// them to the promoted dtype and calls the op again. Declines (see
// DeclineDecomposition) when the dtypes already agree, so a missing
// same-dtype kernel is reported as such.
Result PromoteInputs(Runtime& runtime, const DecompositionArgs& args);

// activations.cc
Result Gelu(Runtime& runtime, const DecompositionArgs& args);
Result Silu(Runtime& runtime, const DecompositionArgs& args);

// normalization.cc
Result Softmax(Runtime& runtime, const DecompositionArgs& args);
Result LogSoftmax(Runtime& runtime, const DecompositionArgs& args);
Result LayerNorm(Runtime& runtime, const DecompositionArgs& args);
Result RmsNorm(Runtime& runtime, const DecompositionArgs& args);

// attention.cc
Result ScaledDotProductAttention(Runtime& runtime,
                                 const DecompositionArgs& args);

// The dtype a floating op computes in: f32 for f16, bf16, integers and
// bool; the input's own dtype for f32 and f64.
sy_dtype_t ComputeDtype(sy_dtype_t input);
// The dtype a floating op returns (docs/ops.md): the input's for floating
// inputs, f32 otherwise.
sy_dtype_t FloatResultDtype(sy_dtype_t input);

}  // namespace sy::core::decompositions

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_DECOMPOSITIONS_H_
