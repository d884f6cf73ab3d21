#include "tensor_object.h"

#include <cstring>

#include "errors.h"
#include "globals.h"
#include "indexing.h"

namespace sy::python {

PyTypeObject g_tensor_base_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* NewTensor(PyObject* context, sy_tensor_t handle) {
  PyTypeObject* type = g.tensor_type != nullptr ? g.tensor_type : &g_tensor_base_type;
  PyObject* object = type->tp_alloc(type, 0);
  if (object == nullptr) {
    sy_tensor_release(handle);
    return nullptr;
  }
  TensorObject* t = AsTensor(object);
  t->handle = handle;
  Py_INCREF(context);
  t->context = context;
  return object;
}

bool EnsureLayout(TensorObject* t) {
  if (t->layout_known) return true;
  sy_status_code_t status = sy_tensor_dtype(t->handle, &t->dtype);
  if (status == SY_STATUS_OK) status = sy_tensor_ndim(t->handle, &t->ndim);
  if (status == SY_STATUS_OK) status = sy_tensor_shape(t->handle, t->shape, SY_MAX_RANK);
  if (status == SY_STATUS_OK) {
    status = sy_tensor_strides(t->handle, t->strides, SY_MAX_RANK);
  }
  if (status != SY_STATUS_OK) {
    RaiseLastError(status);
    return false;
  }
  t->layout_known = true;
  return true;
}

bool IsContiguous(const TensorObject* t) {
  int64_t expected = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] == 0) return true;
    if (t->shape[d] != 1 && t->strides[d] != expected) return false;
    expected *= t->shape[d];
  }
  return true;
}

namespace {

PyObject* TensorNew(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  // TensorBase(context, handle): takes over one reference to `handle`.
  // Users make tensors with switchyard.tensor, empty, from_dlpack or ops.
  static const char* kKeywords[] = {"context", "handle", nullptr};
  PyObject* context;
  PyObject* handle_object;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:Tensor",
                                   const_cast<char**>(kKeywords), &context,
                                   &handle_object)) {
    return nullptr;
  }
  sy_tensor_t handle;
  if (!HandleFromPy(handle_object, &handle)) return nullptr;
  PyObject* object = type->tp_alloc(type, 0);
  if (object == nullptr) return nullptr;
  AsTensor(object)->handle = handle;
  Py_INCREF(context);
  AsTensor(object)->context = context;
  return object;
}

void TensorDealloc(PyObject* self) {
  TensorObject* t = AsTensor(self);
  if (t->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  // A handle of a closed context is stale: releasing it fails harmlessly.
  if (t->handle != nullptr) sy_tensor_release(t->handle);
  Py_XDECREF(t->context);
  Py_XDECREF(t->device);
  Py_TYPE(self)->tp_free(self);
}

PyObject* LayoutTuple(const int64_t* values, int32_t n) {
  PyObject* tuple = PyTuple_New(n);
  if (tuple == nullptr) return nullptr;
  for (int32_t d = 0; d < n; ++d) {
    PyObject* item = PyLong_FromLongLong(values[d]);
    if (item == nullptr) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, d, item);
  }
  return tuple;
}

int64_t Numel(const TensorObject* t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

#define SY_TENSOR_LAYOUT(t)           \
  TensorObject* t = AsTensor(self);   \
  if (!EnsureLayout(t)) return nullptr

PyObject* GetHandle(PyObject* self, void*) { return HandleToPy(AsTensor(self)->handle); }

PyObject* GetContext(PyObject* self, void*) {
  return Py_NewRef(AsTensor(self)->context);
}

PyObject* GetDType(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  const int slot = DTypeSlot(t->dtype);
  if (slot < 0 || g.dtypes[slot] == nullptr) {
    return PyErr_Format(PyExc_ValueError, "unknown dtype value %#x", t->dtype);
  }
  return Py_NewRef(g.dtypes[slot]);
}

PyObject* GetNdim(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  return PyLong_FromLong(t->ndim);
}

PyObject* GetShape(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  return LayoutTuple(t->shape, t->ndim);
}

PyObject* GetStrides(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  return LayoutTuple(t->strides, t->ndim);
}

PyObject* GetNumel(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  return PyLong_FromLongLong(Numel(t));
}

PyObject* GetNbytes(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  return PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(Numel(t)) *
                                     sy_dtype_size(t->dtype));
}

PyObject* GetItemsize(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  return PyLong_FromSize_t(sy_dtype_size(t->dtype));
}

PyObject* GetIsContiguous(PyObject* self, void*) {
  SY_TENSOR_LAYOUT(t);
  return PyBool_FromLong(IsContiguous(t));
}

PyObject* GetDataPtr(PyObject* self, void*) {
  void* data = nullptr;
  if (sy_status_code_t s = sy_tensor_data_ptr(AsTensor(self)->handle, &data);
      s != SY_STATUS_OK) {
    return RaiseLastError(s);
  }
  return PyLong_FromVoidPtr(data);
}

PyObject* GetDevice(PyObject* self, void*) {
  TensorObject* t = AsTensor(self);
  if (t->device == nullptr) {
    sy_device_handle_t device;
    if (sy_status_code_t s = sy_tensor_device(t->handle, &device); s != SY_STATUS_OK) {
      return RaiseLastError(s);
    }
    PyRef handle(HandleToPy(device));
    if (!handle) return nullptr;
    t->device = PyObject_CallMethod(t->context, "_device", "O", handle.get());
    if (t->device == nullptr) return nullptr;
  }
  return Py_NewRef(t->device);
}

#undef SY_TENSOR_LAYOUT

Py_ssize_t TensorLength(PyObject* self) {
  TensorObject* t = AsTensor(self);
  if (!EnsureLayout(t)) return -1;
  if (t->ndim == 0) {
    PyErr_SetString(PyExc_TypeError, "len() of a 0-d tensor");
    return -1;
  }
  return static_cast<Py_ssize_t>(t->shape[0]);
}

PyGetSetDef g_getset[] = {
    {"handle", GetHandle, nullptr, "The C sy_tensor_t handle (an int).", nullptr},
    {"context", GetContext, nullptr, "The switchyard.Context the tensor belongs to.",
     nullptr},
    {"dtype", GetDType, nullptr, "The element type (a switchyard.DType).", nullptr},
    {"ndim", GetNdim, nullptr, "The number of dimensions.", nullptr},
    {"shape", GetShape, nullptr, "The sizes, a tuple of ints.", nullptr},
    {"strides", GetStrides, nullptr,
     "Strides in elements (NumPy's are in bytes; PyTorch's are in elements).",
     nullptr},
    {"numel", GetNumel, nullptr, "The number of elements.", nullptr},
    {"nbytes", GetNbytes, nullptr, "numel × itemsize.", nullptr},
    {"itemsize", GetItemsize, nullptr, "Bytes per element.", nullptr},
    {"is_contiguous", GetIsContiguous, nullptr,
     "Whether the layout is dense and row-major.", nullptr},
    {"data_ptr", GetDataPtr, nullptr,
     "Address of the first element in device memory (an int).", nullptr},
    {"device", GetDevice, nullptr, "The switchyard.Device the tensor lives on.",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMappingMethods g_mapping = {TensorLength, TensorGetItem, nullptr};

PyMethodDef g_methods[] = {
    {"reshape", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(TensorReshape)),
     METH_FASTCALL,
     "reshape(*shape) -> Tensor\n\nThe tensor with another shape (one size may be "
     "-1): a view when the layout allows, else a copy (as PyTorch's reshape)."},
    {"view", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(TensorView)),
     METH_FASTCALL,
     "view(*shape) -> Tensor\n\nA view with another shape; raises when the layout "
     "cannot be viewed so (use reshape, which copies then)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

bool AddTensorType(PyObject* module) {
  PyTypeObject& type = g_tensor_base_type;
  type.tp_name = "switchyard._C.TensorBase";
  type.tp_basicsize = sizeof(TensorObject);
  type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE;
  type.tp_doc = "The C half of switchyard.Tensor: one reference to a C tensor handle.";
  type.tp_new = TensorNew;
  type.tp_dealloc = TensorDealloc;
  type.tp_weaklistoffset = offsetof(TensorObject, weakrefs);
  type.tp_getset = g_getset;
  type.tp_methods = g_methods;
  type.tp_as_mapping = &g_mapping;
  InstallTensorOperators(&type);
  if (PyType_Ready(&type) < 0) return false;
  return PyModule_AddObjectRef(module, "TensorBase",
                               reinterpret_cast<PyObject*>(&type)) == 0;
}

}  // namespace sy::python
