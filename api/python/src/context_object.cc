#include "context_object.h"

#include <cstddef>

namespace sy::python {
namespace {

PyTypeObject g_context_base_type = {PyVarObject_HEAD_INIT(nullptr, 0)};

constexpr const char* kNames[] = {"add", "sub", "mul", "div", "pow",
                                  "matmul", "neg", "abs", "eq", "ne",
                                  "lt", "le", "gt", "ge", "reshape"};
static_assert(sizeof kNames / sizeof kNames[0] ==
              static_cast<size_t>(CachedOp::kCount));

ContextObject* AsContext(PyObject* object) {
  return reinterpret_cast<ContextObject*>(object);
}

void ForgetOps(ContextObject* c) {
  for (PyObject*& op : c->ops) Py_CLEAR(op);
}

int ContextTraverse(PyObject* self, visitproc visit, void* arg) {
  ContextObject* c = AsContext(self);
  Py_VISIT(c->dict);
  for (PyObject* op : c->ops) Py_VISIT(op);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int ContextClear(PyObject* self) {
  ContextObject* c = AsContext(self);
  Py_CLEAR(c->dict);
  ForgetOps(c);
  return 0;
}

void ContextDealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  if (AsContext(self)->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  ContextClear(self);
  // A Python subclass's dealloc (subtype_dealloc) drops the type's
  // reference after this returns.
  Py_TYPE(self)->tp_free(self);
}

PyObject* ForgetOpsMethod(PyObject* self, PyObject*) {
  ForgetOps(AsContext(self));
  Py_RETURN_NONE;
}

PyGetSetDef g_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMethodDef g_methods[] = {
    {"_forget_ops", ForgetOpsMethod, METH_NOARGS,
     "Drops the cached op packets (after a plugin load or unload)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

PyObject* ContextOp(PyObject* context, CachedOp op) {
  const int i = static_cast<int>(op);
  if (PyObject_TypeCheck(context, &g_context_base_type)) {
    ContextObject* c = AsContext(context);
    if (c->ops[i] != nullptr) return c->ops[i];
  }
  PyRef ops(PyObject_GetAttrString(context, "ops"));
  if (!ops) return nullptr;
  PyObject* packet = PyObject_GetAttrString(ops.get(), kNames[i]);
  if (packet == nullptr) return nullptr;
  if (PyObject_TypeCheck(context, &g_context_base_type)) {
    Py_XSETREF(AsContext(context)->ops[i], packet);
    return packet;
  }
  // Not a ContextBase (cannot happen from the package): keep nothing.
  Py_DECREF(packet);  // still referenced by the namespace
  return packet;
}

bool AddContextType(PyObject* module) {
  PyTypeObject& type = g_context_base_type;
  type.tp_name = "switchyard._C.ContextBase";
  type.tp_basicsize = sizeof(ContextObject);
  type.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC;
  type.tp_doc = "The C half of switchyard.Context (its cached op packets).";
  type.tp_new = PyType_GenericNew;
  type.tp_dealloc = ContextDealloc;
  type.tp_traverse = ContextTraverse;
  type.tp_clear = ContextClear;
  type.tp_dictoffset = offsetof(ContextObject, dict);
  type.tp_weaklistoffset = offsetof(ContextObject, weakrefs);
  type.tp_methods = g_methods;
  type.tp_getset = g_getset;
  if (PyType_Ready(&type) < 0) return false;
  return PyModule_AddObjectRef(module, "ContextBase",
                               reinterpret_cast<PyObject*>(&type)) == 0;
}

}  // namespace sy::python
