#include "errors.h"

#include <utility>

#include "globals.h"

namespace sy::python {
namespace {

// Builds a new string (std::string::replace trips a GCC 12 -Wrestrict
// false positive).
std::string ReplaceAll(const std::string& text, const std::string& from,
                       const std::string& to) {
  std::string out;
  size_t start = 0;
  for (size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, start)) {
    out.append(text, start, at - start).append(to);
    start = at + from.size();
  }
  return out.append(text, start, std::string::npos);
}

}  // namespace

std::string ForPython(std::string message) {
  // Longest first: SY_DLPACK_SHARE is a prefix of SY_DLPACK_SHARE_OR_COPY.
  static const std::pair<const char*, const char*> kSpellings[] = {
      {"SY_DLPACK_SHARE_OR_COPY", "copy=None"},
      {"SY_DLPACK_SHARE", "copy=False"},
      {"SY_DLPACK_COPY", "copy=True"},
  };
  for (const auto& [from, to] : kSpellings) message = ReplaceAll(message, from, to);
  return message;
}

PyObject* RaiseStatus(sy_status_code_t code, const std::string& message) {
  PyObject* type = (code > 0 && code < 16) ? g.errors[code] : nullptr;
  if (type == nullptr) type = g.errors[SY_STATUS_UNKNOWN];
  if (type == nullptr) type = PyExc_RuntimeError;  // before _register ran
  const std::string text = ForPython(message);
  PyRef value(PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()),
                                   "replace"));
  if (value) PyErr_SetObject(type, value.get());
  return nullptr;
}

PyObject* RaiseLastError(sy_status_code_t code) {
  return RaiseStatus(code, sy_last_error_message());
}

}  // namespace sy::python
