// Small helpers shared by the extension's files: an owning PyObject
// reference, and handles <-> Python ints.
#ifndef SWITCHYARD_API_PYTHON_SRC_PY_UTIL_H_
#define SWITCHYARD_API_PYTHON_SRC_PY_UTIL_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <cstring>
#include <utility>

namespace sy::python {

// Owns one reference (or none); releases it when destroyed.
class PyRef {
 public:
  PyRef() = default;
  explicit PyRef(PyObject* owned) : object_(owned) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  PyRef(PyRef&& other) noexcept : object_(other.release()) {}
  PyRef& operator=(PyRef&& other) noexcept {
    reset(other.release());
    return *this;
  }
  ~PyRef() { Py_XDECREF(object_); }

  static PyRef Borrow(PyObject* borrowed) {
    Py_XINCREF(borrowed);
    return PyRef(borrowed);
  }

  PyObject* get() const { return object_; }
  explicit operator bool() const { return object_ != nullptr; }
  PyObject* release() { return std::exchange(object_, nullptr); }
  void reset(PyObject* owned = nullptr) {
    PyObject* old = std::exchange(object_, owned);
    Py_XDECREF(old);
  }

 private:
  PyObject* object_ = nullptr;
};

// C handles are 64-bit tokens; Python sees them as ints.
template <typename Handle>
PyObject* HandleToPy(Handle handle) {
  return PyLong_FromUnsignedLongLong(
      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(handle)));
}

// The handle in a Python int, or nullptr with a Python error set.
template <typename Handle>
bool HandleFromPy(PyObject* object, Handle* out) {
  const unsigned long long value = PyLong_AsUnsignedLongLong(object);
  if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) return false;
  *out = reinterpret_cast<Handle>(static_cast<uintptr_t>(value));
  return true;
}

// A C string as str ("" for NULL).
inline PyObject* Text(const char* text) {
  return PyUnicode_DecodeUTF8(text ? text : "", text ? static_cast<Py_ssize_t>(strlen(text)) : 0,
                              "replace");
}

}  // namespace sy::python

#endif  // SWITCHYARD_API_PYTHON_SRC_PY_UTIL_H_
