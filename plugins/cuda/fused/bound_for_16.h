// Note [f32 values bound for 16 bits]: an op's decomposition computes in
// f32 and casts its result to the input's f16 or bf16 (softmax in bf16:
// x → f32, max, exp(x − max), sum, e / sum → bf16; dispatcher/dispatch/
// decompositions/normalization.cc). Its f32 exps and divisions then need
// only what the 16-bit result can hold, as the ops of a graph written in
// 16 bits do (Note [16-bit results] in cuda_spelling.cc), but the
// accurate f32 functions made the fused bf16 softmax compute-bound: 0.60–
// 0.63 of copy bandwidth over vocabulary rows on the H200, against 0.89–
// 0.94 for log_softmax, which takes one exp an element and no division
// (docs/performance.md, "2026-11-29 (twentieth session)").
//
// An f32 value is bound for 16 bits when every use of it is one that keeps
// its relative error: a cast to f16 or bf16, a store to an f16 or bf16
// output, a product or quotient that is itself bound for 16 bits, or — for
// an exp, whose values are never negative — a sum over the row that is.
// Along such uses a relative error of 2^-20 stays about that, far inside
// half an ulp of the 16-bit result. A difference, a compare, a max, a cast
// to another type, or an f32 output ends it: a difference of approximate
// values can cancel, and a compare can flip.
//
// This file finds those values; the generator (cuda_codegen.cc) gives the
// exps and divisions among them the 16-bit spelling (Sixteen).
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_BOUND_FOR_16_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_BOUND_FOR_16_H_

#include <vector>

#include "switchyard/plugin.h"

namespace sy::cuda::fusion {

// Per instruction of `kernel`: whether it is an f32 value bound for 16
// bits (above). Instructions with no use are not.
std::vector<bool> BoundFor16Bits(const sy_fused_kernel_t& kernel);

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_BOUND_FOR_16_H_
