// Raising switchyard.Error subclasses from C status codes.
#ifndef SWITCHYARD_API_PYTHON_SRC_ERRORS_H_
#define SWITCHYARD_API_PYTHON_SRC_ERRORS_H_

#include <string>

#include "py_util.h"
#include "switchyard/switchyard.h"

namespace sy::python {

// Raises the exception for `code` with the calling thread's last C error
// message (read on this thread, right after the failed call) and returns
// nullptr, so callers write `return RaiseLastError(status);`.
PyObject* RaiseLastError(sy_status_code_t code);

// Raises the exception for `code` with `message`; returns nullptr.
PyObject* RaiseStatus(sy_status_code_t code, const std::string& message);

// The message as Python users should read it: C spellings that only make
// sense in C (SY_DLPACK_SHARE_OR_COPY …) become the Python arguments that
// mean the same.
std::string ForPython(std::string message);

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_ERRORS_H_
