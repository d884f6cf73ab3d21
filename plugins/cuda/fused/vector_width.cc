#include "fused/vector_width.h"

#include <algorithm>

#include "fused/cuda_spelling.h"

namespace sy::cuda::fusion {
namespace {

using ::sy::plugin::fused::OperandPlan;

// Whether every operand read along the row has the same row offsets (the
// same strides over the kept dims), and at least one does.
bool SameRowOffsets(const std::vector<OperandPlan>& operands, int ndim) {
  const OperandPlan* first = nullptr;
  for (const OperandPlan& p : operands) {
    if (!p.unit_inner || p.all_zero) continue;
    if (first == nullptr) {
      first = &p;
      continue;
    }
    for (int d = 0; d < ndim - 1; ++d) {
      if (p.strides[d] != first->strides[d]) return false;
    }
  }
  return first != nullptr;
}

}  // namespace

VectorPlan PlanVectorWidth(const std::vector<OperandPlan>& operands, const int64_t* shape,
                           int ndim, int reduce_ndim) {
  VectorPlan plan;
  int widest = 1;
  bool ok = true;
  for (const OperandPlan& p : operands) {
    if (p.all_zero) continue;
    if (!p.unit_inner && !p.zero_inner) ok = false;
    if (p.unit_inner) widest = std::max(widest, StorageOf(p.dtype).size);
  }
  const int want = ok && 16 / widest >= 2 ? 16 / widest : 1;
  int vec = want;
  while (vec > 1 && shape[ndim - 1] % vec != 0) vec /= 2;
  for (const OperandPlan& p : operands) {
    if (!p.unit_inner) continue;
    const int size = StorageOf(p.dtype).size;
    for (int d = 0; d < ndim - 1; ++d) {
      while (vec > 1 && (p.strides[d] * size) % (vec * size) != 0) vec /= 2;
    }
  }
  if (reduce_ndim == 1 && vec < want && SameRowOffsets(operands, ndim)) {
    vec = want;
    plan.shifted = true;
  }
  plan.vec = vec;
  if (vec == 1) return plan;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].unit_inner || operands[i].all_zero) continue;
    plan.aligned.push_back(static_cast<int>(i));
    if (plan.shift_operand < 0 && plan.shifted) plan.shift_operand = static_cast<int>(i);
  }
  return plan;
}

int FlatVectorWidth(const std::vector<OperandPlan>& operands, const int64_t* shape, int ndim) {
  int64_t contiguous[SY_MAX_RANK] = {};
  int64_t acc = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    contiguous[d] = shape[d] == 1 ? 0 : acc;
    acc *= shape[d];
  }
  int widest = 1;
  for (const OperandPlan& p : operands) {
    if (p.all_zero) continue;
    if (!p.unit_inner) return 1;
    for (int d = 0; d < ndim; ++d) {
      if (p.strides[d] != contiguous[d]) return 1;
    }
    widest = std::max(widest, StorageOf(p.dtype).size);
  }
  const bool any = std::any_of(operands.begin(), operands.end(),
                               [](const OperandPlan& p) { return !p.all_zero; });
  return any && 16 / widest >= 2 ? 16 / widest : 1;
}

}  // namespace sy::cuda::fusion
