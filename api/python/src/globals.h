// What the Python half of the package hands the extension at import
// (switchyard/__init__.py calls _C._register): the classes the extension
// instantiates or raises, and objects it compares against. Set once, read
// under the GIL, never freed (the module lives as long as the process).
#ifndef SWITCHYARD_API_PYTHON_SRC_GLOBALS_H_
#define SWITCHYARD_API_PYTHON_SRC_GLOBALS_H_

#include "py_util.h"
#include "switchyard/switchyard.h"

namespace sy::python {

struct Globals {
  // switchyard.Tensor (a subclass of _C.TensorBase): what ops return.
  PyTypeObject* tensor_type = nullptr;
  // switchyard.Error subclasses, indexed by sy_status_code_t (1..15).
  PyObject* errors[16] = {};
  // switchyard.DType objects indexed by a small dtype number (DTypeSlot).
  PyObject* dtypes[9] = {};
  // switchyard._dtypes.as_dtype: any dtype spelling -> DType.
  PyObject* as_dtype = nullptr;
  // switchyard._tensor._reflected(name, tensor, scalar): `2 - x` and kin.
  PyObject* reflected = nullptr;
  // numbers.Integral, numbers.Real, numpy.bool_: the old binder's notion
  // of "an int", "a float", "a bool" (isinstance, on the slow path only).
  PyObject* integral = nullptr;
  PyObject* real = nullptr;
  PyObject* numpy_bool = nullptr;
  // The active profiler's callback (switchyard.profile), or nullptr.
  PyObject* profiler = nullptr;
  // Interned "out".
  PyObject* str_out = nullptr;
};

extern Globals g;

// The index of a dtype in Globals::dtypes, or -1 for an invalid one.
int DTypeSlot(sy_dtype_t dtype);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_GLOBALS_H_
