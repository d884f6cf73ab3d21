#include "autotune_functions.h"

#include "errors.h"
#include "handle_calls.h"
#include "switchyard/switchyard.h"

namespace sy::python {
namespace {

// json.loads, imported on first use (reports are JSON documents whose
// fields may grow in later minors; a dict keeps them all).
PyObject* ParseJson(const char* text) {
  static PyObject* loads = nullptr;
  if (loads == nullptr) {
    PyRef json(PyImport_ImportModule("json"));
    if (!json) return nullptr;
    loads = PyObject_GetAttrString(json.get(), "loads");
    if (loads == nullptr) return nullptr;
  }
  PyRef str(Text(text));
  if (!str) return nullptr;
  return PyObject_CallOneArg(loads, str.get());
}

bool ContextOf(PyObject* object, sy_context_t* out) { return HandleFromPy(object, out); }

// context_set_autotune(handle, mode: str): switching to cached or on reads
// the cache (HandleTextCall releases the GIL).
constexpr char kSetAutotuneFormat[] = "Os:context_set_autotune";

// context_autotune(handle) -> "off" | "cached" | "on"
PyObject* ContextAutotune(PyObject*, PyObject* arg) {
  sy_context_t context;
  if (!ContextOf(arg, &context)) return nullptr;
  const char* mode = nullptr;
  if (sy_status_code_t s = sy_context_autotune(context, &mode); s != SY_STATUS_OK) {
    return RaiseLastError(s);
  }
  return Text(mode);
}

// What the progress callback of sy_context_tune_cases needs: the Python
// callable, and the first exception it raised (kept, and raised once the
// cases are done: the C call cannot be stopped midway).
struct Progress {
  PyObject* callback = nullptr;  // borrowed from the caller's arguments
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
};

void OnProgress(void* user_data, int32_t done, int32_t total, const char* row_json) {
  // Called on the thread that called sy_context_tune_cases, which released
  // the GIL around it: take it back for the callback.
  auto* progress = static_cast<Progress*>(user_data);
  const PyGILState_STATE gil = PyGILState_Ensure();
  if (progress->type == nullptr) {
    PyRef row(ParseJson(row_json));
    PyRef result(row ? PyObject_CallFunction(progress->callback, "iiO", done, total,
                                             row.get())
                     : nullptr);
    if (!result) PyErr_Fetch(&progress->type, &progress->value, &progress->traceback);
  }
  PyGILState_Release(gil);
}

// context_tune_cases(handle, cases_json: str, flags: int, progress or None)
//   -> the result document (a dict)
PyObject* ContextTuneCases(PyObject*, PyObject* args) {
  PyObject* handle;
  const char* cases;
  int flags;
  PyObject* callback;
  if (!PyArg_ParseTuple(args, "OsiO:context_tune_cases", &handle, &cases, &flags,
                        &callback)) {
    return nullptr;
  }
  sy_context_t context;
  if (!ContextOf(handle, &context)) return nullptr;
  Progress progress;
  progress.callback = callback == Py_None ? nullptr : callback;
  const char* json = nullptr;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_context_tune_cases(context, cases, flags,
                                 progress.callback ? OnProgress : nullptr, &progress,
                                 &json);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) {
    Py_XDECREF(progress.type);
    Py_XDECREF(progress.value);
    Py_XDECREF(progress.traceback);
    return RaiseLastError(status);
  }
  // Parsed before anything else runs on this thread (the text lives until
  // the next Switchyard call here).
  PyRef result(ParseJson(json));
  if (progress.type != nullptr) {
    PyErr_Restore(progress.type, progress.value, progress.traceback);
    return nullptr;
  }
  return result.release();
}

// context_autotune_export(handle, path: str, all_devices: bool) -> count
PyObject* ContextAutotuneExport(PyObject*, PyObject* args) {
  PyObject* handle;
  const char* path;
  int all_devices;
  if (!PyArg_ParseTuple(args, "Osp:context_autotune_export", &handle, &path,
                        &all_devices)) {
    return nullptr;
  }
  sy_context_t context;
  if (!ContextOf(handle, &context)) return nullptr;
  int64_t count = 0;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_context_autotune_export(context, path, all_devices, &count);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return PyLong_FromLongLong(count);
}

// context_autotune_import(handle, path: str) -> the import's record (dict)
PyObject* ContextAutotuneImport(PyObject*, PyObject* args) {
  PyObject* handle;
  const char* path;
  if (!PyArg_ParseTuple(args, "Os:context_autotune_import", &handle, &path)) return nullptr;
  sy_context_t context;
  if (!ContextOf(handle, &context)) return nullptr;
  const char* json = nullptr;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_context_autotune_import(context, path, &json);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return ParseJson(json);
}

// context_autotune_info(handle) -> the cache's summary (dict)
PyObject* ContextAutotuneInfo(PyObject*, PyObject* arg) {
  sy_context_t context;
  if (!ContextOf(arg, &context)) return nullptr;
  const char* json = nullptr;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_context_autotune_info_json(context, &json);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return ParseJson(json);
}

}  // namespace

bool TuneArguments::Split(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  nargs_ = nargs;
  args_.assign(args, args + nargs);
  if (kwnames == nullptr) return true;
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  std::vector<PyObject*> keys;  // borrowed from kwnames
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    PyObject* value = args[nargs + k];
    if (PyUnicode_CompareWithASCIIString(key, "force") != 0) {
      keys.push_back(key);
      args_.push_back(value);
      continue;
    }
    if (!PyBool_Check(value)) {
      PyErr_Format(PyExc_TypeError, "tune(): force must be a bool, got %s",
                   Py_TYPE(value)->tp_name);
      return false;
    }
    flags_ = value == Py_True ? SY_TUNE_FORCE : 0;
  }
  if (keys.empty()) return true;
  kwnames_.reset(PyTuple_New(static_cast<Py_ssize_t>(keys.size())));
  if (!kwnames_) return false;
  for (size_t k = 0; k < keys.size(); ++k) {
    PyTuple_SET_ITEM(kwnames_.get(), static_cast<Py_ssize_t>(k), Py_NewRef(keys[k]));
  }
  return true;
}

PyObject* TuneBoundCall(const OpPlan& plan, const BoundCall& call, int32_t flags) {
  sy_op_call_args_t args;
  sy_op_call_args_init(&args);
  args.op = plan.op;
  args.inputs = call.inputs();
  args.num_inputs = call.num_inputs();
  args.attrs = call.attrs();
  args.num_attrs = call.num_attrs();
  const char* json = nullptr;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS
  status = sy_op_tune(&args, flags, &json);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  return ParseJson(json);
}

PyMethodDef g_autotune_functions[] = {
    {"context_autotune", ContextAutotune, METH_O, nullptr},
    {"context_set_autotune",
     HandleTextCall<sy_context_t, sy_context_set_autotune, kSetAutotuneFormat>, METH_VARARGS,
     nullptr},
    {"context_tune_cases", ContextTuneCases, METH_VARARGS, nullptr},
    {"context_autotune_export", ContextAutotuneExport, METH_VARARGS, nullptr},
    {"context_autotune_import", ContextAutotuneImport, METH_VARARGS, nullptr},
    {"context_autotune_info", ContextAutotuneInfo, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace sy::python
