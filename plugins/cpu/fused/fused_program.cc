// CompileProgram: the IR → a Program (Note [Tiled evaluator]).
#include "fused/fused_program.h"

#include <algorithm>

#include "switchyard/plugin/fused_ir.hpp"

namespace sy::cpu::fusion {

using ::sy::plugin::fused::Arity;
using ::sy::plugin::fused::IsReduce;

Kind KindOf(sy_dtype_t dtype) {
  return ::sy::plugin::fused::ComputesInDouble(dtype) ? Kind::kF64 : Kind::kF32;
}

std::unique_ptr<Program> CompileProgram(const sy_fused_kernel_t& k, std::string* error) {
  auto p = std::make_unique<Program>();
  p->name = k.name != nullptr ? k.name : "fused";
  // A rank-0 domain runs as [1]: one element, no operand moves.
  ::sy::plugin::fused::Domain domain;
  if (!::sy::plugin::fused::ReadDomain(k, &domain, error)) return nullptr;
  p->ndim = domain.ndim;
  p->reduce_ndim = domain.reduce_ndim;
  for (int d = 0; d < p->ndim; ++d) p->shape[d] = domain.shape[d];
  p->rows = domain.rows;
  p->row_length = domain.row_length;
  auto copy = [&](const sy_fused_operand_t* list, int32_t count, std::vector<Operand>& out) {
    for (int32_t i = 0; i < count; ++i) {
      Operand o;
      o.dtype = list[i].dtype;
      for (int d = 0; d < k.ndim; ++d) o.strides[d] = list[i].strides[d];
      out.push_back(o);
    }
  };
  copy(k.inputs, k.num_inputs, p->inputs);
  copy(k.outputs, k.num_outputs, p->outputs);
  p->num_stages = k.num_stages;
  p->row_steps.resize(k.num_stages);
  p->elem_steps.resize(k.num_stages);
  const int n = k.num_instrs;
  p->steps.resize(n);
  p->broadcast_slot.assign(n, -1);
  p->stage_fills.resize(k.num_stages);
  for (int i = 0; i < n; ++i) {
    const sy_fused_instr_t& in = k.instrs[i];
    Step& s = p->steps[i];
    s.op = in.op;
    s.dtype = in.dtype;
    s.kind = ::sy::plugin::fused::IsCompare(in.op) ? Kind::kF32 : KindOf(in.dtype);
    s.a = in.a;
    s.b = in.b;
    s.c = in.c;
    s.index = in.index;
    s.stage = in.stage;
    s.per_row = in.row_level == 1;
    s.imm = in.imm;
    if (s.per_row) {
      p->row_steps[s.stage].push_back(i);
    } else if (s.op != SY_FUSED_CONST) {
      p->elem_steps[s.stage].push_back(i);
    }
  }
  // Buffers for values per-element steps read but that do not vary over a
  // tile: per-row values, reductions and per-element constants.
  int slots = 0;
  for (int i = 0; i < n; ++i) {
    const Step& s = p->steps[i];
    if (s.per_row) continue;
    const int32_t ops[3] = {s.a, s.b, s.c};
    for (int j = 0; j < Arity(s.op); ++j) {
      const Step& src = p->steps[ops[j]];
      const bool constant_over_tile =
          src.per_row || IsReduce(src.op) || src.op == SY_FUSED_CONST;
      if (!constant_over_tile) continue;
      if (p->broadcast_slot[ops[j]] < 0) {
        p->broadcast_slot[ops[j]] = slots++;
        p->broadcast_values.push_back(ops[j]);
      }
      std::vector<int>& fills = p->stage_fills[s.stage];
      if (src.op != SY_FUSED_CONST &&
          std::find(fills.begin(), fills.end(), ops[j]) == fills.end()) {
        fills.push_back(ops[j]);
      }
    }
  }
  // Tile buffers for the other per-element values, reused within a stage
  // once their last reader has run.
  int most = slots;
  for (int stage = 0; stage < k.num_stages; ++stage) {
    const std::vector<int>& list = p->elem_steps[stage];
    std::vector<int> last_use(n, -1);
    for (size_t pos = 0; pos < list.size(); ++pos) {
      const Step& s = p->steps[list[pos]];
      const int32_t ops[3] = {s.a, s.b, s.c};
      for (int j = 0; j < Arity(s.op); ++j) last_use[ops[j]] = static_cast<int>(pos);
    }
    std::vector<int> free_slots;
    std::vector<std::pair<int, int>> live;  // (value, slot)
    int next = slots;
    for (size_t pos = 0; pos < list.size(); ++pos) {
      const int i = list[pos];
      Step& s = p->steps[i];
      // Values whose last reader came before this step free their buffers;
      // this step's own operands stay (its output must not overlap them).
      for (auto it = live.begin(); it != live.end();) {
        if (last_use[it->first] < static_cast<int>(pos)) {
          free_slots.push_back(it->second);
          it = live.erase(it);
        } else {
          ++it;
        }
      }
      if (s.op == SY_FUSED_STORE || IsReduce(s.op)) continue;
      if (free_slots.empty()) {
        s.slot = next++;
      } else {
        s.slot = free_slots.back();
        free_slots.pop_back();
      }
      live.push_back({i, s.slot});
    }
    most = std::max(most, next);
  }
  p->num_slots = most;
  return p;
}

}  // namespace sy::cpu::fusion
