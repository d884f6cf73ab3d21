// Tensors from and to host memory (NumPy arrays, through the buffer
// protocol), empty tensors and copies to another device.
#ifndef SWITCHYARD_API_PYTHON_SRC_HOST_DATA_H_
#define SWITCHYARD_API_PYTHON_SRC_HOST_DATA_H_

#include "py_util.h"

namespace sy::python {

// _C.tensor_from_host(context, device, dtype, array): a new tensor holding
// a copy of a C-contiguous buffer (its shape, the given dtype value).
PyObject* TensorFromHost(PyObject* module, PyObject* const* args, Py_ssize_t nargs);
// _C.tensor_to_host(tensor, array): copies the elements into a writable
// C-contiguous buffer of exactly the tensor's size (waits for its work).
PyObject* TensorToHost(PyObject* module, PyObject* const* args, Py_ssize_t nargs);
// _C.tensor_empty(context, device, dtype, shape): an uninitialised tensor.
PyObject* TensorEmpty(PyObject* module, PyObject* const* args, Py_ssize_t nargs);
// _C.tensor_to_device(tensor, device): the tensor there (itself if there).
PyObject* TensorToDevice(PyObject* module, PyObject* const* args, Py_ssize_t nargs);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_HOST_DATA_H_
