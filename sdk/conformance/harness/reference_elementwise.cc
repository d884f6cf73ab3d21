// References of fill, copy, cast, the unary, binary and compare ops and
// where. Semantics: references.h.
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/references.h"

namespace sy::op_harness::ref {
namespace {

int64_t AsInt(double v) { return static_cast<int64_t>(v); }

// Wrapping int64 arithmetic: through uint64, where overflow is defined.
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

int64_t IntPow(int64_t base, int64_t exponent) {
  if (exponent < 0) {  // never fed; defined so the reference cannot misbehave
    if (base == 1) return 1;
    if (base == -1) return exponent % 2 == 0 ? 1 : -1;
    return 0;
  }
  int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = WrapMul(result, base);
    base = WrapMul(base, base);
    exponent >>= 1;
  }
  return result;
}

double FloatArith(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
    case BinaryOp::kPow: return std::pow(a, b);
    case BinaryOp::kMaximum:
      if (std::isnan(a) || std::isnan(b)) return NAN;
      return a > b ? a : b;
    case BinaryOp::kMinimum:
      if (std::isnan(a) || std::isnan(b)) return NAN;
      return a < b ? a : b;
  }
  return NAN;
}

int64_t IntArith(BinaryOp op, int64_t a, int64_t b) {
  switch (op) {
    case BinaryOp::kAdd: return WrapAdd(a, b);
    case BinaryOp::kSub: return WrapSub(a, b);
    case BinaryOp::kMul: return WrapMul(a, b);
    case BinaryOp::kDiv:
      if (b == 0) throw std::logic_error("reference: integer division by 0");
      if (a == INT64_MIN && b == -1) return INT64_MIN;
      return a / b;  // C++ truncates toward zero
    case BinaryOp::kPow: return IntPow(a, b);
    case BinaryOp::kMaximum: return a > b ? a : b;
    case BinaryOp::kMinimum: return a < b ? a : b;
  }
  return 0;
}

bool BoolArith(BinaryOp op, bool a, bool b) {
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kMaximum: return a || b;
    case BinaryOp::kMul:
    case BinaryOp::kMinimum: return a && b;
    default: throw std::logic_error("reference: sub/div/pow have no bool form");
  }
}

// One element of a binary op whose operands are already in `dtype`.
double Arith(BinaryOp op, sy_dtype_t dtype, double a, double b) {
  if (IsFloating(dtype)) return FloatArith(op, a, b);
  if (dtype == SY_DTYPE_BOOL) return BoolArith(op, a != 0, b != 0) ? 1 : 0;
  return static_cast<double>(WrapInt(dtype, IntArith(op, AsInt(a), AsInt(b))));
}

bool Compare(CompareOp op, double a, double b) {
  switch (op) {
    case CompareOp::kEq: return a == b;
    case CompareOp::kNe: return a != b;  // true when either is NaN
    case CompareOp::kLt: return a < b;
    case CompareOp::kLe: return a <= b;
    case CompareOp::kGt: return a > b;
    case CompareOp::kGe: return a >= b;
  }
  return false;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double FloatUnary(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kAbs: return std::fabs(x);
    case UnaryOp::kRelu: return std::isnan(x) ? x : (x < 0 ? 0.0 : x);
    case UnaryOp::kSquare: return x * x;
    case UnaryOp::kExp: return std::exp(x);
    case UnaryOp::kLog: return std::log(x);
    case UnaryOp::kSqrt: return std::sqrt(x);
    case UnaryOp::kRsqrt: return 1.0 / std::sqrt(x);
    case UnaryOp::kSin: return std::sin(x);
    case UnaryOp::kCos: return std::cos(x);
    case UnaryOp::kTanh: return std::tanh(x);
    case UnaryOp::kSigmoid: return Sigmoid(x);
    case UnaryOp::kSilu: return x * Sigmoid(x);
    case UnaryOp::kErf: return std::erf(x);
    case UnaryOp::kReciprocal: return 1.0 / x;
    case UnaryOp::kGelu:
      // x·½(1 + erf(x/√2)) = x·½·erfc(−x/√2), without the cancellation.
      return 0.5 * x * std::erfc(-x * std::numbers::sqrt2 / 2);
    case UnaryOp::kGeluTanh: {
      const double k = std::sqrt(2.0 / std::numbers::pi);
      return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
    }
  }
  return NAN;
}

int64_t IntUnary(UnaryOp op, int64_t x) {
  switch (op) {
    case UnaryOp::kNeg: return WrapSub(0, x);
    case UnaryOp::kAbs: return x < 0 ? WrapSub(0, x) : x;
    case UnaryOp::kRelu: return x < 0 ? 0 : x;
    case UnaryOp::kSquare: return WrapMul(x, x);
    default: throw std::logic_error("reference: not an integer unary op");
  }
}

// Every input broadcast to the result shape; throws if they do not
// broadcast (the caller only asks for calls the spec accepts).
Shape BroadcastAll(std::initializer_list<const RefTensor*> inputs) {
  Shape out;
  for (const RefTensor* t : inputs) {
    std::optional<Shape> s = BroadcastShapes(out, t->shape);
    if (!s) throw std::logic_error("reference: shapes do not broadcast");
    out = *s;
  }
  return out;
}

}  // namespace

sy_dtype_t UnaryResultDtype(UnaryOp op, sy_dtype_t x) {
  switch (op) {
    case UnaryOp::kNeg:
    case UnaryOp::kAbs:
    case UnaryOp::kRelu:
    case UnaryOp::kSquare: return x;
    default: return IsFloating(x) ? x : SY_DTYPE_F32;
  }
}

sy_dtype_t ScalarResultDtype(sy_dtype_t a, const ScalarArg& b) {
  return b.is_float && !IsFloating(a) ? SY_DTYPE_F32 : a;
}

RefResult Fill(const RefTensor& self, double value) {
  return {RefTensor::Filled(self.dtype, self.shape, value), {}};
}

RefResult Copy(const RefTensor& x) { return {x, {}}; }

RefResult Cast(const RefTensor& x, sy_dtype_t dtype) {
  return {CastTo(x, dtype), {}};
}

RefResult Unary(UnaryOp op, const RefTensor& x) {
  const sy_dtype_t dtype = UnaryResultDtype(op, x.dtype);
  RefTensor in = CastTo(x, dtype);
  std::vector<double> out(in.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double v = in.values[i];
    out[i] = IsFloating(dtype)
                 ? FloatUnary(op, v)
                 : static_cast<double>(WrapInt(dtype, IntUnary(op, AsInt(v))));
  }
  return {RefTensor::Make(dtype, in.shape, std::move(out)), {}};
}

RefResult BinaryTensor(BinaryOp op, const RefTensor& a, const RefTensor& b) {
  const sy_dtype_t dtype = Promote(a.dtype, b.dtype);
  const Shape shape = BroadcastAll({&a, &b});
  const RefTensor ea = BroadcastTo(CastTo(a, dtype), shape);
  const RefTensor eb = BroadcastTo(CastTo(b, dtype), shape);
  std::vector<double> out(ea.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = Arith(op, dtype, ea.values[i], eb.values[i]);
  }
  return {RefTensor::Make(dtype, shape, std::move(out)), {}};
}

RefResult BinaryScalar(BinaryOp op, const RefTensor& a, const ScalarArg& b) {
  const sy_dtype_t dtype = ScalarResultDtype(a.dtype, b);
  const RefTensor ea = CastTo(a, dtype);
  std::vector<double> out(ea.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const double x = ea.values[i];
    if (IsFloating(dtype)) {
      out[i] = FloatArith(op, x, b.value);
    } else if (dtype == SY_DTYPE_BOOL) {
      out[i] = BoolArith(op, x != 0, b.value != 0) ? 1 : 0;
    } else {
      out[i] = static_cast<double>(
          WrapInt(dtype, IntArith(op, AsInt(x), AsInt(b.value))));
    }
  }
  return {RefTensor::Make(dtype, ea.shape, std::move(out)), {}};
}

RefResult CompareTensor(CompareOp op, const RefTensor& a, const RefTensor& b) {
  const sy_dtype_t dtype = Promote(a.dtype, b.dtype);
  const Shape shape = BroadcastAll({&a, &b});
  const RefTensor ea = BroadcastTo(CastTo(a, dtype), shape);
  const RefTensor eb = BroadcastTo(CastTo(b, dtype), shape);
  std::vector<double> out(ea.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = Compare(op, ea.values[i], eb.values[i]) ? 1 : 0;
  }
  return {RefTensor::Make(SY_DTYPE_BOOL, shape, std::move(out)), {}};
}

RefResult CompareScalar(CompareOp op, const RefTensor& a, const ScalarArg& b) {
  std::vector<double> out(a.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = Compare(op, a.values[i], b.value) ? 1 : 0;
  }
  return {RefTensor::Make(SY_DTYPE_BOOL, a.shape, std::move(out)), {}};
}

RefResult Where(const RefTensor& condition, const RefTensor& a,
                const RefTensor& b) {
  const sy_dtype_t dtype = Promote(a.dtype, b.dtype);
  const Shape shape = BroadcastAll({&condition, &a, &b});
  const RefTensor ec = BroadcastTo(condition, shape);
  const RefTensor ea = BroadcastTo(CastTo(a, dtype), shape);
  const RefTensor eb = BroadcastTo(CastTo(b, dtype), shape);
  std::vector<double> out(ea.values.size());
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = ec.values[i] != 0 ? ea.values[i] : eb.values[i];
  }
  return {RefTensor::Make(dtype, shape, std::move(out)), {}};
}

}  // namespace sy::op_harness::ref
