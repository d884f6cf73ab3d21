// _C.ContextBase: the C half of switchyard.Context. It keeps the op packets
// that Tensor operators call (`a + b` is ops.add), so an operator costs a
// field read instead of two attribute lookups.
#ifndef SWITCHYARD_API_PYTHON_SRC_CONTEXT_OBJECT_H_
#define SWITCHYARD_API_PYTHON_SRC_CONTEXT_OBJECT_H_

#include "py_util.h"

namespace sy::python {

// The ops operators and methods reach for, by position in ContextObject.
enum class CachedOp : int {
  kAdd, kSub, kMul, kDiv, kPow, kMatmul, kNeg, kAbs,
  kEq, kNe, kLt, kLe, kGt, kGe, kReshape,
  kCount,
};

struct ContextObject {
  PyObject_HEAD
  PyObject* dict;  // the Python subclass's attributes
  PyObject* weakrefs;
  PyObject* ops[static_cast<int>(CachedOp::kCount)];
};

// The packet `context.ops.<name>` for `op` (a borrowed reference, cached
// until the context's op set changes), or nullptr with an error set.
PyObject* ContextOp(PyObject* context, CachedOp op);

bool AddContextType(PyObject* module);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_CONTEXT_OBJECT_H_
