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
Result Contiguous(Dispatcher& runtime, const DecompositionArgs& args);
Result Square(Dispatcher& runtime, const DecompositionArgs& args);
Result Linear(Dispatcher& runtime, const DecompositionArgs& args);
// Binary, compare and where ops whose tensor inputs differ in dtype: casts
// them to the promoted dtype and calls the op again. Applies only when the
// dtypes differ (InputsNeedPromotion), so a missing same-dtype kernel is
// reported as such.
Result PromoteInputs(Dispatcher& runtime, const DecompositionArgs& args);
// Whether PromoteInputs applies: the inputs (where's condition aside) do
// not all share one dtype.
bool InputsNeedPromotion(const OpDef& op,
                         absl::Span<const sy_tensor_meta_t> inputs);

// activations.cc
Result Gelu(Dispatcher& runtime, const DecompositionArgs& args);
Result Silu(Dispatcher& runtime, const DecompositionArgs& args);

// normalization.cc
Result Softmax(Dispatcher& runtime, const DecompositionArgs& args);
Result LogSoftmax(Dispatcher& runtime, const DecompositionArgs& args);
Result LayerNorm(Dispatcher& runtime, const DecompositionArgs& args);
Result RmsNorm(Dispatcher& runtime, const DecompositionArgs& args);

// attention.cc
Result ScaledDotProductAttention(Dispatcher& runtime,
                                 const DecompositionArgs& args);

// The dtype a floating op computes in: f32 for f16, bf16, integers and
// bool; the input's own dtype for f32 and f64.
sy_dtype_t ComputeDtype(sy_dtype_t input);
// The dtype a floating op returns (docs/ops.md): the input's for floating
// inputs, f32 otherwise.
sy_dtype_t FloatResultDtype(sy_dtype_t input);

}  // namespace sy::core::decompositions

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_DECOMPOSITIONS_H_
