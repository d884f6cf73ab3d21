// The module functions behind switchyard.Context and switchyard.Device:
// thin wrappers over the C API's context, device, load-report and op-list
// calls, taking and returning handles as ints (switchyard/_context.py and
// _ops.py build the Python objects). None of them is on an op's call path.
#ifndef SWITCHYARD_API_PYTHON_SRC_CONTEXT_FUNCTIONS_H_
#define SWITCHYARD_API_PYTHON_SRC_CONTEXT_FUNCTIONS_H_

#include "py_util.h"

namespace sy::python {

// The functions' PyMethodDef table, ended by a null entry.
extern PyMethodDef g_context_functions[];

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_CONTEXT_FUNCTIONS_H_
