// What a sy_graph_t points at: a captured graph and its current compiled
// plan (api/include/switchyard/graph.h).
#ifndef SWITCHYARD_API_SRC_GRAPH_OBJECT_H_
#define SWITCHYARD_API_SRC_GRAPH_OBJECT_H_

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "api/src/epoch.h"
#include "api/src/handle_table.h"
#include "fusion/graph.h"

namespace sy::capi {

// Retired by sy_graph_release or the context's destruction (one owner, no
// reference count). Launches copy the plan's shared_ptr under the mutex and
// run outside it, so a recompilation never waits for them and a launch
// racing one finishes with the plan it took.
struct GraphObject final : HandleObject, Retirable {
  static constexpr HandleKind kKind = HandleKind::kGraph;
  GraphObject(std::shared_ptr<ContextState> context, fusion::Graph g)
      : HandleObject(kKind, context.get()),
        keep_context(std::move(context)),
        graph(std::move(g)) {}

  std::shared_ptr<const fusion::CompiledGraph> compiled() const {
    std::lock_guard<std::mutex> lock(mu);
    return compiled_;
  }
  void set_compiled(std::shared_ptr<const fusion::CompiledGraph> c) {
    std::lock_guard<std::mutex> lock(mu);
    compiled_ = std::move(c);
  }

  // Declared first, so destroyed last: the graph's constants and kernels
  // need the runtime.
  std::shared_ptr<ContextState> keep_context;
  const fusion::Graph graph;

 private:
  mutable std::mutex mu;
  std::shared_ptr<const fusion::CompiledGraph> compiled_;
};

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_GRAPH_OBJECT_H_
