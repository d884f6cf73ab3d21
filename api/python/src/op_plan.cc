#include "op_plan.h"

#include "errors.h"
#include "globals.h"

namespace sy::python {
namespace {

// Names other libraries use for our arguments, accepted as keywords: a
// PyTorch or NumPy user's code runs as written. Only where the schema has
// no argument of that name.
struct Alias {
  const char* ours;
  const char* theirs;
};
constexpr Alias kAliases[] = {
    {"dims", "dim"},         // torch.sum(x, dim=1)
    {"dims", "axis"},        // np.sum(x, axis=1)
    {"keepdim", "keepdims"}, // np.sum(x, keepdims=True)
    {"causal", "is_causal"}, // F.scaled_dot_product_attention
    {"mask", "attn_mask"},   // F.scaled_dot_product_attention
};

PyObject* Intern(const std::string& text) {
  return PyUnicode_InternFromString(text.c_str());
}

}  // namespace

OpPlan::~OpPlan() {
  for (ArgPlan& arg : args) {
    Py_XDECREF(arg.py_name);
    for (PyObject* alias : arg.py_aliases) Py_XDECREF(alias);
  }
}

PyObject* DecodeAttr(const sy_attr_t& attr) {
  switch (attr.kind) {
    case SY_ATTR_INT: return PyLong_FromLongLong(attr.value.i);
    case SY_ATTR_FLOAT: return PyFloat_FromDouble(attr.value.f);
    case SY_ATTR_BOOL: return PyBool_FromLong(attr.value.b);
    case SY_ATTR_INTS: {
      PyObject* list = PyList_New(attr.value.ints.size);
      if (list == nullptr) return nullptr;
      for (int64_t i = 0; i < attr.value.ints.size; ++i) {
        PyObject* item = PyLong_FromLongLong(attr.value.ints.data[i]);
        if (item == nullptr) {
          Py_DECREF(list);
          return nullptr;
        }
        PyList_SET_ITEM(list, i, item);
      }
      return list;
    }
    case SY_ATTR_STRING:
      return PyUnicode_DecodeUTF8(attr.value.str.data, attr.value.str.size, "replace");
    case SY_ATTR_DTYPE: {
      const int slot = DTypeSlot(attr.value.dtype);
      if (slot >= 0 && g.dtypes[slot] != nullptr) return Py_NewRef(g.dtypes[slot]);
      return PyLong_FromUnsignedLong(attr.value.dtype);
    }
    default: Py_RETURN_NONE;
  }
}

bool BuildPlan(sy_op_t op, OpPlan* plan) {
  sy_op_info_t info{};
  info.struct_size = sizeof info;
  if (sy_status_code_t s = sy_op_get_info(op, &info); s != SY_STATUS_OK) {
    RaiseLastError(s);
    return false;
  }
  plan->op = op;
  plan->full_name = info.full_name;
  plan->name = info.name;
  plan->ns = info.ns;
  plan->overload = info.overload;
  plan->schema = info.schema;
  plan->owner = info.owner;
  plan->num_tensor_args = info.num_tensor_args;
  plan->num_attrs = info.num_attrs;
  plan->num_outputs = info.num_outputs;
  plan->list_arg = info.list_arg;
  plan->live = info.live != 0;
  if (info.num_attrs > kMaxAttrs) {
    PyErr_Format(PyExc_NotImplementedError,
                 "%s has %d attributes; the Python binding takes at most %d",
                 info.full_name, info.num_attrs, kMaxAttrs);
    return false;
  }
  plan->args.resize(static_cast<size_t>(info.num_args));
  for (int32_t i = 0; i < info.num_args; ++i) {
    sy_op_arg_t raw{};
    raw.struct_size = sizeof raw;
    if (sy_status_code_t s = sy_op_get_arg(op, i, &raw); s != SY_STATUS_OK) {
      RaiseLastError(s);
      return false;
    }
    ArgPlan& arg = plan->args[static_cast<size_t>(i)];
    arg.name = raw.name;
    arg.kind_name = raw.kind_name;
    arg.kind = raw.kind;
    arg.optional = raw.optional != 0;
    arg.has_default = raw.has_default != 0;
    arg.tensor_index = raw.tensor_index;
    arg.attr_index = raw.attr_index;
    arg.py_name = Intern(arg.name);
    if (arg.py_name == nullptr) return false;
  }
  for (ArgPlan& arg : plan->args) {
    for (const Alias& alias : kAliases) {
      if (arg.name != alias.ours) continue;
      bool taken = false;
      for (const ArgPlan& other : plan->args) taken |= other.name == alias.theirs;
      if (taken) continue;
      PyObject* name = Intern(alias.theirs);
      if (name == nullptr) return false;
      arg.py_aliases.push_back(name);
    }
  }
  return true;
}

}  // namespace sy::python
