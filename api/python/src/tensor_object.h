// _C.TensorBase: one reference to a C tensor handle, the Python object that
// switchyard.Tensor derives from (its Python methods live in _tensor.py).
//
// The layout (dtype, shape, strides) of a handle never changes, so it is
// read from the C API once, on first use, and kept in the object.
#ifndef SWITCHYARD_API_PYTHON_SRC_TENSOR_OBJECT_H_
#define SWITCHYARD_API_PYTHON_SRC_TENSOR_OBJECT_H_

#include "globals.h"
#include "py_util.h"
#include "switchyard/switchyard.h"

namespace sy::python {

struct TensorObject {
  PyObject_HEAD
  sy_tensor_t handle;
  PyObject* context;  // the switchyard.Context (strong)
  PyObject* device;   // cached switchyard.Device, or nullptr (strong)
  PyObject* weakrefs;
  bool layout_known;
  int32_t ndim;
  sy_dtype_t dtype;
  int64_t shape[SY_MAX_RANK];
  int64_t strides[SY_MAX_RANK];
};

extern PyTypeObject g_tensor_base_type;

inline bool IsTensor(PyObject* object) {
  // switchyard.Tensor itself first: the subclass walk is the rare case.
  PyTypeObject* type = Py_TYPE(object);
  return type == g.tensor_type || type == &g_tensor_base_type ||
         PyType_IsSubtype(type, &g_tensor_base_type);
}
inline TensorObject* AsTensor(PyObject* object) {
  return reinterpret_cast<TensorObject*>(object);
}

// A new switchyard.Tensor of `context` over `handle`, taking over the one
// reference the caller holds (released even when this fails).
PyObject* NewTensor(PyObject* context, sy_tensor_t handle);

// Reads the layout into the object if not yet known. False with a Python
// error set when the handle is bad (stale after its context closed).
bool EnsureLayout(TensorObject* tensor);

// Whether the layout is row-major dense (sizes of 1 and 0 elements aside).
bool IsContiguous(const TensorObject* tensor);

// Registers TensorBase in `module`; number protocol from tensor_operators.cc.
bool AddTensorType(PyObject* module);
void InstallTensorOperators(PyTypeObject* type);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_TENSOR_OBJECT_H_
