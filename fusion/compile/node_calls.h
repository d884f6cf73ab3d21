// A graph's nodes called outside a replay, on scratch tensors: what the
// compiler's measured choices bind, resolve and time (the pattern pass's
// verdicts, verdicts.h; a lone composite's own kernel against its fused
// one, own_or_fused.h).
//
// Thread-safety: runs on the calling thread; the calls are real ones.
#ifndef SWITCHYARD_FUSION_COMPILE_NODE_CALLS_H_
#define SWITCHYARD_FUSION_COMPILE_NODE_CALLS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/memory/tensor.h"
#include "fusion/capture/op_graph.h"

namespace sy::fusion {

// Real tensors with the layouts (shape, strides, offset) of the graph
// values `values` of `g`, on `device`, filled with 0.5 — or left unwritten
// without `fill`, for a call that is only bound and resolved. (Symbolic
// tensors cannot be bound outside a capture.) They go back to the device's
// caching allocator when dropped.
absl::StatusOr<std::vector<core::Tensor>> ScratchTensors(core::Dispatcher& d,
                                                         core::Device& device, const OpGraph& g,
                                                         const std::vector<int>& values,
                                                         bool fill = true);

// `node`'s call over `tensors` (one per node input, flattened), its
// outputs into `produced` (cleared first).
absl::Status RunNode(core::Dispatcher& d, const Node& node,
                     const std::vector<core::Tensor>& tensors, core::TensorList& produced);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_NODE_CALLS_H_
