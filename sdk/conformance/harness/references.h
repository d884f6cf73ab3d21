// Float64 reference implementations of every op of core op set v1
// (docs/ops.md), written from the spec and independently of any kernel.
//
// Each takes host RefTensors whose values are already what the device
// holds, computes in float64 (integers: in int64 with two's-complement
// wrap-around), and returns the result rounded to the result dtype the spec
// gives, plus, for ops that accumulate, the per-element scale the
// tolerance uses (tolerance.h).
//
// Semantics the spec leaves open follow PyTorch, as the core's shape
// functions do (docs/architecture.md); docs/testing.md lists them:
// - f16/bf16 and integer inputs of ops with a floating result are first
//   rounded to the result dtype (an i32 input of exp becomes f32), mixed
//   dtypes of binary ops are first cast to the promoted dtype;
// - maximum/minimum, max/min propagate NaN; argmax takes the first NaN,
//   else the first occurrence of the maximum;
// - integer div truncates toward zero (the caller keeps divisors nonzero);
//   add/sub/mul/neg/abs/square/sum/matmul on integers wrap;
// - on bool, add and maximum are "or", mul and minimum "and";
// - Scalar operands take part unrounded (the harness passes scalars every
//   dtype holds exactly, so rounding them first would agree).
// Preconditions (shapes that broadcast, dims in range, indices in range)
// are the caller's: the harness runs a reference only for calls the spec
// accepts.
#ifndef SWITCHYARD_SDK_CONFORMANCE_HARNESS_REFERENCES_H_
#define SWITCHYARD_SDK_CONFORMANCE_HARNESS_REFERENCES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sdk/conformance/harness/reference_tensor.h"
#include "sdk/conformance/harness/tolerance.h"

namespace sy::op_harness::ref {

// The `b` of a .Scalar overload, as the caller passed it.
struct ScalarArg {
  bool is_float = false;
  double value = 0;
};

enum class UnaryOp {
  kNeg, kAbs, kRelu, kSquare,                      // keep x's dtype
  kExp, kLog, kSqrt, kRsqrt, kSin, kCos, kTanh,    // floating result
  kSigmoid, kSilu, kErf, kReciprocal, kGelu, kGeluTanh,
};
enum class BinaryOp { kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum };
enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class ReduceOp { kSum, kMean, kMax, kMin };

// ---- Result dtypes (docs/ops.md) -------------------------------------------
sy_dtype_t UnaryResultDtype(UnaryOp op, sy_dtype_t x);
// a's dtype; f32 for a float Scalar on an integer or bool tensor.
sy_dtype_t ScalarResultDtype(sy_dtype_t a, const ScalarArg& b);

// ---- Creation (reference_elementwise.cc) -------------------------------------
RefResult Fill(const RefTensor& self, double value);
RefResult Copy(const RefTensor& x);
RefResult Cast(const RefTensor& x, sy_dtype_t dtype);

// ---- Elementwise (reference_elementwise.cc) ----------------------------------
RefResult Unary(UnaryOp op, const RefTensor& x);
RefResult BinaryTensor(BinaryOp op, const RefTensor& a, const RefTensor& b);
RefResult BinaryScalar(BinaryOp op, const RefTensor& a, const ScalarArg& b);
RefResult CompareTensor(CompareOp op, const RefTensor& a, const RefTensor& b);
RefResult CompareScalar(CompareOp op, const RefTensor& a, const ScalarArg& b);
RefResult Where(const RefTensor& condition, const RefTensor& a,
                const RefTensor& b);

// ---- Reductions and normalizations (reference_reduce.cc) ---------------------
// dims may be negative; [] reduces every dim.
RefResult Reduce(ReduceOp op, const RefTensor& x, std::vector<int64_t> dims,
                 bool keepdim);
RefResult Argmax(const RefTensor& x, std::optional<int64_t> dim, bool keepdim);
RefResult Softmax(const RefTensor& x, int64_t dim, bool log);
// weight and bias may be undefined.
RefResult LayerNorm(const RefTensor& x, const Shape& normalized_shape,
                    const RefTensor& weight, const RefTensor& bias, double eps);
RefResult RmsNorm(const RefTensor& x, const RefTensor& weight, double eps);

// ---- Linear algebra and attention (reference_linalg.cc) ----------------------
RefResult Matmul(const RefTensor& a, const RefTensor& b);
RefResult Linear(const RefTensor& x, const RefTensor& weight,
                 const RefTensor& bias);
RefResult Conv2d(const RefTensor& x, const RefTensor& weight,
                 const RefTensor& bias, const std::vector<int64_t>& stride,
                 const std::vector<int64_t>& padding,
                 const std::vector<int64_t>& dilation, int64_t groups);
// mask may be undefined; scale nullopt means 1/√E.
RefResult ScaledDotProductAttention(const RefTensor& q, const RefTensor& k,
                                    const RefTensor& v, const RefTensor& mask,
                                    bool causal, std::optional<double> scale);

// ---- Layout and gather (reference_layout.cc) -------------------------------
RefResult Reshape(const RefTensor& x, const std::vector<int64_t>& shape);
RefResult Permute(const RefTensor& x, const std::vector<int64_t>& dims);
RefResult Transpose(const RefTensor& x, int64_t dim0, int64_t dim1);
RefResult Slice(const RefTensor& x, int64_t dim, int64_t start,
                std::optional<int64_t> end, int64_t step);
RefResult Expand(const RefTensor& x, const std::vector<int64_t>& shape);
RefResult Concat(std::span<const RefTensor> tensors, int64_t dim);
RefResult Embedding(const RefTensor& weight, const RefTensor& indices);

}  // namespace sy::op_harness::ref

#endif  // SWITCHYARD_SDK_CONFORMANCE_HARNESS_REFERENCES_H_
