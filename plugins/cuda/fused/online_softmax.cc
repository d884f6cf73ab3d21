// Online softmax pairs in the fused-kernel IR (Note [Online softmax]).
#include "fused/online_softmax.h"

#include <cstring>

#include "switchyard/plugin/fused_ir.hpp"

namespace sy::cuda::fusion {
namespace {

using ::sy::plugin::fused::Arity;
using ::sy::plugin::fused::ComputesInDouble;
using ::sy::plugin::fused::IsReduce;

// Whether instructions i and j compute the same value: the same op, dtype,
// operand index and constant, over operands that do. A reduction (or a
// row-level value) is the same only as itself: its result is one value of
// the row, whichever stage reads it.
bool Same(const sy_fused_kernel_t& k, int i, int j) {
  if (i == j) return true;
  if (i < 0 || j < 0) return false;
  const sy_fused_instr_t& a = k.instrs[i];
  const sy_fused_instr_t& b = k.instrs[j];
  if (IsReduce(a.op) || IsReduce(b.op) || a.row_level != 0 || b.row_level != 0) return false;
  if (a.op != b.op || a.dtype != b.dtype || a.index != b.index ||
      std::memcmp(&a.imm, &b.imm, sizeof a.imm) != 0) {
    return false;
  }
  const int32_t ops_a[3] = {a.a, a.b, a.c}, ops_b[3] = {b.a, b.b, b.c};
  for (int n = 0; n < Arity(a.op); ++n) {
    if (!Same(k, ops_a[n], ops_b[n])) return false;
  }
  return true;
}

// The only reduction of `stage`, or -1 (none, or several).
int OnlyReduction(const sy_fused_kernel_t& k, int stage) {
  int found = -1;
  for (int i = 0; i < k.num_instrs; ++i) {
    if (k.instrs[i].stage != stage || !IsReduce(k.instrs[i].op)) continue;
    if (found >= 0) return -1;
    found = i;
  }
  return found;
}

// Marks i and what it reads in `stage` (an earlier stage's values are
// not this stage's work).
void MarkCone(const sy_fused_kernel_t& k, int i, int stage, std::vector<bool>* in_cone) {
  if (i < 0 || k.instrs[i].stage != stage || (*in_cone)[i]) return;
  (*in_cone)[i] = true;
  const sy_fused_instr_t& in = k.instrs[i];
  const int32_t ops[3] = {in.a, in.b, in.c};
  for (int n = 0; n < Arity(in.op); ++n) MarkCone(k, ops[n], stage, in_cone);
}

}  // namespace

std::vector<OnlinePair> FindOnlinePairs(const sy_fused_kernel_t& k) {
  std::vector<OnlinePair> pairs;
  if (k.reduce_ndim < 1) return pairs;
  for (int s = 0; s + 1 < k.num_stages; ++s) {
    const int m = OnlyReduction(k, s);
    const int sum = OnlyReduction(k, s + 1);
    if (m < 0 || sum < 0) continue;
    const sy_fused_instr_t& max_in = k.instrs[m];
    const sy_fused_instr_t& sum_in = k.instrs[sum];
    if (max_in.op != SY_FUSED_REDUCE_MAX || sum_in.op != SY_FUSED_REDUCE_SUM ||
        ComputesInDouble(max_in.dtype) || ComputesInDouble(sum_in.dtype)) {
      continue;
    }
    // sum = REDUCE_SUM(EXP(SUB(X', max))), X' the same as max's operand.
    const int e = sum_in.a;
    if (e < 0 || k.instrs[e].op != SY_FUSED_EXP || k.instrs[e].stage != s + 1) continue;
    const int d = k.instrs[e].a;
    if (d < 0 || k.instrs[d].op != SY_FUSED_SUB || k.instrs[d].stage != s + 1 ||
        k.instrs[d].b != m || !Same(k, k.instrs[d].a, max_in.a)) {
      continue;
    }
    // Stage s + 1 is the sum's cone and nothing else.
    std::vector<bool> in_cone(k.num_instrs, false);
    MarkCone(k, sum, s + 1, &in_cone);
    bool alone = true;
    for (int i = 0; i < k.num_instrs && alone; ++i) {
      alone = k.instrs[i].stage != s + 1 || in_cone[i];
    }
    if (alone) pairs.push_back({m, sum});
  }
  return pairs;
}

}  // namespace sy::cuda::fusion
