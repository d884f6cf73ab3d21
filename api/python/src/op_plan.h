// The binding plan of one op overload: its schema arguments, read once from
// the C API (sy_op_get_info / sy_op_get_arg) when the overload object is
// made, so that a call binds its arguments without asking C anything.
#ifndef SWITCHYARD_API_PYTHON_SRC_OP_PLAN_H_
#define SWITCHYARD_API_PYTHON_SRC_OP_PLAN_H_

#include <string>
#include <vector>

#include "py_util.h"
#include "switchyard/switchyard.h"

namespace sy::python {

// Attributes a schema may have; the binder keeps them on the stack.
inline constexpr int kMaxAttrs = 24;

struct ArgPlan {
  std::string name;       // "dims"
  std::string kind_name;  // "int[]"
  int32_t kind = SY_ARG_TENSOR;
  bool optional = false;
  bool has_default = false;
  int32_t tensor_index = -1;
  int32_t attr_index = -1;
  // Interned str of `name`, and of the names PyTorch and NumPy users write
  // for it (`dim` and `axis` for dims, `is_causal` for causal, …).
  PyObject* py_name = nullptr;
  std::vector<PyObject*> py_aliases;
};

struct OpPlan {
  sy_op_t op = nullptr;
  std::string full_name, name, ns, overload, schema, owner;
  int32_t num_tensor_args = 0;
  int32_t num_attrs = 0;
  int32_t num_outputs = 0;
  int32_t list_arg = -1;
  bool live = true;
  std::vector<ArgPlan> args;

  OpPlan() = default;
  OpPlan(const OpPlan&) = delete;
  OpPlan& operator=(const OpPlan&) = delete;
  ~OpPlan();
};

// Fills `plan` for `op`; false with a Python error set.
bool BuildPlan(sy_op_t op, OpPlan* plan);

// The schema default of an argument as a Python value (None when it has
// none), for inspect.signature.
PyObject* DecodeAttr(const sy_attr_t& attr);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_OP_PLAN_H_
