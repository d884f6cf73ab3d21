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

// `decompose` takes a node's index in `graph`. With `origin`, (*origin)[m]
// is the node of `graph` that node m of the result comes from (its
// decomposition's ops all name it).
absl::StatusOr<OpGraph> Rebuild(core::Dispatcher& dispatcher, const OpGraph& graph,
                                const std::function<bool(int node)>& decompose,
                                std::vector<int>* origin = nullptr);

// The tensors CallArgs::inputs takes for `node` (one entry per tensor
// argument, a Tensor[] argument spread over its elements, nullptr for an
// omitted optional one), from `tensors` (one per node input, flattened).
std::vector<const core::Tensor*> CallInputs(const Node& node,
                                            const std::vector<core::Tensor>& tensors);

// `t`, an op's output at run time, as the buffer the graph keeps for it
// (`recorded`: the node's output value, a dense layout; Note [Buffers and
// values]): `t` itself when laid out so — every kernel output, attention's
// [B, L, H, E] included — else a dense copy in `recorded`'s dim order by
// `copy` (the core's copy op): a decomposition's strided view, or a kernel
// that declined for a route that writes another layout.
absl::StatusOr<core::Tensor> AsRecorded(core::Dispatcher& dispatcher, core::OpHandle copy,
                                        const core::Tensor& t, const Value& recorded);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_REBUILD_H_
