// Test-side call binding for the core op set's shape functions: finds an op
// by full name in CoreOps(), binds positional argument values to its schema
// the way the core does (omitted trailing arguments take the schema's
// defaults; an int stays an int for a float argument), runs the shape
// function and hands back its single result.
#ifndef SWITCHYARD_TESTS_OPS_SHAPE_TEST_UTIL_H_
#define SWITCHYARD_TESTS_OPS_SHAPE_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/ops/shape_context.h"
#include "gtest/gtest.h"
#include "switchyard/plugin.h"

namespace sy::testing {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only

using Shape = std::vector<int64_t>;

// One argument of a call, in schema order.
struct Value {
  enum class Kind { kNone, kTensors, kInt, kFloat, kBool, kInts, kStr, kDType };
  Kind kind = Kind::kNone;
  std::vector<sy_tensor_meta_t> tensors;  // kTensors: one, or a list
  bool is_list = false;
  int64_t i = 0;
  double f = 0;
  bool b = false;
  std::vector<int64_t> ints;
  std::string str;
  sy_dtype_t dtype = SY_DTYPE_NONE;

  Value() = default;
  Value(int v) : kind(Kind::kInt), i(v) {}       // NOLINT: implicit
  Value(int64_t v) : kind(Kind::kInt), i(v) {}   // NOLINT
  Value(double v) : kind(Kind::kFloat), f(v) {}  // NOLINT
  Value(bool v) : kind(Kind::kBool), b(v) {}     // NOLINT
  Value(const sy_tensor_meta_t& t)               // NOLINT
      : kind(Kind::kTensors), tensors{t} {}
};

inline Value None() { return Value(); }
sy_tensor_meta_t T(sy_dtype_t dtype, const Shape& shape);
Value TensorList(const std::vector<sy_tensor_meta_t>& tensors);
Value Ints(const std::vector<int64_t>& ints);
Value Str(std::string s);
Value DType(sy_dtype_t dtype);

// Runs the shape function of the op named `full_name` ("add.Tensor"). A
// misuse by the test itself (unknown op, wrong kind) comes back as an
// Internal status so that it fails every expectation.
absl::StatusOr<sy_tensor_meta_t> Infer(std::string_view full_name,
                                       const std::vector<Value>& args);

// The result has this dtype and shape.
::testing::AssertionResult IsMeta(const absl::StatusOr<sy_tensor_meta_t>& r,
                                  sy_dtype_t dtype, const Shape& shape);
// The call failed with InvalidArgument and exactly this message.
::testing::AssertionResult IsError(const absl::StatusOr<sy_tensor_meta_t>& r,
                                   std::string_view message);
// The call failed with InvalidArgument (any message).
::testing::AssertionResult IsInvalid(const absl::StatusOr<sy_tensor_meta_t>& r);

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_OPS_SHAPE_TEST_UTIL_H_
