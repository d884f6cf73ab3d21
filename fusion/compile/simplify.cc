#include "fusion/compile/simplify.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace sy::fusion {

int EliminateDeadCode(OpGraph& g) {
  std::vector<bool> live(g.buffers.size(), false);
  for (const GraphOutput& o : g.outputs) live[g.values[o.value].buffer] = true;
  int removed = 0;
  for (int n = static_cast<int>(g.nodes.size()) - 1; n >= 0; --n) {
    Node& node = g.nodes[n];
    if (node.dead) continue;
    bool needed = false;
    for (int v : node.outputs) needed = needed || live[g.values[v].buffer];
    if (!needed) {
      node.dead = true;
      ++removed;
      continue;
    }
    for (int v : node.inputs) live[g.values[v].buffer] = true;
  }
  return removed;
}

int EliminateCommonSubexpressions(OpGraph& g) {
  // Buffers of merged nodes → the earlier node's buffers.
  std::vector<int> forward(g.buffers.size());
  for (size_t b = 0; b < forward.size(); ++b) forward[b] = static_cast<int>(b);
  auto remap = [&](int v) {
    const Value& value = g.values[v];
    if (forward[value.buffer] == value.buffer) return v;
    Value moved = value;
    moved.buffer = forward[value.buffer];
    return g.AddValue(moved);
  };
  absl::flat_hash_map<std::string, int> seen;
  int merged = 0;
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    Node& node = g.nodes[n];
    if (node.dead) continue;
    for (int& v : node.inputs) v = remap(v);
    std::string key = absl::StrCat(reinterpret_cast<uintptr_t>(node.op), "|",
                                   node.attrs.ToString(), "|");
    for (int v : node.inputs) absl::StrAppend(&key, v, ",");
    for (int32_t s : node.list_sizes) absl::StrAppend(&key, "l", s);
    absl::StrAppend(&key, "|", reinterpret_cast<uintptr_t>(node.device));
    auto [it, inserted] = seen.emplace(key, static_cast<int>(n));
    if (inserted) continue;
    const Node& first = g.nodes[it->second];
    for (size_t j = 0; j < node.outputs.size(); ++j) {
      forward[g.values[node.outputs[j]].buffer] = g.values[first.outputs[j]].buffer;
    }
    node.dead = true;
    ++merged;
  }
  for (GraphOutput& o : g.outputs) o.value = remap(o.value);
  return merged;
}

}  // namespace sy::fusion
