// The binding-cost probe, CPython side: the smallest extension that calls
// sy_op_call for `add(a, b)` through CPython's C API with vectorcall
// (METH_FASTCALL), beside probe_pybind.cc doing the same through pybind11.
// bench_binding.py times both (docs/python.md#why-the-c-api-not-pybind11).
// Not part of the package: it exists to measure one decision.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "switchyard/switchyard.h"

namespace {

sy_op_t g_op = nullptr;

struct ProbeTensor {
  PyObject_HEAD
  sy_tensor_t handle;
};

void ProbeTensorDealloc(PyObject* self) {
  sy_tensor_release(reinterpret_cast<ProbeTensor*>(self)->handle);
  Py_TYPE(self)->tp_free(self);
}

PyTypeObject g_tensor_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject* Wrap(sy_tensor_t handle) {
  auto* t = PyObject_New(ProbeTensor, &g_tensor_type);
  if (t == nullptr) {
    sy_tensor_release(handle);
    return nullptr;
  }
  t->handle = handle;
  return reinterpret_cast<PyObject*>(t);
}

// wrap(handle: int) -> Tensor, taking a new reference to the handle.
PyObject* WrapHandle(PyObject*, PyObject* arg) {
  auto handle = reinterpret_cast<sy_tensor_t>(PyLong_AsUnsignedLongLong(arg));
  if (PyErr_Occurred()) return nullptr;
  if (sy_tensor_retain(handle) != SY_STATUS_OK) {
    PyErr_SetString(PyExc_ValueError, sy_last_error_message());
    return nullptr;
  }
  return Wrap(handle);
}

PyObject* SetOp(PyObject*, PyObject* arg) {
  g_op = reinterpret_cast<sy_op_t>(PyLong_AsUnsignedLongLong(arg));
  if (PyErr_Occurred()) return nullptr;
  Py_RETURN_NONE;
}

PyObject* Add(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyObject_TypeCheck(args[0], &g_tensor_type) ||
      !PyObject_TypeCheck(args[1], &g_tensor_type)) {
    PyErr_SetString(PyExc_TypeError, "add(a: Tensor, b: Tensor)");
    return nullptr;
  }
  const sy_tensor_t inputs[2] = {reinterpret_cast<ProbeTensor*>(args[0])->handle,
                                 reinterpret_cast<ProbeTensor*>(args[1])->handle};
  sy_tensor_t out;
  if (sy_op_call(g_op, inputs, 2, nullptr, 0, &out, 1) != SY_STATUS_OK) {
    PyErr_SetString(PyExc_ValueError, sy_last_error_message());
    return nullptr;
  }
  return Wrap(out);
}

// The same argument checks without the C call: the binding's own floor.
PyObject* Noop(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !PyObject_TypeCheck(args[0], &g_tensor_type) ||
      !PyObject_TypeCheck(args[1], &g_tensor_type)) {
    PyErr_SetString(PyExc_TypeError, "noop(a: Tensor, b: Tensor)");
    return nullptr;
  }
  Py_RETURN_NONE;
}

PyMethodDef g_methods[] = {
    {"wrap", WrapHandle, METH_O, nullptr},
    {"set_op", SetOp, METH_O, nullptr},
    {"add", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(Add)),
     METH_FASTCALL, nullptr},
    {"noop", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(Noop)),
     METH_FASTCALL, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef g_module = {PyModuleDef_HEAD_INIT, "_probe_capi", nullptr, -1, g_methods};

}  // namespace

PyMODINIT_FUNC PyInit__probe_capi() {
  g_tensor_type.tp_name = "_probe_capi.Tensor";
  g_tensor_type.tp_basicsize = sizeof(ProbeTensor);
  g_tensor_type.tp_flags = Py_TPFLAGS_DEFAULT;
  g_tensor_type.tp_dealloc = ProbeTensorDealloc;
  if (PyType_Ready(&g_tensor_type) < 0) return nullptr;
  return PyModule_Create(&g_module);
}
