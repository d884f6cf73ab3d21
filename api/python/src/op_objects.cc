#include "op_objects.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "autotune_functions.h"
#include "errors.h"
#include "globals.h"
#include "op_binding.h"
#include "op_plan.h"
#include "tensor_object.h"

namespace sy::python {
namespace {

struct OverloadObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* dict;
  PyObject* context;  // the switchyard.Context whose op this is (strong)
  OpPlan* plan;
};

struct PacketObject {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  PyObject* dict;
  PyObject* name;       // str
  PyObject* overloads;  // tuple of OverloadObject
};

PyTypeObject g_overload_type = {PyVarObject_HEAD_INIT(nullptr, 0)};
PyTypeObject g_packet_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

OverloadObject* AsOverload(PyObject* o) { return reinterpret_cast<OverloadObject*>(o); }
PacketObject* AsPacket(PyObject* o) { return reinterpret_cast<PacketObject*>(o); }

PyObject* Utf8(const std::string& text) {
  return PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
}

// ---- Running a bound call ---------------------------------------------------

// The outputs of a successful call: one tensor, or a tuple of them.
PyObject* WrapOutputs(PyObject* context, const sy_tensor_t* handles, int32_t n) {
  if (n == 1) return NewTensor(context, handles[0]);
  PyObject* tuple = PyTuple_New(n);
  if (tuple == nullptr) {
    for (int32_t i = 0; i < n; ++i) sy_tensor_release(handles[i]);
    return nullptr;
  }
  for (int32_t i = 0; i < n; ++i) {
    PyObject* t = NewTensor(context, handles[i]);
    if (t == nullptr) {
      for (int32_t j = i + 1; j < n; ++j) sy_tensor_release(handles[j]);
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, i, t);
  }
  return tuple;
}

// `out=`: the tensors to write, checked to be tensors and as many as the
// op returns (C checks their dtype, shape and device).
bool OutHandles(const OpPlan& plan, PyObject* out, sy_tensor_t* handles) {
  if (plan.num_outputs == 1 && IsTensor(out)) {
    handles[0] = AsTensor(out)->handle;
    return true;
  }
  if ((PyTuple_Check(out) || PyList_Check(out)) &&
      PySequence_Fast_GET_SIZE(out) == plan.num_outputs) {
    PyObject** items = PySequence_Fast_ITEMS(out);
    bool all = true;
    for (int32_t i = 0; i < plan.num_outputs; ++i) {
      all = all && IsTensor(items[i]);
      if (all) handles[i] = AsTensor(items[i])->handle;
    }
    if (all) return true;
  }
  PyRef type_name(PyType_GetName(Py_TYPE(out)));
  RaiseStatus(SY_STATUS_INVALID_ARGUMENT,
              plan.full_name + ": out= must be " +
                  (plan.num_outputs == 1
                       ? std::string("a Tensor")
                       : "a tuple of " + std::to_string(plan.num_outputs) + " Tensors") +
                  ", got " + (type_name ? PyUnicode_AsUTF8(type_name.get()) : "?"));
  return false;
}

// sy.profile(): the route as explain tells it, and the call's time up to
// its device finishing, handed to the profiler's callback.
PyObject* RunProfiled(const OpPlan& plan, PyObject* context, const BoundCall& call,
                      PyObject* result_or_null_on_error, double seconds);

// The op runs without the GIL, so ops on several Python threads run in
// parallel (a large matmul does not stall the interpreter). Releasing and
// taking it back costs ~40 ns per call (docs/python.md#measured).
#define SY_PYTHON_ALLOW_THREADS(statement) \
  Py_BEGIN_ALLOW_THREADS statement;         \
  Py_END_ALLOW_THREADS

// Runs the bound call: sy_op_call, or sy_op_call_out into `out=`.
PyObject* Run(const OpPlan& plan, PyObject* context, const BoundCall& call) {
  constexpr int32_t kMaxOutputs = 8;
  if (plan.num_outputs > kMaxOutputs || plan.num_outputs < 1) {
    return RaiseStatus(SY_STATUS_UNIMPLEMENTED,
                       plan.full_name + " returns " + std::to_string(plan.num_outputs) +
                           " tensors; the Python binding takes 1 to 8");
  }
  const bool profiling = g.profiler != nullptr;
  const auto start = profiling ? std::chrono::steady_clock::now()
                               : std::chrono::steady_clock::time_point();
  sy_tensor_t outputs[kMaxOutputs];
  sy_status_code_t status;
  PyObject* result;
  if (call.out() != nullptr) {
    if (!OutHandles(plan, call.out(), outputs)) return nullptr;
    SY_PYTHON_ALLOW_THREADS(
        status = sy_op_call_out(plan.op, call.inputs(), call.num_inputs(), call.attrs(),
                                call.num_attrs(), outputs, plan.num_outputs));
    if (status != SY_STATUS_OK) return RaiseLastError(status);
    result = plan.num_outputs == 1 ? Py_NewRef(call.out()) : PySequence_Tuple(call.out());
  } else {
    SY_PYTHON_ALLOW_THREADS(
        status = sy_op_call(plan.op, call.inputs(), call.num_inputs(), call.attrs(),
                            call.num_attrs(), outputs, plan.num_outputs));
    if (status != SY_STATUS_OK) return RaiseLastError(status);
    result = WrapOutputs(context, outputs, plan.num_outputs);
  }
  if (!profiling || result == nullptr) return result;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return RunProfiled(plan, context, call, result, seconds);
}

PyObject* RunProfiled(const OpPlan& plan, PyObject* context, const BoundCall& call,
                      PyObject* result, double seconds) {
  PyRef owned(result);
  // The first output's device: wait for it, so the time covers the work.
  PyObject* first = PyTuple_Check(result) ? PyTuple_GET_ITEM(result, 0) : result;
  const auto start = std::chrono::steady_clock::now();
  sy_device_handle_t device;
  if (sy_tensor_device(AsTensor(first)->handle, &device) == SY_STATUS_OK) {
    sy_device_synchronize(device);
  }
  seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // How it ran, asked after the call with the same arguments (explain is
  // resolve without run, so it names what ran).
  const char* text = nullptr;
  std::string route;
  if (sy_op_explain(plan.op, call.inputs(), call.num_inputs(), call.attrs(),
                    call.num_attrs(), &text) == SY_STATUS_OK) {
    route = text;
  } else {
    route = std::string("? (") + sy_last_error_message() + ")";
  }
  PyRef name(Utf8(plan.full_name)), how(Utf8(route)), time(PyFloat_FromDouble(seconds));
  if (!name || !how || !time) return nullptr;
  PyObject* profiler = g.profiler;
  if (profiler != nullptr) {
    PyRef ignored(PyObject_CallFunctionObjArgs(profiler, name.get(), how.get(), first,
                                               time.get(), nullptr));
    if (!ignored) return nullptr;
  }
  return owned.release();
}

// ---- OpOverload -------------------------------------------------------------

PyObject* BindFailure(const OpPlan& plan, const BindError& error) {
  if (error.fail == BindFail::kPython) return nullptr;
  return RaiseStatus(SY_STATUS_INVALID_ARGUMENT,
                     plan.full_name + ": " + error.Format(plan) + "; schema: " + plan.schema);
}

PyObject* OverloadCall(PyObject* self, PyObject* const* args, size_t nargsf,
                       PyObject* kwnames) {
  OverloadObject* o = AsOverload(self);
  if (o->plan == nullptr) return PyErr_Format(PyExc_TypeError, "uninitialised OpOverload");
  BoundCall call;
  BindError error;
  if (!Bind(*o->plan, args, PyVectorcall_NARGS(nargsf), kwnames, &call, &error)) {
    return BindFailure(*o->plan, error);
  }
  return Run(*o->plan, o->context, call);
}

PyObject* Explain(const OpPlan& plan, const BoundCall& call) {
  const char* text = nullptr;
  if (sy_status_code_t s = sy_op_explain(plan.op, call.inputs(), call.num_inputs(),
                                         call.attrs(), call.num_attrs(), &text);
      s != SY_STATUS_OK) {
    return RaiseLastError(s);
  }
  return Text(text);
}

PyObject* OverloadExplain(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                          PyObject* kwnames) {
  OverloadObject* o = AsOverload(self);
  if (o->plan == nullptr) return PyErr_Format(PyExc_TypeError, "uninitialised OpOverload");
  BoundCall call;
  BindError error;
  if (!Bind(*o->plan, args, nargs, kwnames, &call, &error)) {
    return BindFailure(*o->plan, error);
  }
  return Explain(*o->plan, call);
}

// op.tune(*args, force=False, **kwargs): sy_op_tune on the call these
// arguments make (autotune_functions.h).
PyObject* OverloadTune(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                       PyObject* kwnames) {
  OverloadObject* o = AsOverload(self);
  if (o->plan == nullptr) return PyErr_Format(PyExc_TypeError, "uninitialised OpOverload");
  TuneArguments tune;
  if (!tune.Split(args, nargs, kwnames)) return nullptr;
  BoundCall call;
  BindError error;
  if (!Bind(*o->plan, tune.args(), tune.nargs(), tune.kwnames(), &call, &error)) {
    return BindFailure(*o->plan, error);
  }
  return TuneBoundCall(*o->plan, call, tune.flags());
}

int OverloadInit(PyObject* self, PyObject* args, PyObject* kwargs) {
  // OpOverload(context, handle)
  static const char* kKeywords[] = {"context", "handle", nullptr};
  PyObject* context;
  PyObject* handle_object;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:OpOverload",
                                   const_cast<char**>(kKeywords), &context,
                                   &handle_object)) {
    return -1;
  }
  sy_op_t handle;
  if (!HandleFromPy(handle_object, &handle)) return -1;
  OverloadObject* o = AsOverload(self);
  auto plan = std::make_unique<OpPlan>();
  if (!BuildPlan(handle, plan.get())) return -1;
  delete o->plan;
  o->plan = plan.release();
  Py_XSETREF(o->context, Py_NewRef(context));
  return 0;
}

PyObject* OverloadNew(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self != nullptr) AsOverload(self)->vectorcall = OverloadCall;
  return self;
}

int OverloadTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(AsOverload(self)->dict);
  Py_VISIT(AsOverload(self)->context);
  return 0;
}

int OverloadClear(PyObject* self) {
  Py_CLEAR(AsOverload(self)->dict);
  Py_CLEAR(AsOverload(self)->context);
  return 0;
}

void OverloadDealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  OverloadClear(self);
  delete AsOverload(self)->plan;
  Py_TYPE(self)->tp_free(self);
}

#define SY_PLAN_STRING(field)                                        \
  PyObject* Get_##field(PyObject* self, void*) {                     \
    if (AsOverload(self)->plan == nullptr) Py_RETURN_NONE;           \
    return Utf8(AsOverload(self)->plan->field);                      \
  }
SY_PLAN_STRING(full_name)
SY_PLAN_STRING(name)
SY_PLAN_STRING(ns)
SY_PLAN_STRING(overload)
SY_PLAN_STRING(schema)
SY_PLAN_STRING(owner)
#undef SY_PLAN_STRING

PyObject* GetNumOutputs(PyObject* self, void*) {
  return PyLong_FromLong(AsOverload(self)->plan ? AsOverload(self)->plan->num_outputs : 0);
}
PyObject* GetLive(PyObject* self, void*) {
  return PyBool_FromLong(AsOverload(self)->plan && AsOverload(self)->plan->live);
}
PyObject* GetOpHandle(PyObject* self, void*) {
  return HandleToPy(AsOverload(self)->plan ? AsOverload(self)->plan->op : nullptr);
}
PyObject* GetOpContext(PyObject* self, void*) {
  PyObject* context = AsOverload(self)->context;
  return Py_NewRef(context ? context : Py_None);
}

PyObject* GetArgDefaults(PyObject* self, void*) {
  // ((name, kind, kind_name, optional, has_default, default), …) for
  // _ops.py's signatures; defaults read again from C (they are not kept).
  const OpPlan* plan = AsOverload(self)->plan;
  if (plan == nullptr) return PyTuple_New(0);
  PyRef result(PyTuple_New(static_cast<Py_ssize_t>(plan->args.size())));
  if (!result) return nullptr;
  for (size_t i = 0; i < plan->args.size(); ++i) {
    const ArgPlan& a = plan->args[i];
    sy_op_arg_t raw{};
    raw.struct_size = sizeof raw;
    if (sy_status_code_t s = sy_op_get_arg(plan->op, static_cast<int32_t>(i), &raw);
        s != SY_STATUS_OK) {
      return RaiseLastError(s);
    }
    PyRef value(a.has_default ? DecodeAttr(raw.default_value) : Py_NewRef(Py_None));
    if (!value) return nullptr;
    PyObject* item = Py_BuildValue("(NisiiOs)", Utf8(a.name), a.kind, a.kind_name.c_str(),
                                   static_cast<int>(a.optional),
                                   static_cast<int>(a.has_default), value.get(),
                                   raw.default_text ? raw.default_text : "");
    if (item == nullptr) return nullptr;
    PyTuple_SET_ITEM(result.get(), static_cast<Py_ssize_t>(i), item);
  }
  return result.release();
}

PyGetSetDef g_overload_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {"full_name", Get_full_name, nullptr, "\"add.Tensor\"", nullptr},
    {"name", Get_name, nullptr, "\"add\"", nullptr},
    {"namespace", Get_ns, nullptr, "\"\" for the core set, else the plugin's", nullptr},
    {"overload", Get_overload, nullptr, "\"Tensor\", or \"\"", nullptr},
    {"schema", Get_schema, nullptr, "The schema text.", nullptr},
    {"owner", Get_owner, nullptr, "\"core\" or the plugin that registered it.", nullptr},
    {"num_outputs", GetNumOutputs, nullptr, "How many tensors it returns.", nullptr},
    {"live", GetLive, nullptr, "False once its plugin was unloaded.", nullptr},
    {"_handle", GetOpHandle, nullptr, "The C sy_op_t handle.", nullptr},
    {"_context", GetOpContext, nullptr, "The switchyard.Context.", nullptr},
    {"_arg_table", GetArgDefaults, nullptr, "The schema arguments, for _ops.py.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef g_overload_methods[] = {
    {"explain", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(OverloadExplain)),
     METH_FASTCALL | METH_KEYWORDS,
     "How a call with these arguments would run (which kernel, plugin), "
     "without running it."},
    {"tune", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(OverloadTune)),
     METH_FASTCALL | METH_KEYWORDS,
     "tune(*args, force=False, **kwargs): tunes the shape bucket of the call these "
     "arguments make (sy_op_tune) and returns the report as a dict."},
    {nullptr, nullptr, 0, nullptr}};

// ---- OpPacket ---------------------------------------------------------------

PyObject* PacketCall(PyObject* self, PyObject* const* args, size_t nargsf,
                     PyObject* kwnames) {
  PacketObject* p = AsPacket(self);
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const Py_ssize_t count = PyTuple_GET_SIZE(p->overloads);
  if (count == 1) {
    return OverloadCall(PyTuple_GET_ITEM(p->overloads, 0), args, nargsf, kwnames);
  }
  // Errors are formatted only if every overload refuses.
  BindError errors[8];
  for (Py_ssize_t k = 0; k < count; ++k) {
    OverloadObject* o = AsOverload(PyTuple_GET_ITEM(p->overloads, k));
    BoundCall call;
    BindError& error = errors[k < 8 ? k : 7];
    error = BindError();
    if (Bind(*o->plan, args, nargs, kwnames, &call, &error)) {
      return Run(*o->plan, o->context, call);
    }
    if (error.fail == BindFail::kPython) return nullptr;
  }
  const OpPlan& first = *AsOverload(PyTuple_GET_ITEM(p->overloads, 0))->plan;
  std::string message = (first.ns.empty() ? "" : first.ns + "::") + first.name +
                        ": no overload accepts these arguments:";
  for (Py_ssize_t k = 0; k < count; ++k) {
    const OpPlan& plan = *AsOverload(PyTuple_GET_ITEM(p->overloads, k))->plan;
    message += "\n  " + plan.schema + ": " +
               (k < 8 ? errors[k].Format(plan) : std::string("(not tried)"));
  }
  return RaiseStatus(SY_STATUS_INVALID_ARGUMENT, message);
}

// Runs `action` on the first overload that binds the arguments; when none
// does, raises the error a call would raise.
template <typename Action>
PyObject* OnFirstBinding(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                         PyObject* kwnames, Action action) {
  PacketObject* p = AsPacket(self);
  const Py_ssize_t count = PyTuple_GET_SIZE(p->overloads);
  for (Py_ssize_t k = 0; k < count; ++k) {
    OverloadObject* o = AsOverload(PyTuple_GET_ITEM(p->overloads, k));
    BoundCall call;
    BindError error;
    if (Bind(*o->plan, args, nargs, kwnames, &call, &error)) return action(*o->plan, call);
    if (error.fail == BindFail::kPython) return nullptr;
    if (k + 1 == count && count == 1) return BindFailure(*o->plan, error);
  }
  // Let the call path write the message it would write.
  PyObject* result = PacketCall(self, args, static_cast<size_t>(nargs), kwnames);
  Py_XDECREF(result);
  return nullptr;
}

PyObject* PacketExplain(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        PyObject* kwnames) {
  return OnFirstBinding(self, args, nargs, kwnames, Explain);
}

PyObject* PacketTune(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwnames) {
  TuneArguments tune;
  if (!tune.Split(args, nargs, kwnames)) return nullptr;
  return OnFirstBinding(self, tune.args(), tune.nargs(), tune.kwnames(),
                        [&](const OpPlan& plan, const BoundCall& call) {
                          return TuneBoundCall(plan, call, tune.flags());
                        });
}

int PacketInit(PyObject* self, PyObject* args, PyObject* kwargs) {
  // OpPacket(name, overloads)
  static const char* kKeywords[] = {"name", "overloads", nullptr};
  PyObject* name;
  PyObject* overloads;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UO:OpPacket",
                                   const_cast<char**>(kKeywords), &name, &overloads)) {
    return -1;
  }
  PyRef tuple(PySequence_Tuple(overloads));
  if (!tuple) return -1;
  if (PyTuple_GET_SIZE(tuple.get()) == 0) {
    PyErr_SetString(PyExc_ValueError, "an OpPacket needs at least one overload");
    return -1;
  }
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(tuple.get()); ++k) {
    PyObject* item = PyTuple_GET_ITEM(tuple.get(), k);
    if (!PyObject_TypeCheck(item, &g_overload_type) || AsOverload(item)->plan == nullptr) {
      PyErr_SetString(PyExc_TypeError, "OpPacket overloads must be initialised OpOverloads");
      return -1;
    }
  }
  PacketObject* p = AsPacket(self);
  Py_XSETREF(p->name, Py_NewRef(name));
  Py_XSETREF(p->overloads, tuple.release());
  return 0;
}

PyObject* PacketNew(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self != nullptr) {
    AsPacket(self)->vectorcall = PacketCall;
    AsPacket(self)->overloads = PyTuple_New(0);
  }
  return self;
}

int PacketTraverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(AsPacket(self)->dict);
  Py_VISIT(AsPacket(self)->name);
  Py_VISIT(AsPacket(self)->overloads);
  return 0;
}

int PacketClear(PyObject* self) {
  Py_CLEAR(AsPacket(self)->dict);
  Py_CLEAR(AsPacket(self)->name);
  Py_CLEAR(AsPacket(self)->overloads);
  return 0;
}

void PacketDealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  PacketClear(self);
  Py_TYPE(self)->tp_free(self);
}

PyObject* GetOverloads(PyObject* self, void*) {
  return PySequence_List(AsPacket(self)->overloads);
}

PyGetSetDef g_packet_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {"overloads", GetOverloads, nullptr, "The OpOverloads, in the order tried.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef g_packet_methods[] = {
    {"explain", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(PacketExplain)),
     METH_FASTCALL | METH_KEYWORDS,
     "How a call with these arguments would run (which overload, kernel and "
     "plugin), without running it."},
    {"tune", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(PacketTune)),
     METH_FASTCALL | METH_KEYWORDS,
     "tune(*args, force=False, **kwargs): tunes the shape bucket of the call these "
     "arguments make (the first overload that takes them; sy_op_tune) and returns "
     "the report as a dict."},
    {nullptr, nullptr, 0, nullptr}};

bool Ready(PyTypeObject& type, PyObject* module, const char* short_name) {
  if (PyType_Ready(&type) < 0) return false;
  return PyModule_AddObjectRef(module, short_name, reinterpret_cast<PyObject*>(&type)) == 0;
}

}  // namespace

bool AddOpTypes(PyObject* module) {
  PyTypeObject& o = g_overload_type;
  o.tp_name = "switchyard._C.OpOverload";
  o.tp_basicsize = sizeof(OverloadObject);
  o.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  o.tp_doc = "One op overload (one schema), callable.";
  o.tp_new = OverloadNew;
  o.tp_init = OverloadInit;
  o.tp_dealloc = OverloadDealloc;
  o.tp_traverse = OverloadTraverse;
  o.tp_clear = OverloadClear;
  o.tp_call = PyVectorcall_Call;
  o.tp_vectorcall_offset = offsetof(OverloadObject, vectorcall);
  o.tp_dictoffset = offsetof(OverloadObject, dict);
  o.tp_getset = g_overload_getset;
  o.tp_methods = g_overload_methods;

  PyTypeObject& p = g_packet_type;
  p.tp_name = "switchyard._C.OpPacket";
  p.tp_basicsize = sizeof(PacketObject);
  p.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL;
  p.tp_doc = "Every overload of one op name; a call runs the first that takes the "
             "arguments.";
  p.tp_new = PacketNew;
  p.tp_init = PacketInit;
  p.tp_dealloc = PacketDealloc;
  p.tp_traverse = PacketTraverse;
  p.tp_clear = PacketClear;
  p.tp_call = PyVectorcall_Call;
  p.tp_vectorcall_offset = offsetof(PacketObject, vectorcall);
  p.tp_dictoffset = offsetof(PacketObject, dict);
  p.tp_getset = g_packet_getset;
  p.tp_methods = g_packet_methods;
  return Ready(o, module, "OpOverload") && Ready(p, module, "OpPacket");
}

}  // namespace sy::python
