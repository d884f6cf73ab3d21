// The compiler's first pass: the captured graph called again, op by op,
// through the dispatcher on symbolic tensors, under a recorder that expands
// decompositions (recorder.h). A node `decompose` picks runs its
// decomposition (RouteRequest::Decomposition); any node the dispatcher now
// resolves to its decomposition (no kernel for the key) is expanded too. So
// softmax becomes max, sub, exp, sum, div — ops the fusion pass can put in
// one kernel — through the core's own decompositions, never a copy of them.
//
// Thread-safety: runs on the calling thread (it installs an interception
// there for its duration).
#ifndef SWITCHYARD_FUSION_COMPILE_REBUILD_H_
#define SWITCHYARD_FUSION_COMPILE_REBUILD_H_

#include <functional>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "fusion/capture/op_graph.h"

namespace sy::fusion {

absl::StatusOr<OpGraph> Rebuild(core::Dispatcher& dispatcher, const OpGraph& graph,
                                const std::function<bool(const Node&)>& decompose);

// The tensors CallArgs::inputs takes for `node` (one entry per tensor
// argument, a Tensor[] argument spread over its elements, nullptr for an
// omitted optional one), from `tensors` (one per node input, flattened).
std::vector<const core::Tensor*> CallInputs(const Node& node,
                                            const std::vector<core::Tensor>& tensors);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_REBUILD_H_
