// Python operators on tensors: `a + b` calls ops.add, `2 - x` a reflected
// helper, `x > 1` ops.gt — elementwise, like NumPy and PyTorch. Each
// operator finds its op packet in the context's cache (context_object.h).
#include "context_object.h"
#include "globals.h"
#include "tensor_object.h"

namespace sy::python {
namespace {

// A Python or NumPy number an op's Scalar overload takes.
bool IsNumber(PyObject* object) {
  if (PyFloat_Check(object) || PyLong_Check(object)) return true;
  if (IsTensor(object) || g.real == nullptr) return false;
  const int real = PyObject_IsInstance(object, g.real);
  if (real < 0) PyErr_Clear();
  return real == 1;
}

PyObject* Call(PyObject* tensor, CachedOp op, PyObject* a, PyObject* b) {
  PyObject* packet = ContextOp(AsTensor(tensor)->context, op);
  if (packet == nullptr) return nullptr;
  PyObject* args[2] = {a, b};
  return PyObject_Vectorcall(packet, args, b == nullptr ? 1 : 2, nullptr);
}

// `a op b` where at least one is a tensor. NotImplemented for operands no
// op takes (Python then tries the other side: NumPy arrays go through
// Tensor.__array_ufunc__).
PyObject* Binary(PyObject* a, PyObject* b, CachedOp op, const char* reflected_name) {
  if (IsTensor(a)) {
    if (!IsTensor(b) && !IsNumber(b)) Py_RETURN_NOTIMPLEMENTED;
    return Call(a, op, a, b);
  }
  if (!IsNumber(a)) Py_RETURN_NOTIMPLEMENTED;
  if (reflected_name == nullptr) return Call(b, op, b, a);  // commutative
  // `2 - x`: the scalar as a tensor like x, then the op (_tensor._reflected).
  return PyObject_CallFunction(g.reflected, "sOO", reflected_name, b, a);
}

PyObject* Add(PyObject* a, PyObject* b) { return Binary(a, b, CachedOp::kAdd, nullptr); }
PyObject* Sub(PyObject* a, PyObject* b) { return Binary(a, b, CachedOp::kSub, "sub"); }
PyObject* Mul(PyObject* a, PyObject* b) { return Binary(a, b, CachedOp::kMul, nullptr); }
PyObject* Div(PyObject* a, PyObject* b) { return Binary(a, b, CachedOp::kDiv, "div"); }
PyObject* MatMul(PyObject* a, PyObject* b) {
  if (!IsTensor(a) || !IsTensor(b)) Py_RETURN_NOTIMPLEMENTED;
  return Call(a, CachedOp::kMatmul, a, b);
}
PyObject* Pow(PyObject* a, PyObject* b, PyObject* modulo) {
  if (modulo != Py_None) {
    PyErr_SetString(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
    return nullptr;
  }
  return Binary(a, b, CachedOp::kPow, "pow");
}
PyObject* Neg(PyObject* a) { return Call(a, CachedOp::kNeg, a, nullptr); }
PyObject* Abs(PyObject* a) { return Call(a, CachedOp::kAbs, a, nullptr); }
PyObject* Pos(PyObject* a) { return Py_NewRef(a); }

int Bool(PyObject* self) {
  // One element: its truth; more: ambiguous, as in NumPy and PyTorch.
  PyRef item(PyObject_CallMethod(self, "_truth", nullptr));
  if (!item) return -1;
  return PyObject_IsTrue(item.get());
}

PyObject* RichCompare(PyObject* a, PyObject* b, int op) {
  // Python calls this with the tensor first, or reflected with the operands
  // swapped and the operator mirrored: either way `a` is a tensor.
  if (!IsTensor(b) && !IsNumber(b)) Py_RETURN_NOTIMPLEMENTED;
  CachedOp which;
  switch (op) {
    case Py_LT: which = CachedOp::kLt; break;
    case Py_LE: which = CachedOp::kLe; break;
    case Py_EQ: which = CachedOp::kEq; break;
    case Py_NE: which = CachedOp::kNe; break;
    case Py_GT: which = CachedOp::kGt; break;
    default: which = CachedOp::kGe; break;
  }
  return Call(a, which, a, b);
}

PyNumberMethods g_number = {};

}  // namespace

void InstallTensorOperators(PyTypeObject* type) {
  g_number.nb_add = Add;
  g_number.nb_subtract = Sub;
  g_number.nb_multiply = Mul;
  g_number.nb_true_divide = Div;
  g_number.nb_power = Pow;
  g_number.nb_matrix_multiply = MatMul;
  g_number.nb_negative = Neg;
  g_number.nb_absolute = Abs;
  g_number.nb_positive = Pos;
  g_number.nb_bool = Bool;
  type->tp_as_number = &g_number;
  type->tp_richcompare = RichCompare;
  // Comparisons are elementwise, so the default hash stays (by identity),
  // as for PyTorch's tensors.
  type->tp_hash = PyBaseObject_Type.tp_hash;
}

}  // namespace sy::python
