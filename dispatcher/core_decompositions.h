// Decompositions the core ships: ops expressed through other ops, so any
// backend with the primitives runs them (resolution step 4, after kernels).
#ifndef SWITCHYARD_DISPATCHER_CORE_DECOMPOSITIONS_H_
#define SWITCHYARD_DISPATCHER_CORE_DECOMPOSITIONS_H_

#include "dispatcher/op_registry.h"

namespace sy {

// contiguous → copy (or the input itself when already contiguous)
// square     → mul(x, x)
// linear     → matmul(x, transpose(weight, 0, 1)) [+ add(…, bias)]
void InstallCoreDecompositions(OpRegistry& ops);

}  // namespace sy

#endif  // SWITCHYARD_DISPATCHER_CORE_DECOMPOSITIONS_H_
