// The module functions behind switchyard.Graph and switchyard.compile
// (switchyard/_graph.py): thin wrappers over switchyard/graph.h, taking
// contexts and graphs as handle ints and tensors as objects.
#ifndef SWITCHYARD_API_PYTHON_SRC_GRAPH_FUNCTIONS_H_
#define SWITCHYARD_API_PYTHON_SRC_GRAPH_FUNCTIONS_H_

#include "py_util.h"

namespace sy::python {

// The functions' PyMethodDef table, ended by a null entry.
extern PyMethodDef g_graph_functions[];

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_GRAPH_FUNCTIONS_H_
