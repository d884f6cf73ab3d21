// switchyard._C: the package's compiled half (docs/python.md#the-binding).
// Tensors (_C.TensorBase), op overloads and packets called by vectorcall,
// contexts' op caches, and the module functions the Python half calls.
#include <dlfcn.h>

#include "autotune_functions.h"
#include "context_functions.h"
#include "distributed_functions.h"
#include "context_object.h"
#include "dlpack_capsules.h"
#include "graph_functions.h"
#include "globals.h"
#include "host_data.h"
#include "log_functions.h"
#include "op_objects.h"
#include "tensor_object.h"

namespace sy::python {

Globals g;

int DTypeSlot(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F32: return 0;
    case SY_DTYPE_F64: return 1;
    case SY_DTYPE_F16: return 2;
    case SY_DTYPE_BF16: return 3;
    case SY_DTYPE_I32: return 4;
    case SY_DTYPE_I64: return 5;
    case SY_DTYPE_I8: return 6;
    case SY_DTYPE_U8: return 7;
    case SY_DTYPE_BOOL: return 8;
    default: return -1;
  }
}

namespace {

// _register(tensor_type, errors, dtypes, as_dtype, reflected, integral,
//           real, numpy_bool): what the Python half provides (globals.h).
PyObject* Register(PyObject*, PyObject* args) {
  PyObject *tensor_type, *errors, *dtypes, *as_dtype, *reflected, *integral, *real,
      *numpy_bool;
  if (!PyArg_ParseTuple(args, "O!O!O!OOOOO:_register", &PyType_Type, &tensor_type,
                        &PyDict_Type, &errors, &PyList_Type, &dtypes, &as_dtype,
                        &reflected, &integral, &real, &numpy_bool)) {
    return nullptr;
  }
  if (!PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(tensor_type), &g_tensor_base_type)) {
    PyErr_SetString(PyExc_TypeError, "the tensor type must derive from _C.TensorBase");
    return nullptr;
  }
  Py_XSETREF(g.tensor_type,
             reinterpret_cast<PyTypeObject*>(Py_NewRef(tensor_type)));
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(errors, &pos, &key, &value)) {
    const long code = PyLong_AsLong(key);
    if (code <= 0 || code >= 16) {
      PyErr_SetString(PyExc_ValueError, "error codes run from 1 to 15");
      return nullptr;
    }
    Py_XSETREF(g.errors[code], Py_NewRef(value));
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(dtypes); ++i) {
    PyObject* dtype = PyList_GET_ITEM(dtypes, i);
    PyRef number(PyObject_GetAttrString(dtype, "value"));
    if (!number) return nullptr;
    const int slot = DTypeSlot(static_cast<sy_dtype_t>(PyLong_AsUnsignedLong(number.get())));
    if (slot < 0) {
      PyErr_SetString(PyExc_ValueError, "not one of the nine dtypes");
      return nullptr;
    }
    Py_XSETREF(g.dtypes[slot], Py_NewRef(dtype));
  }
  Py_XSETREF(g.as_dtype, Py_NewRef(as_dtype));
  Py_XSETREF(g.reflected, Py_NewRef(reflected));
  Py_XSETREF(g.integral, Py_NewRef(integral));
  Py_XSETREF(g.real, Py_NewRef(real));
  Py_XSETREF(g.numpy_bool, Py_NewRef(numpy_bool));
  Py_RETURN_NONE;
}

// _set_profiler(callback or None) -> the previous one (switchyard.profile).
PyObject* SetProfiler(PyObject*, PyObject* callback) {
  PyObject* previous = g.profiler != nullptr ? g.profiler : Py_NewRef(Py_None);
  g.profiler = callback == Py_None ? nullptr : Py_NewRef(callback);
  return previous;
}

// The file libswitchyard was loaded from (sy.library_path).
PyObject* LibraryPath(PyObject*, PyObject*) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&sy_api_version), &info) == 0 ||
      info.dli_fname == nullptr) {
    Py_RETURN_NONE;
  }
  return Text(info.dli_fname);
}


PyMethodDef g_module_functions[] = {
    {"_register", Register, METH_VARARGS, nullptr},
    {"_set_profiler", SetProfiler, METH_O, nullptr},
    {"library_path", LibraryPath, METH_NOARGS, nullptr},
    {"tensor_from_host",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(TensorFromHost)),
     METH_FASTCALL, nullptr},
    {"tensor_to_host", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(TensorToHost)),
     METH_FASTCALL, nullptr},
    {"tensor_empty", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(TensorEmpty)),
     METH_FASTCALL, nullptr},
    {"tensor_to_device",
     reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(TensorToDevice)),
     METH_FASTCALL, nullptr},
    {"to_dlpack", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ToDLPack)),
     METH_FASTCALL, nullptr},
    {"from_dlpack", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(FromDLPack)),
     METH_FASTCALL, nullptr},
    {"cuda_wait_legacy_stream", CudaWaitLegacyStream, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef g_module = {PyModuleDef_HEAD_INIT, "switchyard._C",
                        "The compiled half of the switchyard package.", -1, nullptr};

bool AddFunctions(PyObject* module, PyMethodDef* table) {
  return PyModule_AddFunctions(module, table) == 0;
}

}  // namespace
}  // namespace sy::python

PyMODINIT_FUNC PyInit__C() {
  using namespace sy::python;
  PyRef module(PyModule_Create(&g_module));
  if (!module) return nullptr;
  g.str_out = PyUnicode_InternFromString("out");
  if (g.str_out == nullptr || !AddFunctions(module.get(), g_module_functions) ||
      !AddFunctions(module.get(), g_context_functions) ||
      !AddFunctions(module.get(), g_distributed_functions) ||
      !AddFunctions(module.get(), g_autotune_functions) ||
      !AddFunctions(module.get(), g_log_functions) ||
      !AddFunctions(module.get(), g_graph_functions) || !AddTensorType(module.get()) ||
      !AddContextType(module.get()) || !AddOpTypes(module.get())) {
    return nullptr;
  }
  return module.release();
}
