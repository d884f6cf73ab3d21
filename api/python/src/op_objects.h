// _C.OpOverload (one schema, callable) and _C.OpPacket (every overload of
// one name; a call runs the first overload whose schema takes the
// arguments). Both are called through vectorcall: `sy.ops.add(a, b)` binds
// by the overload's plan and calls sy_op_call without running Python code.
// Their Python-visible attributes beyond the C fields (args, __doc__,
// __signature__, overload attributes of a packet) are set by _ops.py in
// each object's __dict__.
#ifndef SWITCHYARD_API_PYTHON_SRC_OP_OBJECTS_H_
#define SWITCHYARD_API_PYTHON_SRC_OP_OBJECTS_H_

#include "py_util.h"

namespace sy::python {

bool AddOpTypes(PyObject* module);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_OP_OBJECTS_H_
