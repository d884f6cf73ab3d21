// switchyard._C's communicator functions (switchyard/distributed.h), for
// the Python package's sy.distributed. Handles travel as ints, as the
// other handles do.
#ifndef SWITCHYARD_API_PYTHON_SRC_DISTRIBUTED_FUNCTIONS_H_
#define SWITCHYARD_API_PYTHON_SRC_DISTRIBUTED_FUNCTIONS_H_

#include "py_util.h"

namespace sy::python {

extern PyMethodDef g_distributed_functions[];

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_DISTRIBUTED_FUNCTIONS_H_
