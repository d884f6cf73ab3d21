#include "graph_functions.h"

#include <string>
#include <vector>

#include "errors.h"
#include "tensor_object.h"
#include "switchyard/switchyard.h"

namespace sy::python {
namespace {

#define SY_CHECK(call)                                              \
  do {                                                              \
    if (sy_status_code_t status_ = (call); status_ != SY_STATUS_OK) \
      return RaiseLastError(status_);                               \
  } while (0)

bool TensorArg(PyObject* object, sy_tensor_t* out, const char* what) {
  if (!IsTensor(object)) {
    PyErr_Format(PyExc_TypeError, "%s must be a switchyard.Tensor, not %.100s", what,
                 Py_TYPE(object)->tp_name);
    return false;
  }
  *out = AsTensor(object)->handle;
  return true;
}

// A name argument: None or str.
bool NameArg(PyObject* object, const char** out) {
  if (object == Py_None) {
    *out = nullptr;
    return true;
  }
  *out = PyUnicode_AsUTF8(object);
  return *out != nullptr;
}

// graph_capture_begin(context, uncapturable: sequence of str)
PyObject* CaptureBegin(PyObject*, PyObject* args) {
  PyObject *context_obj, *names_obj;
  if (!PyArg_ParseTuple(args, "OO:graph_capture_begin", &context_obj, &names_obj)) {
    return nullptr;
  }
  sy_context_t context;
  if (!HandleFromPy(context_obj, &context)) return nullptr;
  PyRef fast(PySequence_Fast(names_obj, "uncapturable must be a sequence of str"));
  if (!fast) return nullptr;
  std::vector<const char*> names;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast.get()); ++i) {
    const char* name = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast.get(), i));
    if (name == nullptr) return nullptr;
    names.push_back(name);
  }
  sy_graph_capture_args_t capture_args;
  sy_graph_capture_args_init(&capture_args);
  capture_args.uncapturable = names.data();
  capture_args.num_uncapturable = static_cast<int32_t>(names.size());
  SY_CHECK(sy_graph_capture_begin(context, &capture_args));
  Py_RETURN_NONE;
}

// graph_capture_input(context, context_object, example, name) -> Tensor
PyObject* CaptureInput(PyObject*, PyObject* args) {
  PyObject *context_obj, *owner, *example_obj, *name_obj;
  if (!PyArg_ParseTuple(args, "OOOO:graph_capture_input", &context_obj, &owner, &example_obj,
                        &name_obj)) {
    return nullptr;
  }
  sy_context_t context;
  sy_tensor_t example;
  const char* name;
  if (!HandleFromPy(context_obj, &context) || !TensorArg(example_obj, &example, "example") ||
      !NameArg(name_obj, &name)) {
    return nullptr;
  }
  sy_tensor_t input;
  SY_CHECK(sy_graph_capture_input(context, example, name, &input));
  return NewTensor(owner, input);
}

// graph_capture_output(context, tensor, name)
PyObject* CaptureOutput(PyObject*, PyObject* args) {
  PyObject *context_obj, *tensor_obj, *name_obj;
  if (!PyArg_ParseTuple(args, "OOO:graph_capture_output", &context_obj, &tensor_obj,
                        &name_obj)) {
    return nullptr;
  }
  sy_context_t context;
  sy_tensor_t tensor;
  const char* name;
  if (!HandleFromPy(context_obj, &context) || !TensorArg(tensor_obj, &tensor, "output") ||
      !NameArg(name_obj, &name)) {
    return nullptr;
  }
  SY_CHECK(sy_graph_capture_output(context, tensor, name));
  Py_RETURN_NONE;
}

// graph_capture_end(context) -> graph handle
PyObject* CaptureEnd(PyObject*, PyObject* context_obj) {
  sy_context_t context;
  if (!HandleFromPy(context_obj, &context)) return nullptr;
  sy_graph_t graph;
  SY_CHECK(sy_graph_capture_end(context, &graph));
  return HandleToPy(graph);
}

// graph_compile(graph, fuse, plugin_compilers, decompose, patterns)
PyObject* Compile(PyObject*, PyObject* args) {
  PyObject* graph_obj;
  int fuse, plugin_compilers, decompose, patterns;
  if (!PyArg_ParseTuple(args, "Opppi:graph_compile", &graph_obj, &fuse, &plugin_compilers,
                        &decompose, &patterns)) {
    return nullptr;
  }
  sy_graph_t graph;
  if (!HandleFromPy(graph_obj, &graph)) return nullptr;
  sy_graph_compile_args_t compile_args;
  sy_graph_compile_args_init(&compile_args);
  compile_args.fuse = fuse;
  compile_args.plugin_compilers = plugin_compilers;
  compile_args.decompose = decompose;
  compile_args.patterns = patterns;
  sy_status_code_t status;
  Py_BEGIN_ALLOW_THREADS  // a plugin may compile kernels (NVRTC: ~100 ms)
  status = sy_graph_compile(graph, &compile_args);
  Py_END_ALLOW_THREADS
  if (status != SY_STATUS_OK) return RaiseLastError(status);
  Py_RETURN_NONE;
}

// graph_launch(graph, context_object, inputs: sequence of Tensor,
//              num_outputs) -> list of Tensor
PyObject* Launch(PyObject*, PyObject* args) {
  PyObject *graph_obj, *owner, *inputs_obj;
  int num_outputs;
  if (!PyArg_ParseTuple(args, "OOOi:graph_launch", &graph_obj, &owner, &inputs_obj,
                        &num_outputs)) {
    return nullptr;
  }
  sy_graph_t graph;
  if (!HandleFromPy(graph_obj, &graph)) return nullptr;
  PyRef fast(PySequence_Fast(inputs_obj, "inputs must be a sequence of Tensor"));
  if (!fast) return nullptr;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.get());
  std::vector<sy_tensor_t> inputs(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(fast.get(), i);
    if (!IsTensor(item)) {
      PyErr_Format(PyExc_TypeError,
                   "graph input #%zd must be a switchyard.Tensor, not %.100s", i,
                   Py_TYPE(item)->tp_name);
      return nullptr;
    }
    inputs[static_cast<size_t>(i)] = AsTensor(item)->handle;
  }
  std::vector<sy_tensor_t> outputs(static_cast<size_t>(num_outputs > 0 ? num_outputs : 0));
  SY_CHECK(sy_graph_launch(graph, inputs.data(), static_cast<int32_t>(n), outputs.data(),
                           num_outputs));
  PyRef list(PyList_New(num_outputs));
  if (!list) {
    for (sy_tensor_t t : outputs) sy_tensor_release(t);
    return nullptr;
  }
  for (int j = 0; j < num_outputs; ++j) {
    PyObject* tensor = NewTensor(owner, outputs[j]);  // takes the reference
    if (tensor == nullptr) {
      for (int k = j + 1; k < num_outputs; ++k) sy_tensor_release(outputs[k]);
      return nullptr;
    }
    PyList_SET_ITEM(list.get(), j, tensor);
  }
  return list.release();
}

PyObject* Release(PyObject*, PyObject* graph_obj) {
  sy_graph_t graph;
  if (!HandleFromPy(graph_obj, &graph)) return nullptr;
  SY_CHECK(sy_graph_release(graph));
  Py_RETURN_NONE;
}

// graph_info(graph) -> (num_inputs, num_outputs, num_ops, compiled,
//   fused_groups, fused_ops, unfused_groups, patterns, kernels_compiled,
//   kernels_from_memory, kernels_from_disk, compile_ms)
PyObject* Info(PyObject*, PyObject* graph_obj) {
  sy_graph_t graph;
  if (!HandleFromPy(graph_obj, &graph)) return nullptr;
  sy_graph_info_t i{};
  i.struct_size = sizeof i;
  SY_CHECK(sy_graph_get_info(graph, &i));
  return Py_BuildValue("(iiiNiiiiiiid)", i.num_inputs, i.num_outputs, i.num_ops,
                       PyBool_FromLong(i.compiled), i.fused_groups, i.fused_ops,
                       i.unfused_groups, i.patterns, i.kernels_compiled,
                       i.kernels_from_memory, i.kernels_from_disk, i.compile_ms);
}

// graph_value(graph, is_output, index) -> (name, dtype, shape, device handle)
PyObject* Value(PyObject*, PyObject* args) {
  PyObject* graph_obj;
  int is_output, index;
  if (!PyArg_ParseTuple(args, "Opi:graph_value", &graph_obj, &is_output, &index)) return nullptr;
  sy_graph_t graph;
  if (!HandleFromPy(graph_obj, &graph)) return nullptr;
  sy_graph_value_info_t v{};
  v.struct_size = sizeof v;
  SY_CHECK(sy_graph_get_value(graph, is_output, index, &v));
  PyRef shape(PyTuple_New(v.ndim));
  if (!shape) return nullptr;
  for (int d = 0; d < v.ndim; ++d) {
    PyObject* size = PyLong_FromLongLong(v.shape[d]);
    if (size == nullptr) return nullptr;
    PyTuple_SET_ITEM(shape.get(), d, size);
  }
  return Py_BuildValue("(NiNN)", Text(v.name), static_cast<int>(v.dtype), shape.release(),
                       HandleToPy(v.device));
}

// graph_explain(graph, flags) -> str
PyObject* Explain(PyObject*, PyObject* args) {
  PyObject* graph_obj;
  int flags;
  if (!PyArg_ParseTuple(args, "Oi:graph_explain", &graph_obj, &flags)) return nullptr;
  sy_graph_t graph;
  if (!HandleFromPy(graph_obj, &graph)) return nullptr;
  const char* text;
  SY_CHECK(sy_graph_explain(graph, flags, &text));
  return Text(text);
}

}  // namespace

PyMethodDef g_graph_functions[] = {
    {"graph_capture_begin", CaptureBegin, METH_VARARGS, nullptr},
    {"graph_capture_input", CaptureInput, METH_VARARGS, nullptr},
    {"graph_capture_output", CaptureOutput, METH_VARARGS, nullptr},
    {"graph_capture_end", CaptureEnd, METH_O, nullptr},
    {"graph_compile", Compile, METH_VARARGS, nullptr},
    {"graph_launch", Launch, METH_VARARGS, nullptr},
    {"graph_release", Release, METH_O, nullptr},
    {"graph_info", Info, METH_O, nullptr},
    {"graph_value", Value, METH_VARARGS, nullptr},
    {"graph_explain", Explain, METH_VARARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace sy::python
