// Clean-up passes over an OpGraph: dead code and common subexpressions.
// Both mark nodes dead (Node::dead) rather than erasing them, so node and
// buffer numbers stay stable for later passes and descriptions.
//
// Thread-safety: not synchronized; each mutates its graph.
#ifndef SWITCHYARD_FUSION_COMPILE_SIMPLIFY_H_
#define SWITCHYARD_FUSION_COMPILE_SIMPLIFY_H_

#include "fusion/capture/op_graph.h"

namespace sy::fusion {

// Removes nodes none of whose outputs a graph output needs. Every op of the
// core set is free of side effects, so that is safe. Returns the count.
int EliminateDeadCode(OpGraph& graph);

// Merges nodes that call one op with equal attributes on equal values: the
// later one's readers read the earlier one's buffers. Returns the count.
int EliminateCommonSubexpressions(OpGraph& graph);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_COMPILE_SIMPLIFY_H_
