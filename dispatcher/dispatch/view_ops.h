// The core's view ops — reshape, permute, transpose, slice, expand — which
// no backend implements: the result shares the input's storage with a new
// layout (a reshape of a layout that cannot be viewed copies first).
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_VIEW_OPS_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_VIEW_OPS_H_

#include "dispatcher/registry/op_registry.h"

namespace sy::core {

// Attaches a ViewFn to every core op of kind kView.
void InstallViewOps(OpRegistry& ops);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_VIEW_OPS_H_
