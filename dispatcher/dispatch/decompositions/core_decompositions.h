// Decompositions the core ships: ops expressed through other ops, so any
// backend with the primitives runs them (resolution step 4, after kernels).
// Each runs op by op through the dispatcher on the inputs' device; none
// reads tensor data on the host.
//
//   contiguous   copy, or the input itself when already contiguous
//   square       mul(x, x)
//   linear       matmul(x, transpose(weight)) [+ bias]
//   gelu         x·½(1 + erf(x/√2)), or the tanh form
//   silu         x·sigmoid(x)
//   softmax      exp(x − max) / Σ exp(x − max)
//   log_softmax  (x − max) − log Σ exp(x − max)
//   layer_norm   (x − mean)·rsqrt(var + eps) [·weight] [+ bias]
//   rms_norm     x·rsqrt(mean(x²) + eps)·weight
//   scaled_dot_product_attention
//                softmax(q·kᵀ·scale [masked]) · v
//   binary, compare and where ops with mixed input dtypes: cast each input
//                to the promoted dtype (docs/ops.md), then the op again.
//
// Floating ops on f16/bf16 inputs compute in f32 and cast back (the same
// rule the kernels follow); integer inputs of ops with a floating result are
// cast to f32 first.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_CORE_DECOMPOSITIONS_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_CORE_DECOMPOSITIONS_H_

#include "dispatcher/registry/op_registry.h"

namespace sy::core {

void InstallCoreDecompositions(OpRegistry& ops);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_DECOMPOSITIONS_CORE_DECOMPOSITIONS_H_
