// Module functions of the shape most of the binding's non-op functions
// have — handle argument(s) → one C call → None or a status error — made
// from the C function itself, so each is one line of a method table:
//
//   {"context_synchronize", HandleCall<sy_context_t, sy_context_synchronize>, METH_O},
//   {"context_load_plugin",
//    HandleTextCall<sy_context_t, sy_context_load_plugin, kLoadPluginFormat>,
//    METH_VARARGS},
//
// Each releases the GIL around the C call unless told it is quick: the
// calls they wrap wait for devices, load plugins or read files.
#ifndef SWITCHYARD_API_PYTHON_SRC_HANDLE_CALLS_H_
#define SWITCHYARD_API_PYTHON_SRC_HANDLE_CALLS_H_

#include "errors.h"
#include "py_util.h"
#include "switchyard/switchyard.h"

namespace sy::python {

enum class Gil { kRelease, kKeep };

// f(handle) -> None: `call(handle)`.
template <typename Handle, sy_status_code_t (*call)(Handle), Gil gil = Gil::kRelease>
PyObject* HandleCall(PyObject*, PyObject* arg) {
  Handle handle;
  if (!HandleFromPy(arg, &handle)) return nullptr;
  sy_status_code_t status;
  if constexpr (gil == Gil::kRelease) {
    Py_BEGIN_ALLOW_THREADS
    status = call(handle);
    Py_END_ALLOW_THREADS
  } else {
    status = call(handle);
  }
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  Py_RETURN_NONE;
}

// f(handle, text: str) -> None: `call(handle, text)`. `format` is
// PyArg_ParseTuple's, "Os:<name>" (the name is what a wrong call's
// TypeError says).
template <typename Handle, sy_status_code_t (*call)(Handle, const char*), const char* format>
PyObject* HandleTextCall(PyObject*, PyObject* args) {
  PyObject* object;
  const char* text;
  if (!PyArg_ParseTuple(args, format, &object, &text)) return nullptr;
  Handle handle;
  if (!HandleFromPy(object, &handle)) return nullptr;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = call(handle, text);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  Py_RETURN_NONE;
}

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_HANDLE_CALLS_H_
