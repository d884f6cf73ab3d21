// The fusion pass proper: splits a graph's ops into groups that each
// become one fused kernel.
//
// Note [Fusion groups]: a group is a set of elementwise ops and reductions
// on one device over one *domain* S (the shape of its widest value) with a
// set R of reduced dims (empty for a purely elementwise group). Every value
// inside a group maps its dims onto S, the way NumPy broadcasting aligns
// them; a value that does not vary along R is computed once per row. Every
// reduction of a group reduces a value of shape S over exactly R, so a
// group may hold several reductions one after the other — the
// reduce-then-broadcast of softmax (max, then sum), log_softmax, rms_norm
// and layer_norm (mean, then the variance) — as AStitch's "stitch" and
// BladeDISC's kInput fusion do; a reduction's own value is per row.
//
// Groups grow from their last op backwards, as XLA's producer-consumer
// fusion does: ops are visited in reverse topological order, and each op
// not yet in a group starts one and pulls in its producers while
//   - the producer is fusable on the group's device (op_table.h) and within
//     the limits the device's fusion backend declares (inputs, outputs,
//     instructions, row length, whether it fuses reductions at all);
//   - its output reaches the group as itself or a broadcast of itself (a
//     transposed or sliced intermediate is read from memory instead);
//   - the maps agree (a value broadcast one way by one consumer and another
//     way by a second cannot be computed once for both);
//   - a value that must still be written (a graph output, or read by an op
//     outside the group) is one the group can store once per element;
//   - the group stays convex: no path leaves it and comes back, which would
//     make it wait for itself.
// A group of one op is dissolved: the op's own kernel is at least as fast.
//
// Thread-safety: pure functions over their arguments.
#ifndef SWITCHYARD_FUSION_COMPILE_PARTITION_H_
#define SWITCHYARD_FUSION_COMPILE_PARTITION_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fusion/backend/backends.h"
#include "fusion/capture/op_graph.h"

namespace sy::fusion {

struct Group {
  std::vector<int> nodes;        // ascending: a topological order
  std::vector<int64_t> domain;   // S
  std::vector<int> reduce_dims;  // R, ascending
  const FusionBackend* backend = nullptr;
  core::Device* device = nullptr;
  // For each member's output buffer: which dim of S each of its dims is.
  absl::flat_hash_map<int, std::vector<int>> maps;
};

struct Partition {
  std::vector<Group> groups;
  std::vector<int> group_of;         // by node: its group, or -1
  std::vector<std::string> why_not;  // by node: why it runs unfused ("" if fused)
};

struct PartitionOptions {
  // Nodes that must not join any group (pattern replacements; groups whose
  // compile failed and are retried without them).
  std::vector<bool> opaque;
};

Partition PartitionGraph(const OpGraph& graph, const Backends& backends,
                         const PartitionOptions& options);

// Which buffers a group must write: graph outputs and buffers read by
// nodes outside the group.
std::vector<int> StoredBuffers(const OpGraph& graph, const Group& group,
                               const std::vector<int>& group_of, int group_index);

// The map of `use` (a value read by `consumer`, a member) onto the domain:
// dims of the value → dims of S. For an elementwise consumer the value is
// right-aligned to the consumer's output; a reduction reads S itself.
std::vector<int> UseMap(const OpGraph& graph, const Group& group, int consumer,
                        int use);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_PARTITION_H_
