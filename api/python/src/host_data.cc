#include "host_data.h"

#include "errors.h"
#include "switchyard/switchyard.h"
#include "tensor_object.h"

namespace sy::python {
namespace {

bool CheckArgs(const char* name, Py_ssize_t nargs, Py_ssize_t want) {
  if (nargs == want) return true;
  PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", name, want, nargs);
  return false;
}

// Holds a Py_buffer for the scope.
class Buffer {
 public:
  bool Get(PyObject* object, int flags) {
    if (PyObject_GetBuffer(object, &view_, flags) < 0) return false;
    held_ = true;
    return true;
  }
  ~Buffer() {
    if (held_) PyBuffer_Release(&view_);
  }
  Py_buffer* operator->() { return &view_; }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

}  // namespace

PyObject* TensorFromHost(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!CheckArgs("tensor_from_host", nargs, 4)) return nullptr;
  sy_device_handle_t device;
  if (!HandleFromPy(args[1], &device)) return nullptr;
  const unsigned long dtype = PyLong_AsUnsignedLong(args[2]);
  if (PyErr_Occurred()) return nullptr;
  Buffer buffer;
  if (!buffer.Get(args[3], PyBUF_C_CONTIGUOUS)) return nullptr;
  if (buffer->ndim > SY_MAX_RANK) {
    return RaiseStatus(SY_STATUS_INVALID_ARGUMENT,
                       "switchyard.tensor: the data has " + std::to_string(buffer->ndim) +
                           " dimensions; tensors have at most 8");
  }
  int64_t shape[SY_MAX_RANK];
  for (int d = 0; d < buffer->ndim; ++d) shape[d] = buffer->shape[d];
  sy_tensor_t out;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_tensor_from_host(device, static_cast<sy_dtype_t>(dtype), shape, buffer->ndim,
                               buffer->buf, static_cast<size_t>(buffer->len), &out);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return NewTensor(args[0], out);
}

PyObject* TensorToHost(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!CheckArgs("tensor_to_host", nargs, 2)) return nullptr;
  if (!IsTensor(args[0])) return PyErr_Format(PyExc_TypeError, "not a switchyard.Tensor");
  Buffer buffer;
  if (!buffer.Get(args[1], PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE)) return nullptr;
  sy_status_code_t status;
  const sy_tensor_t handle = AsTensor(args[0])->handle;
  Py_BEGIN_ALLOW_THREADS
  status = sy_tensor_to_host(handle, buffer->buf, static_cast<size_t>(buffer->len));
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  Py_RETURN_NONE;
}

PyObject* TensorEmpty(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!CheckArgs("tensor_empty", nargs, 4)) return nullptr;
  sy_device_handle_t device;
  if (!HandleFromPy(args[1], &device)) return nullptr;
  const unsigned long dtype = PyLong_AsUnsignedLong(args[2]);
  if (PyErr_Occurred()) return nullptr;
  PyRef sizes(PySequence_Fast(args[3], "shape must be a sequence of ints"));
  if (!sizes) return nullptr;
  const Py_ssize_t ndim = PySequence_Fast_GET_SIZE(sizes.get());
  int64_t shape[SY_MAX_RANK + 1];
  const Py_ssize_t n = ndim > SY_MAX_RANK ? SY_MAX_RANK : ndim;
  for (Py_ssize_t d = 0; d < n; ++d) {
    shape[d] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(sizes.get(), d));
    if (shape[d] == -1 && PyErr_Occurred()) return nullptr;
  }
  sy_tensor_t out;
  // A rank above 8 reaches C, whose message says so.
  const sy_status_code_t status = sy_tensor_empty(device, static_cast<sy_dtype_t>(dtype),
                                                  shape, static_cast<int32_t>(ndim), &out);
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return NewTensor(args[0], out);
}

PyObject* TensorToDevice(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (!CheckArgs("tensor_to_device", nargs, 2)) return nullptr;
  if (!IsTensor(args[0])) return PyErr_Format(PyExc_TypeError, "not a switchyard.Tensor");
  sy_device_handle_t device;
  if (!HandleFromPy(args[1], &device)) return nullptr;
  TensorObject* t = AsTensor(args[0]);
  sy_tensor_t out;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_tensor_to_device(t->handle, device, &out);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return NewTensor(t->context, out);
}

}  // namespace sy::python
