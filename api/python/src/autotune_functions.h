// The autotuner from Python (docs/autotune.md, docs/python.md#autotuning):
// module functions over switchyard.h's autotuning section — a context's
// mode, case files, export and import, the cache's summary — taking and
// returning handles as ints and JSON as str (switchyard/_autotune.py makes
// the Python objects), and the piece of Op.tune that runs on a bound call.
// Nothing here is on an op's call path.
#ifndef SWITCHYARD_API_PYTHON_SRC_AUTOTUNE_FUNCTIONS_H_
#define SWITCHYARD_API_PYTHON_SRC_AUTOTUNE_FUNCTIONS_H_

#include <vector>

#include "op_binding.h"
#include "op_plan.h"
#include "py_util.h"

namespace sy::python {

// The functions' PyMethodDef table, ended by a null entry.
extern PyMethodDef g_autotune_functions[];

// Vectorcall arguments of `op.tune(..., force=False)` with the keyword
// `force` taken out (the rest bind to the op's schema as a call's would).
class TuneArguments {
 public:
  // False with a Python error set: TypeError when `force` is not a bool.
  bool Split(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);

  PyObject* const* args() const { return args_.data(); }
  Py_ssize_t nargs() const { return nargs_; }
  PyObject* kwnames() const { return kwnames_.get(); }  // nullptr when none
  int32_t flags() const { return flags_; }              // SY_TUNE_FORCE or 0

 private:
  std::vector<PyObject*> args_;  // borrowed from the caller's arguments
  Py_ssize_t nargs_ = 0;
  PyRef kwnames_;
  int32_t flags_ = 0;
};

// sy_op_tune on a bound call, without the GIL (a tuning takes up to the
// key's budget, ~0.2 s): the report as a dict, or nullptr with the C
// error raised.
PyObject* TuneBoundCall(const OpPlan& plan, const BoundCall& call, int32_t flags);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_AUTOTUNE_FUNCTIONS_H_
