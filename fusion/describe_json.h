// A graph and its compiled plan as JSON: what sy_graph_explain returns with
// SY_GRAPH_EXPLAIN_JSON (api/include/switchyard/graph.h lists the fields),
// for programs that read the groups instead of the text of Describe.
#ifndef SWITCHYARD_FUSION_DESCRIBE_JSON_H_
#define SWITCHYARD_FUSION_DESCRIBE_JSON_H_

#include <string>

#include "fusion/graph.h"

namespace sy::fusion {

// `compiled` may be null (not compiled yet): then only the inputs, outputs
// and captured ops.
std::string DescribeJson(const Graph& graph, const CompiledGraph* compiled);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_DESCRIBE_JSON_H_
