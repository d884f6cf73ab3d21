#include "indexing.h"

#include <string>

#include "context_object.h"
#include "errors.h"
#include "globals.h"
#include "switchyard/switchyard.h"
#include "tensor_object.h"

namespace sy::python {
namespace {

// A layout being built: what sy_tensor_as_strided takes.
struct Layout {
  int ndim = 0;
  int64_t shape[SY_MAX_RANK];
  int64_t strides[SY_MAX_RANK];
  int64_t offset = 0;  // elements after the base's first

  bool Push(int64_t size, int64_t stride) {
    if (ndim == SY_MAX_RANK) {
      PyErr_Format(PyExc_IndexError,
                   "the result would have more than %d dimensions, the most a "
                   "Switchyard tensor has", SY_MAX_RANK);
      return false;
    }
    shape[ndim] = size;
    strides[ndim] = stride;
    ++ndim;
    return true;
  }
};

PyObject* MakeView(TensorObject* base, const Layout& layout) {
  sy_tensor_t out;
  if (sy_status_code_t s = sy_tensor_as_strided(base->handle, layout.shape, layout.strides,
                                                layout.ndim, layout.offset, &out);
      s != SY_STATUS_OK) {
    return RaiseLastError(s);
  }
  return NewTensor(base->context, out);
}

bool IsBool(PyObject* item) {
  return PyBool_Check(item) ||
         (g.numpy_bool != nullptr && PyObject_TypeCheck(item, reinterpret_cast<PyTypeObject*>(g.numpy_bool)));
}

// An integer index (Python int or NumPy integer, never a bool).
bool IsIntIndex(PyObject* item) {
  if (PyLong_Check(item)) return !PyBool_Check(item);
  return PyIndex_Check(item) && !IsBool(item) && !IsTensor(item);
}

PyObject* RefuseAdvanced(PyObject* item) {
  PyRef type_name(PyType_GetName(Py_TYPE(item)));
  return PyErr_Format(
      PyExc_TypeError,
      "switchyard.Tensor takes basic indices only (ints, slices, None and "
      "...), which make views; got %S. For a boolean mask use "
      "switchyard.ops.where, to gather rows switchyard.ops.embedding",
      type_name.get());
}

}  // namespace

PyObject* TensorGetItem(PyObject* self, PyObject* key) {
  TensorObject* t = AsTensor(self);
  if (!EnsureLayout(t)) return nullptr;
  PyObject* single[1] = {key};
  PyObject* const* items = single;
  Py_ssize_t count = 1;
  if (PyTuple_Check(key)) {
    items = &PyTuple_GET_ITEM(key, 0);
    count = PyTuple_GET_SIZE(key);
  }
  // Dimensions the key consumes (ints and slices), and where "..." is.
  int consumed = 0;
  Py_ssize_t ellipsis = -1;
  for (Py_ssize_t k = 0; k < count; ++k) {
    PyObject* item = items[k];
    if (item == Py_Ellipsis) {
      if (ellipsis >= 0) {
        PyErr_SetString(PyExc_IndexError,
                        "an index can only have a single ellipsis ('...')");
        return nullptr;
      }
      ellipsis = k;
    } else if (item == Py_None) {
    } else if (PySlice_Check(item) || IsIntIndex(item)) {
      ++consumed;
    } else {
      return RefuseAdvanced(item);
    }
  }
  if (consumed > t->ndim) {
    return PyErr_Format(PyExc_IndexError,
                        "too many indices for a tensor of dimension %d: %d were "
                        "indexed", t->ndim, consumed);
  }
  Layout out;
  int d = 0;  // the input dimension the next item applies to
  for (Py_ssize_t k = 0; k < count; ++k) {
    PyObject* item = items[k];
    if (item == Py_None) {
      if (!out.Push(1, 0)) return nullptr;
    } else if (item == Py_Ellipsis) {
      for (int skip = t->ndim - consumed; skip > 0; --skip, ++d) {
        if (!out.Push(t->shape[d], t->strides[d])) return nullptr;
      }
    } else if (PySlice_Check(item)) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(item, &start, &stop, &step) < 0) return nullptr;
      if (step < 0) {
        return PyErr_Format(
            PyExc_ValueError,
            "slice step %zd in dimension %d: negative steps are not supported "
            "(Switchyard layouts have strides >= 0)", step, d);
      }
      const Py_ssize_t length = PySlice_AdjustIndices(
          static_cast<Py_ssize_t>(t->shape[d]), &start, &stop, step);
      if (length > 0) out.offset += static_cast<int64_t>(start) * t->strides[d];
      if (!out.Push(length, t->strides[d] * step)) return nullptr;
      ++d;
    } else {  // an int
      Py_ssize_t index = PyNumber_AsSsize_t(item, PyExc_IndexError);
      if (index == -1 && PyErr_Occurred()) return nullptr;
      const Py_ssize_t size = static_cast<Py_ssize_t>(t->shape[d]);
      const Py_ssize_t at = index < 0 ? index + size : index;
      if (at < 0 || at >= size) {
        return PyErr_Format(PyExc_IndexError,
                            "index %zd is out of bounds for dimension %d with size %zd",
                            index, d, size);
      }
      out.offset += static_cast<int64_t>(at) * t->strides[d];
      ++d;
    }
  }
  for (; d < t->ndim; ++d) {
    if (!out.Push(t->shape[d], t->strides[d])) return nullptr;
  }
  return MakeView(t, out);
}

bool ViewStrides(const int64_t* shape, const int64_t* strides, int ndim,
                 const int64_t* new_shape, int new_ndim, int64_t* new_strides) {
  int64_t numel = 1;
  for (int d = 0; d < ndim; ++d) numel *= shape[d];
  if (numel == 0 || ndim == 0) {
    // Nothing to keep in place: any layout views it; use row-major.
    int64_t stride = 1;
    for (int d = new_ndim - 1; d >= 0; --d) {
      new_strides[d] = stride;
      stride *= new_shape[d] > 0 ? new_shape[d] : 1;
    }
    return true;
  }
  // PyTorch's computeStride: walk the old dims in chunks that are
  // contiguous among themselves; each chunk must map to whole new dims.
  int view_d = new_ndim - 1;
  int64_t chunk_base_stride = strides[ndim - 1];
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int tensor_d = ndim - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= shape[tensor_d];
    if (tensor_d == 0 || (shape[tensor_d - 1] != 1 &&
                          strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return false;
      if (tensor_d > 0) {
        chunk_base_stride = strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  return view_d == -1;
}

namespace {

// The shape from reshape's arguments — sizes, or one tuple/list of them —
// with a -1 inferred; false with an error set.
bool ParseShape(const TensorObject* t, const char* method, PyObject* const* args,
                Py_ssize_t nargs, int64_t* shape, int* ndim) {
  PyRef sequence;
  PyObject* const* items = args;
  Py_ssize_t count = nargs;
  if (nargs == 1 && (PyTuple_Check(args[0]) || PyList_Check(args[0]))) {
    sequence.reset(PySequence_Fast(args[0], "shape"));
    if (!sequence) return false;
    items = PySequence_Fast_ITEMS(sequence.get());
    count = PySequence_Fast_GET_SIZE(sequence.get());
  }
  if (count > SY_MAX_RANK) {
    PyErr_Format(PyExc_ValueError, "%s: the shape has %zd sizes; tensors have at most %d",
                 method, count, SY_MAX_RANK);
    return false;
  }
  int infer = -1;
  int64_t known = 1;
  for (Py_ssize_t i = 0; i < count; ++i) {
    if (!IsIntIndex(items[i])) {
      PyRef type_name(PyType_GetName(Py_TYPE(items[i])));
      PyErr_Format(PyExc_TypeError, "%s: sizes must be ints, got %S at index %zd",
                   method, type_name.get(), i);
      return false;
    }
    const int64_t size = PyLong_AsLongLong(items[i]);
    if (size == -1 && PyErr_Occurred()) return false;
    if (size == -1) {
      if (infer >= 0) {
        PyErr_Format(PyExc_ValueError, "%s: only one size may be -1", method);
        return false;
      }
      infer = static_cast<int>(i);
    } else if (size < 0) {
      PyErr_Format(PyExc_ValueError, "%s: size %lld at index %zd is negative",
                   method, static_cast<long long>(size), i);
      return false;
    } else {
      known *= size;
    }
    shape[i] = size;
  }
  int64_t numel = 1;
  for (int d = 0; d < t->ndim; ++d) numel *= t->shape[d];
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) {
      PyErr_Format(PyExc_ValueError,
                   "%s: cannot infer the -1 size: the tensor has %lld elements and "
                   "the other sizes multiply to %lld", method,
                   static_cast<long long>(numel), static_cast<long long>(known));
      return false;
    }
    shape[infer] = numel / known;
    known *= shape[infer];
  }
  if (known != numel) {
    std::string text;
    for (Py_ssize_t i = 0; i < count; ++i) {
      text += (i ? ", " : "") + std::to_string(shape[i]);
    }
    PyErr_Format(PyExc_ValueError,
                 "%s: shape (%s) has %lld elements but the tensor has %lld", method,
                 text.c_str(), static_cast<long long>(known),
                 static_cast<long long>(numel));
    return false;
  }
  *ndim = static_cast<int>(count);
  return true;
}

PyObject* ReshapeOrView(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                        bool copy_if_needed) {
  TensorObject* t = AsTensor(self);
  if (!EnsureLayout(t)) return nullptr;
  const char* method = copy_if_needed ? "reshape" : "view";
  Layout out;
  if (!ParseShape(t, method, args, nargs, out.shape, &out.ndim)) return nullptr;
  if (ViewStrides(t->shape, t->strides, t->ndim, out.shape, out.ndim, out.strides)) {
    return MakeView(t, out);
  }
  if (!copy_if_needed) {
    PyErr_SetString(PyExc_ValueError,
                    "view: the tensor's strides cannot show it in that shape "
                    "without copying; use reshape (which copies then) or call "
                    "contiguous() first");
    return nullptr;
  }
  PyObject* reshape = ContextOp(t->context, CachedOp::kReshape);
  if (reshape == nullptr) return nullptr;
  PyRef shape(PyTuple_New(out.ndim));
  if (!shape) return nullptr;
  for (int d = 0; d < out.ndim; ++d) {
    PyObject* size = PyLong_FromLongLong(out.shape[d]);
    if (size == nullptr) return nullptr;
    PyTuple_SET_ITEM(shape.get(), d, size);
  }
  PyObject* call_args[2] = {self, shape.get()};
  return PyObject_Vectorcall(reshape, call_args, 2, nullptr);
}

}  // namespace

PyObject* TensorReshape(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return ReshapeOrView(self, args, nargs, true);
}

PyObject* TensorView(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return ReshapeOrView(self, args, nargs, false);
}

}  // namespace sy::python
