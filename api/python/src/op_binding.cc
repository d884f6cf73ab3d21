#include "op_binding.h"

#include <cstring>

#include "globals.h"
#include "tensor_object.h"

namespace sy::python {
namespace {

// The "missing" marker for schema arguments no caller value reached.
PyObject* const kMissing = nullptr;

std::string TypeName(PyObject* value) {
  PyRef name(PyType_GetName(Py_TYPE(value)));
  const char* text = name ? PyUnicode_AsUTF8(name.get()) : nullptr;
  if (text == nullptr) {
    PyErr_Clear();
    return Py_TYPE(value)->tp_name;
  }
  return text;
}

std::string Str(PyObject* value) {
  PyRef text(PyObject_Str(value));
  const char* utf8 = text ? PyUnicode_AsUTF8(text.get()) : nullptr;
  if (utf8 == nullptr) {
    PyErr_Clear();
    return "?";
  }
  return utf8;
}

bool IsInstance(PyObject* value, PyObject* type) {
  if (type == nullptr) return false;
  const int result = PyObject_IsInstance(value, type);
  if (result < 0) PyErr_Clear();
  return result == 1;
}

bool IsBool(PyObject* value) {
  return PyBool_Check(value) ||
         (g.numpy_bool != nullptr &&
          PyObject_TypeCheck(value, reinterpret_cast<PyTypeObject*>(g.numpy_bool)));
}

// "An int" as the package always meant it: numbers.Integral but not bool.
bool IsInt(PyObject* value) {
  if (PyLong_Check(value)) return !PyBool_Check(value);
  if (PyFloat_Check(value) || IsTensor(value) || PyUnicode_Check(value)) return false;
  return !IsBool(value) && IsInstance(value, g.integral);
}

enum class Convert { kOk, kWrongType, kRange, kPython };

// An int (IsInt) as int64; kRange when it does not fit (ctypes would have
// wrapped it silently, defeating the C side's range checks).
Convert ToInt64(PyObject* value, int64_t* out) {
  PyRef index;
  if (!PyLong_Check(value)) {
    index.reset(PyNumber_Index(value));
    if (!index) return Convert::kPython;
    value = index.get();
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0) return Convert::kRange;
  if (v == -1 && PyErr_Occurred()) return Convert::kPython;
  *out = v;
  return Convert::kOk;
}

// A float argument: a float, an int, or any numbers.Real but bool.
Convert ToDouble(PyObject* value, double* out) {
  if (PyFloat_Check(value)) {
    *out = PyFloat_AS_DOUBLE(value);
    return Convert::kOk;
  }
  if (IsBool(value) || IsTensor(value)) return Convert::kWrongType;
  if (PyLong_Check(value)) {
    *out = PyLong_AsDouble(value);
    if (*out == -1.0 && PyErr_Occurred()) {
      if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return Convert::kPython;
      PyErr_Clear();
      return Convert::kRange;
    }
    return Convert::kOk;
  }
  if (!IsInstance(value, g.real)) return Convert::kWrongType;
  *out = PyFloat_AsDouble(value);
  if (*out == -1.0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return Convert::kPython;
    PyErr_Clear();
    return Convert::kRange;
  }
  return Convert::kOk;
}

}  // namespace

std::string BindError::Format(const OpPlan& plan) const {
  const ArgPlan* a = arg >= 0 ? &plan.args[static_cast<size_t>(arg)] : nullptr;
  const std::string name = a ? "argument '" + a->name + "'" : "";
  switch (fail) {
    case BindFail::kTooMany:
      return "takes " + std::to_string(plan.args.size()) + " argument(s) but " +
             std::to_string(given) + " were given";
    case BindFail::kUnexpected:
      return "got an unexpected keyword argument '" + Str(value) + "'";
    case BindFail::kMultiple:
      return "got multiple values for argument '" + a->name + "'";
    case BindFail::kMissing:
      return "missing required argument '" + a->name + "' (" + a->kind_name + ")";
    case BindFail::kNotOptional:
      return name + " (" + a->kind_name + ") is not optional";
    case BindFail::kInt64Range: {
      std::string text = name;
      if (item >= 0) text.append("[").append(std::to_string(item)).append("]");
      return text + " is " + Str(value) + ", outside the int64 range [-2**63, 2**63 - 1]";
    }
    case BindFail::kFloatRange:
      return name + " is " + Str(value) + ", too large for a float (double)";
    case BindFail::kDType:
      return name + " (ScalarType): " + detail;
    case BindFail::kWrongType: {
      if (a->kind == SY_ARG_TENSOR) {
        if (value == Py_None) return name + " must be a Tensor, got None";
        const bool arraylike = PyObject_HasAttrString(value, "__array__");
        return name + " must be a Tensor, got " + TypeName(value) +
               (arraylike ? "; wrap it with switchyard.tensor()" : "");
      }
      if (a->kind == SY_ARG_TENSOR_LIST) {
        return name + " must be a list of Tensors, got " + TypeName(value);
      }
      return name + " must be " + a->kind_name + ", got " + TypeName(value);
    }
    case BindFail::kPython:
    case BindFail::kNone:
      break;
  }
  return "cannot bind the arguments";
}

void BoundCall::AddInput(sy_tensor_t handle) {
  if (heap_inputs_.empty() && num_inputs_ < kInlineInputs) {
    inline_inputs_[num_inputs_++] = handle;
    return;
  }
  if (heap_inputs_.empty()) {
    heap_inputs_.assign(inline_inputs_, inline_inputs_ + num_inputs_);
  }
  heap_inputs_.push_back(handle);
  ++num_inputs_;
}

int64_t* BoundCall::TakeInts(size_t count) {
  if (ints_used_ + count <= kInlineInts) {
    int64_t* ints = inline_ints_ + ints_used_;
    ints_used_ += count;
    return ints;
  }
  spilled_ints_.push_back(std::make_unique<int64_t[]>(count == 0 ? 1 : count));
  return spilled_ints_.back().get();
}

bool Bind(const OpPlan& plan, PyObject* const* args, Py_ssize_t nargs,
          PyObject* kwnames, BoundCall* call, BindError* error) {
  const Py_ssize_t num_args = static_cast<Py_ssize_t>(plan.args.size());
  if (nargs > num_args) {
    error->fail = BindFail::kTooMany;
    error->given = nargs;
    return false;
  }
  // Each schema argument's value: positional first, then keywords.
  PyObject* values[SY_MAX_RANK * 4 + kMaxAttrs];
  if (num_args > static_cast<Py_ssize_t>(sizeof values / sizeof values[0])) {
    PyErr_SetString(PyExc_NotImplementedError, "too many schema arguments");
    error->fail = BindFail::kPython;
    return false;
  }
  for (Py_ssize_t i = 0; i < num_args; ++i) values[i] = i < nargs ? args[i] : kMissing;
  if (kwnames != nullptr) {
    const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      PyObject* value = args[nargs + k];
      if (key == g.str_out) {  // out=None: a new result, as in NumPy and PyTorch
        call->out_ = value == Py_None ? nullptr : value;
        continue;
      }
      // Keyword names are interned by the compiler: compare pointers first.
      Py_ssize_t found = -1;
      for (Py_ssize_t i = 0; i < num_args && found < 0; ++i) {
        const ArgPlan& a = plan.args[static_cast<size_t>(i)];
        if (a.py_name == key) found = i;
        for (PyObject* alias : a.py_aliases) found = alias == key ? i : found;
      }
      for (Py_ssize_t i = 0; i < num_args && found < 0; ++i) {
        const ArgPlan& a = plan.args[static_cast<size_t>(i)];
        if (PyUnicode_Compare(a.py_name, key) == 0) found = i;
        for (PyObject* alias : a.py_aliases) {
          if (found < 0 && PyUnicode_Compare(alias, key) == 0) found = i;
        }
      }
      if (found < 0) {
        if (PyUnicode_CompareWithASCIIString(key, "out") == 0) {
          call->out_ = value == Py_None ? nullptr : value;
          continue;
        }
        error->fail = BindFail::kUnexpected;
        error->value = key;
        return false;
      }
      if (values[found] != kMissing) {
        error->fail = BindFail::kMultiple;
        error->arg = static_cast<int>(found);
        return false;
      }
      values[found] = value;
    }
  }

  int32_t last_given_attr = -1;
  for (Py_ssize_t i = 0; i < num_args; ++i) {
    const ArgPlan& a = plan.args[static_cast<size_t>(i)];
    PyObject* value = values[i];
    const auto fail = [&](BindFail why, PyObject* what = nullptr) {
      error->fail = why;
      error->arg = static_cast<int>(i);
      error->value = what != nullptr ? what : value;
      return false;
    };
    if (value == kMissing && !(a.has_default || a.optional)) {
      return fail(BindFail::kMissing);
    }
    if (a.kind == SY_ARG_TENSOR) {
      if (value == kMissing || value == Py_None) {
        if (!a.optional) return fail(BindFail::kWrongType, Py_None);
        call->AddInput(nullptr);
      } else if (IsTensor(value)) {
        call->AddInput(AsTensor(value)->handle);
        if (call->first_tensor_ == nullptr) call->first_tensor_ = value;
      } else {
        return fail(BindFail::kWrongType);
      }
      continue;
    }
    if (a.kind == SY_ARG_TENSOR_LIST) {
      if (value == kMissing || !(PyList_Check(value) || PyTuple_Check(value))) {
        return fail(BindFail::kWrongType, value == kMissing ? Py_None : value);
      }
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(value);
      PyObject** items = PySequence_Fast_ITEMS(value);
      for (Py_ssize_t k = 0; k < n; ++k) {
        if (!IsTensor(items[k])) return fail(BindFail::kWrongType);
      }
      for (Py_ssize_t k = 0; k < n; ++k) {
        call->AddInput(AsTensor(items[k])->handle);
        if (call->first_tensor_ == nullptr) call->first_tensor_ = items[k];
      }
      continue;
    }
    sy_attr_t& attr = call->attrs_[a.attr_index];
    std::memset(&attr, 0, sizeof attr);
    if (value == kMissing) {
      attr.kind = SY_ATTR_DEFAULT;
      continue;
    }
    last_given_attr = a.attr_index > last_given_attr ? a.attr_index : last_given_attr;
    if (value == Py_None) {
      if (!a.optional) return fail(BindFail::kNotOptional);
      attr.kind = SY_ATTR_NONE;
      continue;
    }
    switch (a.kind) {
      case SY_ARG_INT: {
        if (!IsInt(value)) return fail(BindFail::kWrongType);
        const Convert c = ToInt64(value, &attr.value.i);
        if (c == Convert::kRange) return fail(BindFail::kInt64Range);
        if (c != Convert::kOk) return fail(BindFail::kPython);
        attr.kind = SY_ATTR_INT;
        break;
      }
      case SY_ARG_FLOAT: {
        const Convert c = ToDouble(value, &attr.value.f);
        if (c == Convert::kWrongType) return fail(BindFail::kWrongType);
        if (c == Convert::kRange) return fail(BindFail::kFloatRange);
        if (c != Convert::kOk) return fail(BindFail::kPython);
        attr.kind = SY_ATTR_FLOAT;
        break;
      }
      case SY_ARG_SCALAR: {
        // An int (bools count as 0 and 1, as numbers.Integral says) or a float.
        if (PyLong_Check(value) || (!PyFloat_Check(value) && IsInstance(value, g.integral))) {
          const Convert c = ToInt64(value, &attr.value.i);
          if (c == Convert::kRange) return fail(BindFail::kInt64Range);
          if (c != Convert::kOk) return fail(BindFail::kPython);
          attr.kind = SY_ATTR_INT;
          break;
        }
        const Convert c = ToDouble(value, &attr.value.f);
        if (c == Convert::kWrongType) return fail(BindFail::kWrongType);
        if (c == Convert::kRange) return fail(BindFail::kFloatRange);
        if (c != Convert::kOk) return fail(BindFail::kPython);
        attr.kind = SY_ATTR_FLOAT;
        break;
      }
      case SY_ARG_BOOL:
        if (!IsBool(value)) return fail(BindFail::kWrongType);
        attr.kind = SY_ATTR_BOOL;
        attr.value.b = PyObject_IsTrue(value) == 1;
        break;
      case SY_ARG_INT_LIST: {
        if (IsInt(value)) {  // an int for int[] is a one-element list
          int64_t* ints = call->TakeInts(1);
          const Convert c = ToInt64(value, &ints[0]);
          if (c == Convert::kRange) return fail(BindFail::kInt64Range);
          if (c != Convert::kOk) return fail(BindFail::kPython);
          attr.kind = SY_ATTR_INTS;
          attr.value.ints.data = ints;
          attr.value.ints.size = 1;
          break;
        }
        if (!(PyList_Check(value) || PyTuple_Check(value))) {
          return fail(BindFail::kWrongType);
        }
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(value);
        PyObject** items = PySequence_Fast_ITEMS(value);
        for (Py_ssize_t k = 0; k < n; ++k) {
          if (!IsInt(items[k])) return fail(BindFail::kWrongType);
        }
        int64_t* ints = call->TakeInts(static_cast<size_t>(n));
        for (Py_ssize_t k = 0; k < n; ++k) {
          const Convert c = ToInt64(items[k], &ints[k]);
          if (c == Convert::kRange) {
            error->item = k;
            return fail(BindFail::kInt64Range, items[k]);
          }
          if (c != Convert::kOk) return fail(BindFail::kPython);
        }
        attr.kind = SY_ATTR_INTS;
        attr.value.ints.data = ints;
        attr.value.ints.size = n;
        break;
      }
      case SY_ARG_STRING: {
        if (!PyUnicode_Check(value)) return fail(BindFail::kWrongType);
        Py_ssize_t size = 0;
        const char* text = PyUnicode_AsUTF8AndSize(value, &size);
        if (text == nullptr) return fail(BindFail::kPython);
        attr.kind = SY_ATTR_STRING;
        attr.value.str.data = text;
        attr.value.str.size = size;
        break;
      }
      case SY_ARG_DTYPE: {
        PyRef dtype(PyObject_CallOneArg(g.as_dtype, value));
        PyRef number(dtype ? PyObject_GetAttrString(dtype.get(), "value") : nullptr);
        if (!number) {
          if (!PyErr_ExceptionMatches(PyExc_TypeError) &&
              !PyErr_ExceptionMatches(PyExc_ValueError)) {
            return fail(BindFail::kPython);
          }
          PyObject *type, *exc, *trace;
          PyErr_Fetch(&type, &exc, &trace);
          PyErr_NormalizeException(&type, &exc, &trace);
          error->detail = exc ? Str(exc) : "not a dtype";
          Py_XDECREF(type);
          Py_XDECREF(exc);
          Py_XDECREF(trace);
          return fail(BindFail::kDType);
        }
        attr.kind = SY_ATTR_DTYPE;
        attr.value.dtype = static_cast<sy_dtype_t>(PyLong_AsUnsignedLong(number.get()));
        break;
      }
      case SY_ARG_COMMUNICATOR: {
        // A sy.distributed.Communicator: its C handle (distributed.h), which
        // the library checks (a destroyed one is a stale handle).
        PyRef handle(PyObject_GetAttrString(value, "_comm_handle"));
        if (!handle) {
          if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return fail(BindFail::kPython);
          PyErr_Clear();
          return fail(BindFail::kWrongType);
        }
        sy_communicator_t comm = nullptr;
        if (!HandleFromPy(handle.get(), &comm)) return fail(BindFail::kPython);
        attr = sy_attr_communicator(comm);
        break;
      }
      default:
        return fail(BindFail::kWrongType);
    }
  }
  // Trailing defaults are left to C, which fills them from the schema.
  call->num_attrs_ = last_given_attr + 1;
  return true;
}

}  // namespace sy::python
