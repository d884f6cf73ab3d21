// Views made in the binding: NumPy's basic indexing (`x[0]`, `x[:, 1:3]`,
// `x[..., None]`) and reshape/view, each one sy_tensor_as_strided call.
#ifndef SWITCHYARD_API_PYTHON_SRC_INDEXING_H_
#define SWITCHYARD_API_PYTHON_SRC_INDEXING_H_

#include "py_util.h"

namespace sy::python {

// mp_subscript of TensorBase.
PyObject* TensorGetItem(PyObject* self, PyObject* key);

// TensorBase.reshape(*shape) and .view(*shape) (METH_FASTCALL).
PyObject* TensorReshape(PyObject* self, PyObject* const* args, Py_ssize_t nargs);
PyObject* TensorView(PyObject* self, PyObject* const* args, Py_ssize_t nargs);

// The strides that show a tensor of `shape`/`strides` as `new_shape`
// without moving data (PyTorch's rule), or false when no such strides exist.
bool ViewStrides(const int64_t* shape, const int64_t* strides, int ndim,
                 const int64_t* new_shape, int new_ndim, int64_t* new_strides);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_INDEXING_H_
