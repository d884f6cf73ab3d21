// Binding Python arguments to one op overload: positional and keyword
// values (vectorcall's layout) become the C call's tensor handles and
// sy_attr_t attributes, in one pass over the overload's plan — no Python
// code runs and nothing is allocated for the common shapes of calls.
//
// A failed bind records what failed (BindError) without formatting a
// message: choosing among overloads tries them in order, and only when
// all fail is the message written.
#ifndef SWITCHYARD_API_PYTHON_SRC_OP_BINDING_H_
#define SWITCHYARD_API_PYTHON_SRC_OP_BINDING_H_

#include <memory>
#include <string>
#include <vector>

#include "op_plan.h"
#include "py_util.h"

namespace sy::python {

enum class BindFail {
  kNone,
  kTooMany,          // more positional arguments than the schema has
  kUnexpected,       // an unknown keyword (`value` is its name)
  kMultiple,         // a keyword that a positional argument already gave
  kMissing,          // a required argument not given
  kWrongType,        // a value of the wrong kind
  kNotOptional,      // None for a non-optional attribute
  kInt64Range,       // an int outside int64 (`item` >= 0: inside a list)
  kFloatRange,       // an int too large for a double
  kDType,            // a ScalarType spelling as_dtype refused (`detail`)
  kPython,           // a Python error is set (propagate it as is)
};

struct BindError {
  BindFail fail = BindFail::kNone;
  int arg = -1;              // schema argument index
  Py_ssize_t item = -1;      // index inside an int[] value
  Py_ssize_t given = 0;      // for kTooMany
  PyObject* value = nullptr; // borrowed: the offending value or keyword
  std::string detail;

  // "argument 'dims' must be int[], got str" (without the op's name).
  std::string Format(const OpPlan& plan) const;
};

// The C call's arguments for one bound call. Pointers inside (int lists,
// strings) refer to this object and to the Python arguments, so it lives
// on the caller's stack for the duration of the call.
class BoundCall {
 public:
  BoundCall() = default;
  BoundCall(const BoundCall&) = delete;
  BoundCall& operator=(const BoundCall&) = delete;

  const sy_tensor_t* inputs() const {
    return heap_inputs_.empty() ? inline_inputs_ : heap_inputs_.data();
  }
  int32_t num_inputs() const { return num_inputs_; }
  const sy_attr_t* attrs() const { return attrs_; }
  int32_t num_attrs() const { return num_attrs_; }
  PyObject* out() const { return out_; }  // the `out=` value, or nullptr
  PyObject* first_tensor() const { return first_tensor_; }

 private:
  friend bool Bind(const OpPlan&, PyObject* const*, Py_ssize_t, PyObject*,
                   BoundCall*, BindError*);
  static constexpr int kInlineInputs = 16;
  static constexpr size_t kInlineInts = 64;

  void AddInput(sy_tensor_t handle);
  int64_t* TakeInts(size_t count);

  sy_tensor_t inline_inputs_[kInlineInputs];
  std::vector<sy_tensor_t> heap_inputs_;
  int32_t num_inputs_ = 0;
  sy_attr_t attrs_[kMaxAttrs];
  int32_t num_attrs_ = 0;
  int64_t inline_ints_[kInlineInts];
  size_t ints_used_ = 0;
  std::vector<std::unique_ptr<int64_t[]>> spilled_ints_;
  PyObject* out_ = nullptr;
  PyObject* first_tensor_ = nullptr;
};

// Binds vectorcall arguments (`args`, `nargs` positional, then one value
// per name in `kwnames`) to `plan`. `out=` is taken aside when present.
// False with *error set; for BindFail::kPython a Python error is set too.
bool Bind(const OpPlan& plan, PyObject* const* args, Py_ssize_t nargs,
          PyObject* kwnames, BoundCall* call, BindError* error);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_OP_BINDING_H_
