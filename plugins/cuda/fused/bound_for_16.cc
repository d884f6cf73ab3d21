// f32 values bound for 16 bits in the fused-kernel IR (Note [f32 values
// bound for 16 bits] in bound_for_16.h).
#include "fused/bound_for_16.h"

#include "fused/cuda_spelling.h"
#include "switchyard/plugin/fused_ir.hpp"

namespace sy::cuda::fusion {
namespace {

using ::sy::plugin::fused::Arity;

// Whether instruction u's use of value i keeps i bound for 16 bits, given
// the verdicts of the instructions after i (bound[u] for u > i).
bool KeepsBound(const sy_fused_kernel_t& k, const std::vector<bool>& bound, int i, int u) {
  const sy_fused_instr_t& use = k.instrs[u];
  switch (use.op) {
    case SY_FUSED_CAST:
      return IsSixteenBit(use.dtype);
    case SY_FUSED_STORE:
      return use.index >= 0 && use.index < k.num_outputs && IsSixteenBit(k.outputs[use.index].dtype);
    case SY_FUSED_MUL:
    case SY_FUSED_DIV:
      return use.dtype == SY_DTYPE_F32 && bound[u];
    case SY_FUSED_REDUCE_SUM:
      return k.instrs[i].op == SY_FUSED_EXP && use.dtype == SY_DTYPE_F32 && bound[u];
    default:
      return false;
  }
}

}  // namespace

std::vector<bool> BoundFor16Bits(const sy_fused_kernel_t& k) {
  const int n = k.num_instrs;
  std::vector<bool> bound(n, false);
  std::vector<bool> used(n, false), all_keep(n, true);
  // Uses come after what they use, so one pass from the end decides each
  // value after all of its uses.
  for (int u = n - 1; u >= 0; --u) {
    bound[u] = k.instrs[u].dtype == SY_DTYPE_F32 && used[u] && all_keep[u];
    const sy_fused_instr_t& use = k.instrs[u];
    const int32_t ops[3] = {use.a, use.b, use.c};
    for (int o = 0; o < Arity(use.op); ++o) {
      const int i = ops[o];
      if (i < 0 || i >= u) continue;
      used[i] = true;
      if (!KeepsBound(k, bound, i, u)) all_keep[i] = false;
    }
  }
  return bound;
}

}  // namespace sy::cuda::fusion
