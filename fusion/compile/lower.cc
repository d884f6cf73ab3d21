#include "fusion/compile/lower.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "fusion/compile/op_table.h"

namespace sy::fusion {
namespace {

bool Contains(const std::vector<int>& sorted, int x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

// An operand of the kernel before the domain is reordered and merged.
struct RawOperand {
  sy_dtype_t dtype = 0;
  std::vector<int64_t> strides;  // over S
};

// The domain after reordering (reduced dims last), merging and dropping
// size-1 dims: which dims of S make up each new dim.
struct DomainPlan {
  std::vector<int64_t> shape;
  std::vector<std::vector<int>> parts;  // dims of S, outermost first
  int reduce_ndim = 0;
};

// `first_store`: the operand whose memory order the kept dims take.
DomainPlan PlanDomain(const std::vector<int64_t>& S, const std::vector<int>& R,
                      const std::vector<RawOperand>& operands, const RawOperand& first_store) {
  DomainPlan plan;
  auto block = [&](bool reduced) {
    std::vector<int> dims;
    for (size_t d = 0; d < S.size(); ++d) {
      if (Contains(R, static_cast<int>(d)) == reduced && S[d] != 1) {
        dims.push_back(static_cast<int>(d));
      }
    }
    if (!reduced) {
      // The kept dims in the first store's memory order (Note [Elementwise
      // memory order] in switchyard/plugin/views.hpp): a channels-last
      // group merges into one dense dim, as a contiguous one does. The
      // reduced dims keep S's order, and with it each row's summation order.
      std::stable_sort(dims.begin(), dims.end(), [&](int a, int b) {
        return std::abs(first_store.strides[a]) > std::abs(first_store.strides[b]);
      });
    }
    if (reduced && dims.empty() && !R.empty()) dims.push_back(R.back());
    size_t first = plan.parts.size();
    for (int d : dims) {
      if (plan.parts.size() > first) {
        // Merge d into the previous new dim when every operand steps
        // through both as through one.
        const int p = plan.parts.back().back();
        bool merge = true;
        for (const RawOperand& o : operands) {
          if (o.strides[p] != o.strides[d] * S[d]) merge = false;
        }
        if (merge) {
          plan.parts.back().push_back(d);
          plan.shape.back() *= S[d];
          continue;
        }
      }
      plan.parts.push_back({d});
      plan.shape.push_back(S[d]);
    }
    return static_cast<int>(plan.parts.size() - first);
  };
  block(false);
  plan.reduce_ndim = block(true);
  return plan;
}

sy_fused_operand_t Finish(const RawOperand& raw, const DomainPlan& plan) {
  sy_fused_operand_t o{};
  o.dtype = raw.dtype;
  for (size_t i = 0; i < plan.parts.size(); ++i) {
    o.strides[i] = raw.strides[plan.parts[i].back()];  // the innermost part's
  }
  return o;
}

class Lowering {
 public:
  Lowering(const OpGraph& g, const Group& group, const std::vector<int>& stored)
      : g_(g), group_(group), stored_(stored), member_(g.nodes.size(), false) {
    for (int m : group.nodes) member_[m] = true;
  }

  absl::StatusOr<LoweredGroup> Run(const std::string& name) {
    const std::vector<int64_t>& S = group_.domain;
    const std::vector<int>& R = group_.reduce_dims;
    row_length_ = 1;
    for (int d : R) row_length_ *= S[d];
    // Rows of length 1 need no per-row values; rows of length 0 do (their
    // per-element loops never run, so row results must be per row).
    use_rows_ = !R.empty() && row_length_ != 1;

    // Operands over S: every read of a value from outside, every store.
    std::vector<RawOperand> raw;
    for (int m : group_.nodes) {
      for (int u : g_.nodes[m].inputs) {
        const int p = g_.Producer(u);
        if (p >= 0 && member_[p]) continue;
        std::vector<int64_t> strides = ExternalStrides(m, u);
        const auto key = std::make_pair(u, strides);
        if (input_index_.count(key)) continue;
        input_index_[key] = static_cast<int>(out_.input_values.size());
        out_.input_values.push_back(u);
        raw.push_back({g_.values[u].meta.dtype, strides});
      }
    }
    const size_t num_inputs = raw.size();
    for (int b : stored_) {
      // Written as the capture recorded the op's output (contiguous, or
      // channels-last: Note [Elementwise output layout]); the buffer holds
      // the output's elements densely either way, so the plan allocates it
      // by size and the captured views index it.
      const sy_tensor_meta_t& meta = g_.buffers[b].meta;
      int64_t written[SY_MAX_RANK];
      g_.WrittenStrides(b, written);
      RawOperand o{meta.dtype, std::vector<int64_t>(S.size(), 0)};
      const std::vector<int>& map = group_.maps.at(b);
      for (int j = 0; j < meta.ndim; ++j) {
        if (meta.shape[j] != 1) o.strides[map[j]] = written[j];
      }
      raw.push_back(o);
      out_.output_buffers.push_back(b);
    }
    const RawOperand none{0, std::vector<int64_t>(S.size(), 0)};  // no store: S's order
    const DomainPlan plan = PlanDomain(S, R, raw, raw.size() > num_inputs ? raw[num_inputs] : none);
    FusedKernel& k = out_.kernel;
    k.name = name;
    k.ndim = static_cast<int32_t>(plan.shape.size());
    k.reduce_ndim = plan.reduce_ndim;
    for (size_t i = 0; i < plan.shape.size(); ++i) k.shape[i] = plan.shape[i];
    for (size_t i = 0; i < raw.size(); ++i) {
      (i < num_inputs ? k.inputs : k.outputs).push_back(Finish(raw[i], plan));
    }

    // Stages: a reduction runs in the stage its input is ready in; its
    // result is ready one stage later.
    std::vector<int> avail(g_.nodes.size(), 0);
    int last = 0;
    for (int m : group_.nodes) {
      int ready = 0;
      for (int u : g_.nodes[m].inputs) {
        const int p = g_.Producer(u);
        if (p >= 0 && member_[p]) ready = std::max(ready, avail[p]);
      }
      if (IsReduction(m)) {
        reduce_stage_[m] = ready;
        last = std::max(last, ready);
        ready += 1;
      }
      avail[m] = ready;
    }
    for (int b : stored_) last = std::max(last, avail[g_.buffers[b].node]);
    k.num_stages = last + 1;

    for (int s = 0; s <= last; ++s) {
      for (int m : group_.nodes) {
        if (!IsReduction(m) || reduce_stage_[m] != s) continue;
        const ReductionInfo info = ReductionOf(g_, g_.nodes[m]);
        const int32_t x = EmitInput(m, g_.nodes[m].inputs[0], s, /*force_element=*/true);
        sy_fused_instr_t in = Instr(info.op, g_.values[g_.nodes[m].inputs[0]].meta.dtype, x);
        in.stage = s;
        reduce_instr_[m] = k.Add(in);
      }
      for (size_t i = 0; i < stored_.size(); ++i) {
        const int m = g_.buffers[stored_[i]].node;
        if (avail[m] != s) continue;
        const int32_t v = EmitMember(m, s, false);
        sy_fused_instr_t st = Instr(SY_FUSED_STORE, k.outputs[i].dtype, v);
        st.index = static_cast<int32_t>(i);
        st.stage = s;
        st.row_level = k.instrs[v].row_level == 1 || IsFusedReduce(k.instrs[v].op) ? 1 : 0;
        k.Add(st);
      }
    }
    if (absl::Status status = Validate(k); !status.ok()) return status;
    const FusionBackend& b = *group_.backend;
    if ((b.max_instrs > 0 && static_cast<int>(k.instrs.size()) > b.max_instrs) ||
        (b.max_inputs > 0 && static_cast<int>(k.inputs.size()) > b.max_inputs) ||
        (b.max_outputs > 0 && static_cast<int>(k.outputs.size()) > b.max_outputs)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the kernel has ", k.instrs.size(), " instructions, ", k.inputs.size(),
          " inputs and ", k.outputs.size(), " outputs, beyond what ",
          b.Describe(), " takes (", b.max_instrs, ", ", b.max_inputs, ", ",
          b.max_outputs, ")"));
    }
    return std::move(out_);
  }

 private:
  bool IsReduction(int m) const {
    const std::string& n = g_.nodes[m].op->full_name();
    return n == "sum" || n == "mean" || n == "max" || n == "min";
  }

  // Strides over S of value u read by member m from outside the group.
  std::vector<int64_t> ExternalStrides(int m, int u) const {
    const Value& v = g_.values[u];
    const std::vector<int> map = UseMap(g_, group_, m, u);
    std::vector<int64_t> strides(group_.domain.size(), 0);
    for (int i = 0; i < v.meta.ndim; ++i) {
      if (v.meta.shape[i] != 1) strides[map[i]] = v.strides[i];
    }
    return strides;
  }

  bool RowLevelStrides(const std::vector<int64_t>& strides) const {
    if (!use_rows_) return false;
    for (int d : group_.reduce_dims) {
      if (group_.domain[d] != 1 && strides[d] != 0) return false;
    }
    return true;
  }

  // Whether member m's value does not vary along the reduced dims.
  bool RowLevel(int m) const {
    if (!use_rows_) return false;
    const int b = g_.values[g_.nodes[m].outputs[0]].buffer;
    const sy_tensor_meta_t& meta = g_.buffers[b].meta;
    const std::vector<int>& map = group_.maps.at(b);
    for (int j = 0; j < meta.ndim; ++j) {
      if (meta.shape[j] != 1 && Contains(group_.reduce_dims, map[j])) return false;
    }
    return true;
  }

  // The instruction holding value u (read by member m) in stage s.
  int32_t EmitInput(int m, int u, int s, bool force_element) {
    const int p = g_.Producer(u);
    if (p >= 0 && member_[p]) return EmitMember(p, s, force_element);
    const std::vector<int64_t> strides = ExternalStrides(m, u);
    const int index = input_index_.at(std::make_pair(u, strides));
    const int row = !force_element && RowLevelStrides(strides) ? 1 : 0;
    const auto key = std::make_tuple(-1 - index, row ? -1 : s, row);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    sy_fused_instr_t in = Instr(SY_FUSED_LOAD, g_.values[u].meta.dtype);
    in.index = index;
    in.stage = s;
    in.row_level = row;
    return memo_[key] = out_.kernel.Add(in);
  }

  int32_t EmitMember(int m, int s, bool force_element) {
    FusedKernel& k = out_.kernel;
    if (IsReduction(m)) {
      const int32_t r = reduce_instr_.at(m);
      const ReductionInfo info = ReductionOf(g_, g_.nodes[m]);
      if (!info.mean) return r;
      const int row = use_rows_ && !force_element ? 1 : 0;
      const auto key = std::make_tuple(m, row ? -1 : s, row);
      if (auto it = memo_.find(key); it != memo_.end()) return it->second;
      const sy_dtype_t dtype = k.instrs[r].dtype;
      const int32_t scale = EmitConst(k, 1.0 / static_cast<double>(row_length_), dtype, s, row);
      sy_fused_instr_t in = Instr(SY_FUSED_MUL, dtype, r, scale);
      in.stage = s;
      in.row_level = row;
      return memo_[key] = k.Add(in);
    }
    const int row = !force_element && RowLevel(m) ? 1 : 0;
    const auto key = std::make_tuple(m, row ? -1 : s, row);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::vector<int32_t> operands;
    for (int u : g_.nodes[m].inputs) {
      operands.push_back(EmitInput(m, u, s, force_element));
    }
    return memo_[key] = EmitElementwise(k, g_, g_.nodes[m], operands, s, row);
  }

  const OpGraph& g_;
  const Group& group_;
  const std::vector<int>& stored_;
  std::vector<bool> member_;
  int64_t row_length_ = 1;
  bool use_rows_ = false;
  LoweredGroup out_;
  std::map<std::pair<int, std::vector<int64_t>>, int> input_index_;
  std::map<int, int> reduce_stage_;
  std::map<int, int32_t> reduce_instr_;
  // (member or -1-input, stage or -1 for per-row, per-row) → instruction.
  std::map<std::tuple<int, int, int>, int32_t> memo_;
};

}  // namespace

absl::StatusOr<LoweredGroup> Lower(const OpGraph& graph, const Group& group,
                                   const std::vector<int>& stored,
                                   const std::string& name) {
  return Lowering(graph, group, stored).Run(name);
}

}  // namespace sy::fusion
