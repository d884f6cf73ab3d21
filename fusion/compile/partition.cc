#include "fusion/compile/partition.h"

#include <algorithm>
#include <deque>

#include "absl/strings/str_cat.h"
#include "fusion/compile/op_table.h"

namespace sy::fusion {
namespace {

int OutBuffer(const OpGraph& g, int node) {
  return g.values[g.nodes[node].outputs[0]].buffer;
}

absl::Span<const int64_t> BufferShape(const OpGraph& g, int buffer) {
  const sy_tensor_meta_t& m = g.buffers[buffer].meta;
  return {m.shape, static_cast<size_t>(m.ndim)};
}

// Whether value `u` is its buffer itself or a broadcast of it (expand,
// leading dims, NumPy broadcasting); if so, *mb gets the buffer's dims'
// map from the use's map `mu`.
bool ViewMap(const OpGraph& g, int u, const std::vector<int>& mu,
             std::vector<int>* mb) {
  const Value& v = g.values[u];
  const absl::Span<const int64_t> bshape = BufferShape(g, v.buffer);
  const int rb = static_cast<int>(bshape.size());
  const int ru = v.meta.ndim;
  if (v.byte_offset != 0 || ru < rb || static_cast<int>(mu.size()) != ru) return false;
  const int off = ru - rb;
  for (int i = 0; i < off; ++i) {
    if (v.meta.shape[i] != 1 && v.strides[i] != 0) return false;
  }
  int64_t written[SY_MAX_RANK];  // the buffer's own layout
  g.WrittenStrides(v.buffer, written);
  mb->assign(rb, -1);
  for (int j = 0; j < rb; ++j) {
    const int i = j + off;
    if (bshape[j] == v.meta.shape[i]) {
      if (bshape[j] > 1 && v.strides[i] != written[j]) return false;
    } else if (bshape[j] == 1) {
      if (v.meta.shape[i] > 1 && v.strides[i] != 0) return false;
    } else {
      return false;
    }
    (*mb)[j] = mu[i];
  }
  return true;
}

bool Consistent(const std::vector<int>& a, const std::vector<int>& b,
                absl::Span<const int64_t> shape) {
  if (a.size() != b.size()) return false;
  for (size_t j = 0; j < a.size(); ++j) {
    if (shape[j] != 1 && a[j] != b[j]) return false;
  }
  return true;
}

bool Contains(const std::vector<int>& sorted, int x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

// A value the group can write once per element: it covers every dim of S
// it must (all of them, or all but R for a per-row value).
bool Storable(const std::vector<int64_t>& S, const std::vector<int>& R,
              const std::vector<int>& map, absl::Span<const int64_t> shape) {
  std::vector<bool> covered(S.size(), false);
  bool touches_r = false;
  for (size_t j = 0; j < map.size(); ++j) {
    if (shape[j] != 1) {
      covered[map[j]] = true;
      touches_r = touches_r || Contains(R, map[j]);
    }
  }
  for (size_t d = 0; d < S.size(); ++d) {
    const bool needed = S[d] != 1 && (touches_r || !Contains(R, static_cast<int>(d)));
    if (needed && !covered[d]) return false;
  }
  return true;
}

class Grower {
 public:
  Grower(const OpGraph& g, const std::vector<FusedRole>& role,
         const std::vector<const FusionBackend*>& backend_of,
         const std::vector<bool>& blocked)
      : g_(g), role_(role), backend_of_(backend_of), blocked_(blocked),
        consumers_(g.ConsumersByBuffer()), is_output_(g.buffers.size(), false) {
    for (const GraphOutput& o : g.outputs) is_output_[g.values[o.value].buffer] = true;
  }

  // Grows a group from `root`; returns it (possibly of one node).
  Group Grow(int root) {
    in_group_.assign(g_.nodes.size(), false);
    Group group;
    group.backend = backend_of_[root];
    group.device = g_.nodes[root].device;
    const Node& r = g_.nodes[root];
    const int b = OutBuffer(g_, root);
    if (role_[root] == FusedRole::kReduction) {
      const Value& x = g_.values[r.inputs[0]];
      group.domain.assign(x.shape().begin(), x.shape().end());
      group.reduce_dims = ReductionOf(g_, r).dims;
      group.maps[b] = NaturalMap(group, ReductionOf(g_, r));
    } else {
      group.domain.assign(BufferShape(g_, b).begin(), BufferShape(g_, b).end());
      std::vector<int> identity(group.domain.size());
      for (size_t d = 0; d < identity.size(); ++d) identity[d] = static_cast<int>(d);
      group.maps[b] = identity;
    }
    in_group_[root] = true;
    group.nodes.push_back(root);
    std::deque<int> work = {root};
    while (!work.empty()) {
      const int m = work.front();
      work.pop_front();
      for (int u : g_.nodes[m].inputs) {
        const int q = g_.Producer(u);
        if (q < 0 || in_group_[q] || blocked_[q] || role_[q] == FusedRole::kNone ||
            g_.nodes[q].device != group.device) {
          continue;
        }
        if (TryAdd(group, q, m, u)) work.push_back(q);
      }
    }
    std::sort(group.nodes.begin(), group.nodes.end());
    return group;
  }

 private:
  std::vector<int> NaturalMap(const Group& group, const ReductionInfo& info) const {
    std::vector<int> map;
    for (size_t d = 0; d < group.domain.size(); ++d) {
      if (info.keepdim || !Contains(info.dims, static_cast<int>(d))) {
        map.push_back(static_cast<int>(d));
      }
    }
    return map;
  }

  // Is any node of `targets` reachable from `starts` along op edges?
  bool Reaches(const std::vector<int>& starts, const std::vector<bool>& targets) const {
    std::vector<bool> seen(g_.nodes.size(), false);
    std::deque<int> work(starts.begin(), starts.end());
    while (!work.empty()) {
      const int n = work.front();
      work.pop_front();
      if (seen[n]) continue;
      seen[n] = true;
      if (targets[n]) return true;
      for (int v : g_.nodes[n].outputs) {
        for (int c : consumers_[g_.values[v].buffer]) {
          if (!seen[c]) work.push_back(c);
        }
      }
    }
    return false;
  }

  bool TryAdd(Group& group, int q, int m, int u) {
    const FusionBackend& backend = *group.backend;
    std::vector<int> mq;
    if (!ViewMap(g_, u, UseMap(g_, group, m, u), &mq)) return false;
    const int bq = OutBuffer(g_, q);
    const absl::Span<const int64_t> qshape = BufferShape(g_, bq);
    std::vector<int64_t> S = group.domain;
    std::vector<int> R = group.reduce_dims;
    if (role_[q] == FusedRole::kReduction) {
      const ReductionInfo info = ReductionOf(g_, g_.nodes[q]);
      const Value& x = g_.values[g_.nodes[q].inputs[0]];
      const bool same = x.meta.ndim == static_cast<int>(S.size()) &&
                        std::equal(S.begin(), S.end(), x.meta.shape);
      if (!R.empty()) {
        if (!same || info.dims != R) return false;
      } else if (same) {
        R = info.dims;
      } else {
        // A group over the reduction's result grows to its input: S gains
        // the reduced dims (the values already in the group become per row).
        if (!info.keepdim || x.meta.ndim != static_cast<int>(S.size())) return false;
        for (int d = 0; d < x.meta.ndim; ++d) {
          if (x.meta.shape[d] != S[d] && !(S[d] == 1 && Contains(info.dims, d))) {
            return false;
          }
        }
        S.assign(x.shape().begin(), x.shape().end());
        R = info.dims;
      }
      Group probe;
      probe.domain = S;
      const std::vector<int> natural = NaturalMap(probe, info);
      if (!Consistent(mq, natural, qshape)) return false;
      mq = natural;
      int64_t row = 1;
      for (int d : R) row *= S[d];
      if (backend.max_row_length > 0 && row > backend.max_row_length) return false;
    }
    // Every other use of q's output inside the group must see it mapped
    // the same way, and so must q's own uses of group members.
    for (int c : consumers_[bq]) {
      if (!in_group_[c]) continue;
      for (int w : g_.nodes[c].inputs) {
        if (g_.values[w].buffer != bq) continue;
        std::vector<int> other;
        if (!ViewMap(g_, w, UseMap(g_, group, c, w), &other) ||
            !Consistent(other, mq, qshape)) {
          return false;
        }
      }
    }
    Group with = group;  // the maps of q's uses are q's own map's
    with.domain = S;
    with.reduce_dims = R;
    with.maps[bq] = mq;
    std::vector<int> outside_producers;
    for (int w : g_.nodes[q].inputs) {
      const int p = g_.Producer(w);
      if (p < 0) continue;
      if (!in_group_[p]) {
        outside_producers.push_back(p);
        continue;
      }
      const int bp = g_.values[w].buffer;
      std::vector<int> mp;
      if (!ViewMap(g_, w, UseMap(g_, with, q, w), &mp) ||
          !Consistent(mp, with.maps[bp], BufferShape(g_, bp))) {
        return false;
      }
    }
    std::vector<int> outside_consumers;
    for (int c : consumers_[bq]) {
      if (!in_group_[c] && c != q) outside_consumers.push_back(c);
    }
    if ((is_output_[bq] || !outside_consumers.empty()) && !Storable(S, R, mq, qshape)) {
      return false;
    }
    // Convexity: nothing outside may both read the group and feed it.
    if (!outside_consumers.empty() && Reaches(outside_consumers, in_group_)) return false;
    if (!outside_producers.empty()) {
      std::vector<bool> targets(g_.nodes.size(), false);
      for (int p : outside_producers) targets[p] = true;
      std::vector<int> members;
      for (size_t n = 0; n < in_group_.size(); ++n) {
        if (in_group_[n]) members.push_back(static_cast<int>(n));
      }
      if (Reaches(members, targets)) return false;
    }
    // The backend's limits, estimated (lowering checks them exactly).
    const int members = static_cast<int>(group.nodes.size()) + 1;
    if (backend.max_instrs > 0 && members * 4 > backend.max_instrs) return false;
    if (backend.max_inputs > 0 || backend.max_outputs > 0) {
      std::vector<bool> member = in_group_;
      member[q] = true;
      int inputs = 0, outputs = 0;
      std::vector<bool> seen_value(g_.values.size(), false);
      for (size_t n = 0; n < member.size(); ++n) {
        if (!member[n]) continue;
        for (int w : g_.nodes[n].inputs) {
          const int p = g_.Producer(w);
          if ((p < 0 || !member[p]) && !seen_value[w]) {
            seen_value[w] = true;
            ++inputs;
          }
        }
        const int b = OutBuffer(g_, static_cast<int>(n));
        bool stored = is_output_[b];
        for (int c : consumers_[b]) stored = stored || !member[c];
        outputs += stored ? 1 : 0;
      }
      if (backend.max_inputs > 0 && inputs > backend.max_inputs) return false;
      if (backend.max_outputs > 0 && outputs > backend.max_outputs) return false;
    }
    group = std::move(with);
    in_group_[q] = true;
    group.nodes.push_back(q);
    return true;
  }

  const OpGraph& g_;
  const std::vector<FusedRole>& role_;
  const std::vector<const FusionBackend*>& backend_of_;
  const std::vector<bool>& blocked_;
  std::vector<std::vector<int>> consumers_;
  std::vector<bool> is_output_;
  std::vector<bool> in_group_;
};

}  // namespace

std::vector<int> UseMap(const OpGraph& g, const Group& group, int consumer, int use) {
  const Node& c = g.nodes[consumer];
  const int ru = g.values[use].meta.ndim;
  std::vector<int> map(ru);
  const auto it = group.maps.find(g.values[c.outputs[0]].buffer);
  const bool reduction = c.op->owner().empty() &&
                         (c.op->full_name() == "sum" || c.op->full_name() == "mean" ||
                          c.op->full_name() == "max" || c.op->full_name() == "min");
  if (reduction || it == group.maps.end()) {
    for (int i = 0; i < ru; ++i) map[i] = i;
    return map;
  }
  const std::vector<int>& mc = it->second;
  const int off = static_cast<int>(mc.size()) - ru;
  for (int i = 0; i < ru; ++i) map[i] = off + i >= 0 ? mc[off + i] : 0;
  return map;
}

std::vector<int> StoredBuffers(const OpGraph& g, const Group& group,
                               const std::vector<int>& group_of, int group_index) {
  const std::vector<std::vector<int>> consumers = g.ConsumersByBuffer();
  std::vector<bool> is_output(g.buffers.size(), false);
  for (const GraphOutput& o : g.outputs) is_output[g.values[o.value].buffer] = true;
  std::vector<int> stored;
  for (int n : group.nodes) {
    const int b = OutBuffer(g, n);
    bool store = is_output[b];
    for (int c : consumers[b]) store = store || group_of[c] != group_index;
    if (store) stored.push_back(b);
  }
  return stored;
}

Partition PartitionGraph(const OpGraph& g, const Backends& backends,
                         const PartitionOptions& options) {
  const int n = static_cast<int>(g.nodes.size());
  Partition out;
  out.group_of.assign(n, -1);
  out.why_not.assign(n, "");
  std::vector<FusedRole> role(n, FusedRole::kNone);
  std::vector<const FusionBackend*> backend_of(n, nullptr);
  std::vector<bool> blocked(n, false);
  for (int i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    if (node.dead) continue;
    const FusionBackend* b = backends.For(node.device->type());
    if (b == nullptr) {
      out.why_not[i] = absl::StrCat("no fusion compiler for device type '",
                                    node.device->type().name(), "'");
      continue;
    }
    backend_of[i] = b;
    if (i < static_cast<int>(options.opaque.size()) && options.opaque[i]) {
      out.why_not[i] = "kept whole (a pattern kernel, or its group did not compile)";
      continue;
    }
    std::string why;
    role[i] = Classify(g, node, *b, &why);
    if (role[i] == FusedRole::kNone) out.why_not[i] = why;
  }
  Grower grower(g, role, backend_of, blocked);
  for (int i = n - 1; i >= 0; --i) {
    if (g.nodes[i].dead || role[i] == FusedRole::kNone || blocked[i]) continue;
    if (role[i] == FusedRole::kReduction) {
      // A root reduction must fit the backend's rows itself.
      const ReductionInfo info = ReductionOf(g, g.nodes[i]);
      const Value& x = g.values[g.nodes[i].inputs[0]];
      int64_t row = 1;
      for (int d : info.dims) row *= x.meta.shape[d];
      if (backend_of[i]->max_row_length > 0 && row > backend_of[i]->max_row_length) {
        out.why_not[i] = absl::StrCat("its rows of ", row, " elements are longer than ",
                                      backend_of[i]->Describe(), " fuses");
        continue;
      }
    }
    Group group = grower.Grow(i);
    if (group.nodes.size() < 2) {
      out.why_not[i] = "alone in its group: runs its own kernel";
      continue;
    }
    const int index = static_cast<int>(out.groups.size());
    for (int m : group.nodes) {
      out.group_of[m] = index;
      blocked[m] = true;
    }
    out.groups.push_back(std::move(group));
  }
  return out;
}

}  // namespace sy::fusion
