// Ops: lookup, enumeration and argument metadata for bindings, and calls —
// with attributes, defaults, Tensor[] arguments and caller-provided outputs —
// checked on random inputs against a float64 reference.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "c_api_test_util.h"

namespace sy_test {
namespace {

using OpTest = CApiTest;

// |got - want| <= atol + rtol·|want| for every element.
void ExpectClose(const std::vector<float>& got, const std::vector<double>& want,
                 double rtol = 1e-5, double atol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_LE(std::fabs(got[i] - want[i]), atol + rtol * std::fabs(want[i]))
        << "element " << i << ": got " << got[i] << ", want " << want[i];
  }
}

std::vector<int64_t> Shape(sy_tensor_t t) {
  int32_t ndim = 0;
  int64_t dims[SY_MAX_RANK];
  EXPECT_EQ(sy_tensor_ndim(t, &ndim), SY_STATUS_OK);
  EXPECT_EQ(sy_tensor_shape(t, dims, SY_MAX_RANK), SY_STATUS_OK);
  return std::vector<int64_t>(dims, dims + ndim);
}

sy_op_arg_t Arg(sy_op_t op, int32_t i) {
  sy_op_arg_t arg{};
  arg.struct_size = sizeof arg;
  EXPECT_EQ(sy_op_get_arg(op, i, &arg), SY_STATUS_OK) << sy_last_error_message();
  return arg;
}

TEST_F(OpTest, InfoAndArgumentsDescribeTheSchema) {
  sy_op_t sum = Op(context_, "sum");
  sy_op_info_t info{};
  info.struct_size = sizeof info;
  ASSERT_EQ(sy_op_get_info(sum, &info), SY_STATUS_OK);
  EXPECT_STREQ(info.full_name, "sum");
  EXPECT_STREQ(info.ns, "");
  EXPECT_STREQ(info.name, "sum");
  EXPECT_STREQ(info.overload, "");
  EXPECT_STREQ(info.schema, "sum(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor");
  EXPECT_STREQ(info.owner, "core");
  EXPECT_EQ(info.num_args, 3);
  EXPECT_EQ(info.num_tensor_args, 1);
  EXPECT_EQ(info.num_attrs, 2);
  EXPECT_EQ(info.num_outputs, 1);
  EXPECT_EQ(info.list_arg, -1);
  EXPECT_EQ(info.live, 1);

  const sy_op_arg_t x = Arg(sum, 0), dims = Arg(sum, 1), keepdim = Arg(sum, 2);
  EXPECT_STREQ(x.name, "x");
  EXPECT_EQ(x.kind, SY_ARG_TENSOR);
  EXPECT_EQ(x.tensor_index, 0);
  EXPECT_EQ(x.attr_index, -1);
  EXPECT_EQ(x.has_default, 0);
  EXPECT_STREQ(x.kind_name, "Tensor");
  EXPECT_STREQ(dims.name, "dims");
  EXPECT_EQ(dims.kind, SY_ARG_INT_LIST);
  EXPECT_EQ(dims.attr_index, 0);
  EXPECT_EQ(dims.has_default, 1);
  EXPECT_EQ(dims.default_value.kind, SY_ATTR_INTS);
  EXPECT_EQ(dims.default_value.value.ints.size, 0);
  EXPECT_STREQ(dims.default_text, "[]");
  EXPECT_EQ(keepdim.kind, SY_ARG_BOOL);
  EXPECT_EQ(keepdim.default_value.kind, SY_ATTR_BOOL);
  EXPECT_EQ(keepdim.default_value.value.b, 0);
  EXPECT_STREQ(keepdim.default_text, "False");

  const sy_op_arg_t approximate = Arg(Op(context_, "gelu"), 1);
  EXPECT_EQ(approximate.kind, SY_ARG_STRING);
  EXPECT_EQ(approximate.default_value.kind, SY_ATTR_STRING);
  EXPECT_STREQ(approximate.default_value.value.str.data, "none");
  EXPECT_STREQ(approximate.default_text, "\"none\"");

  sy_op_t layer_norm = Op(context_, "layer_norm");
  const sy_op_arg_t weight = Arg(layer_norm, 2), eps = Arg(layer_norm, 4);
  EXPECT_EQ(weight.kind, SY_ARG_TENSOR);
  EXPECT_EQ(weight.optional, 1);
  EXPECT_EQ(weight.tensor_index, 1);
  EXPECT_STREQ(weight.default_text, "None");
  EXPECT_STREQ(weight.kind_name, "Tensor?");
  EXPECT_EQ(eps.default_value.kind, SY_ATTR_FLOAT);
  EXPECT_DOUBLE_EQ(eps.default_value.value.f, 1e-5);
  EXPECT_STREQ(eps.default_text, "1e-05");

  sy_op_arg_t out{};
  out.struct_size = sizeof out;
  EXPECT_SY_ERROR(sy_op_get_arg(sum, 3, &out), SY_STATUS_OUT_OF_RANGE,
                  "sy_op_get_arg: sum: argument index 3 is out of range: it has 3 "
                  "arguments");
}

TEST_F(OpTest, EnumerationCoversTheRegistry) {
  int32_t count = 0;
  ASSERT_EQ(sy_op_count(context_, &count), SY_STATUS_OK);
  ASSERT_GT(count, 60);
  bool saw_add_scalar = false;
  for (int32_t i = 0; i < count; ++i) {
    sy_op_t op = nullptr;
    ASSERT_EQ(sy_op_get(context_, i, &op), SY_STATUS_OK);
    sy_op_info_t info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(sy_op_get_info(op, &info), SY_STATUS_OK);
    EXPECT_EQ(Op(context_, info.full_name), op);  // same handle by name
    for (int32_t a = 0; a < info.num_args; ++a) {
      const sy_op_arg_t arg = Arg(op, a);
      EXPECT_EQ(arg.tensor_index >= 0, arg.kind <= SY_ARG_TENSOR_LIST) << info.full_name;
      EXPECT_EQ(arg.attr_index >= 0, arg.kind > SY_ARG_TENSOR_LIST) << info.full_name;
    }
    if (std::string(info.full_name) == "add.Scalar") saw_add_scalar = true;
    if (std::string(info.full_name) == "concat") {
      EXPECT_EQ(info.list_arg, 0);
    }
  }
  EXPECT_TRUE(saw_add_scalar);
  sy_op_t op = nullptr;
  EXPECT_SY_ERROR(sy_op_get(context_, count, &op), SY_STATUS_OUT_OF_RANGE,
                  "sy_op_get: op index " + std::to_string(count) +
                      " is out of range: there are " + std::to_string(count) +
                      " ops now (see sy_op_count); the list shortens when a plugin "
                      "is unloaded, so count again");
}

TEST_F(OpTest, UnknownOpsSuggestNeighbours) {
  sy_op_t op = nullptr;
  EXPECT_SY_ERROR_LIKE(sy_op_find(context_, "softmaxx", &op), SY_STATUS_NOT_FOUND,
                       "sy_op_find: no op named 'softmaxx'", "did you mean");
  EXPECT_SY_ERROR(sy_op_find(context_, nullptr, &op), SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_find: name is NULL");
  EXPECT_EQ(op, nullptr);
}

TEST_F(OpTest, BroadcastAddAndMulMatchFloat64) {
  const std::vector<float> a = RandomFloats(3, 21), b = RandomFloats(4, 22);
  sy_tensor_t ta = F32(cpu_, {3, 1}, a), tb = F32(cpu_, {1, 4}, b);
  sy_tensor_t sum = Call1(Op(context_, "add"), {ta, tb});
  sy_tensor_t prod = Call1(Op(context_, "mul.Tensor"), {ta, tb});
  EXPECT_EQ(Shape(sum), (std::vector<int64_t>{3, 4}));
  std::vector<double> want_sum, want_prod;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 4; ++j) {
      want_sum.push_back(double{a[i]} + b[j]);
      want_prod.push_back(double{a[i]} * b[j]);
    }
  }
  ExpectClose(ReadF32(sum), want_sum);
  ExpectClose(ReadF32(prod), want_prod);
}

TEST_F(OpTest, ScalarOverloadTakesAFloatAttribute) {
  const std::vector<float> a = RandomFloats(10, 23);
  sy_tensor_t out = Call1(Op(context_, "add.Scalar"), {F32(cpu_, {10}, a)}, {FloatAttr(2.5)});
  std::vector<double> want;
  for (float v : a) want.push_back(v + 2.5);
  ExpectClose(ReadF32(out), want);
}

TEST_F(OpTest, MatmulMatchesFloat64) {
  const int m = 5, k = 7, n = 3;
  const std::vector<float> a = RandomFloats(m * k, 24), b = RandomFloats(k * n, 25);
  sy_tensor_t out = Call1(Op(context_, "matmul"), {F32(cpu_, {m, k}, a), F32(cpu_, {k, n}, b)});
  EXPECT_EQ(Shape(out), (std::vector<int64_t>{m, n}));
  std::vector<double> want(m * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) want[i * n + j] += double{a[i * k + p]} * b[p * n + j];
  ExpectClose(ReadF32(out), want, 1e-5, 1e-5);
}

TEST_F(OpTest, SumWithAttributesAndDefaults) {
  const std::vector<float> x = RandomFloats(12, 26);
  sy_tensor_t tx = F32(cpu_, {3, 4}, x);
  sy_op_t sum = Op(context_, "sum");
  const std::vector<int64_t> dims = {1};
  sy_tensor_t rows = Call1(sum, {tx}, {IntsAttr(dims), BoolAttr(true)});
  EXPECT_EQ(Shape(rows), (std::vector<int64_t>{3, 1}));
  std::vector<double> want(3, 0.0);
  double total = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      want[i] += x[i * 4 + j];
      total += x[i * 4 + j];
    }
  ExpectClose(ReadF32(rows), want);

  // dims left at its default ([] = every dim) while keepdim is given.
  sy_attr_t use_default{};
  use_default.kind = SY_ATTR_DEFAULT;
  sy_tensor_t all = Call1(sum, {tx}, {use_default, BoolAttr(true)});
  EXPECT_EQ(Shape(all), (std::vector<int64_t>{1, 1}));
  ExpectClose(ReadF32(all), {total});
  sy_tensor_t scalar = Call1(sum, {tx});  // every attribute defaulted
  EXPECT_EQ(Shape(scalar), (std::vector<int64_t>{}));
  ExpectClose(ReadF32(scalar), {total});
}

TEST_F(OpTest, UnaryOpsMatchFloat64) {
  const std::vector<float> x = RandomFloats(64, 27, -4.0f, 4.0f);
  sy_tensor_t tx = F32(cpu_, {8, 8}, x);
  std::vector<double> relu, gelu, tanh_gelu;
  for (float v : x) {
    const double d = v;
    relu.push_back(d > 0 ? d : 0);
    gelu.push_back(0.5 * d * (1 + std::erf(d / std::sqrt(2.0))));
    const double inner = std::sqrt(2.0 / M_PI) * (d + 0.044715 * d * d * d);
    tanh_gelu.push_back(0.5 * d * (1 + std::tanh(inner)));
  }
  ExpectClose(ReadF32(Call1(Op(context_, "relu"), {tx})), relu);
  ExpectClose(ReadF32(Call1(Op(context_, "gelu"), {tx})), gelu, 1e-5, 1e-6);
  ExpectClose(ReadF32(Call1(Op(context_, "gelu"), {tx}, {StringAttr("tanh")})), tanh_gelu,
              1e-5, 1e-6);
}

TEST_F(OpTest, SoftmaxAndRmsNormMatchFloat64) {
  const int rows = 4, cols = 6;
  const std::vector<float> x = RandomFloats(rows * cols, 28, -3.0f, 3.0f);
  const std::vector<float> w = RandomFloats(cols, 29);
  sy_tensor_t tx = F32(cpu_, {rows, cols}, x);
  std::vector<double> softmax, rms;
  for (int i = 0; i < rows; ++i) {
    double mx = -1e300, denom = 0, sq = 0;
    for (int j = 0; j < cols; ++j) mx = std::max(mx, double{x[i * cols + j]});
    for (int j = 0; j < cols; ++j) denom += std::exp(x[i * cols + j] - mx);
    for (int j = 0; j < cols; ++j) sq += double{x[i * cols + j]} * x[i * cols + j];
    const double scale = 1.0 / std::sqrt(sq / cols + 1.0);  // eps given as int 1
    for (int j = 0; j < cols; ++j) {
      softmax.push_back(std::exp(x[i * cols + j] - mx) / denom);
      rms.push_back(x[i * cols + j] * scale * w[j]);
    }
  }
  ExpectClose(ReadF32(Call1(Op(context_, "softmax"), {tx})), softmax, 1e-5, 1e-6);
  // An int is accepted for a float argument.
  ExpectClose(ReadF32(Call1(Op(context_, "rms_norm"), {tx, F32(cpu_, {cols}, w)},
                            {IntAttr(1)})),
              rms, 1e-5, 1e-6);
}

TEST_F(OpTest, TensorListArgumentTakesTheRemainingInputs) {
  const std::vector<float> a = RandomFloats(4, 30), b = RandomFloats(2, 31),
                           c = RandomFloats(6, 32);
  sy_tensor_t ta = F32(cpu_, {2, 2}, a), tb = F32(cpu_, {1, 2}, b),
              tc = F32(cpu_, {3, 2}, c);
  sy_tensor_t out = Call1(Op(context_, "concat"), {ta, tb, tc});
  EXPECT_EQ(Shape(out), (std::vector<int64_t>{6, 2}));
  std::vector<double> want(a.begin(), a.end());
  want.insert(want.end(), b.begin(), b.end());
  want.insert(want.end(), c.begin(), c.end());
  ExpectClose(ReadF32(out), want, 0, 0);
}

TEST_F(OpTest, CallOutWritesIntoGivenOutputs) {
  const std::vector<float> a = RandomFloats(6, 33), b = RandomFloats(6, 34);
  sy_tensor_t ta = F32(cpu_, {2, 3}, a), tb = F32(cpu_, {2, 3}, b);
  const int64_t shape[2] = {2, 3};
  sy_tensor_t out = nullptr;
  ASSERT_EQ(sy_tensor_empty(cpu_, SY_DTYPE_F32, shape, 2, &out), SY_STATUS_OK);
  void* before = nullptr;
  sy_tensor_data_ptr(out, &before);
  const sy_tensor_t inputs[2] = {ta, tb};
  sy_op_t add = Op(context_, "add");
  ASSERT_EQ(sy_op_call_out(add, inputs, 2, nullptr, 0, &out, 1), SY_STATUS_OK)
      << sy_last_error_message();
  void* after = nullptr;
  sy_tensor_data_ptr(out, &after);
  EXPECT_EQ(before, after);
  std::vector<double> want;
  for (int i = 0; i < 6; ++i) want.push_back(double{a[i]} + b[i]);
  ExpectClose(ReadF32(out), want);

  sy_tensor_t wrong = F32(cpu_, {3}, {0, 0, 0});
  EXPECT_SY_ERROR_LIKE(sy_op_call_out(add, inputs, 2, nullptr, 0, &wrong, 1),
                       SY_STATUS_INVALID_ARGUMENT, "sy_op_call_out: add.Tensor: output #0",
                       "pass a tensor of exactly that dtype, shape and device");
  sy_tensor_t null_out = nullptr;
  EXPECT_SY_ERROR(sy_op_call_out(add, inputs, 2, nullptr, 0, &null_out, 1),
                  SY_STATUS_INVALID_ARGUMENT,
                  "sy_op_call_out: add.Tensor: output #0 is NULL; pass a tensor handle");
}

TEST_F(OpTest, ExplainNamesTheKernel) {
  sy_tensor_t x = F32(cpu_, {4}, {1, 2, 3, 4});
  const char* text = nullptr;
  ASSERT_EQ(sy_op_explain(Op(context_, "relu"), &x, 1, nullptr, 0, &text), SY_STATUS_OK);
  EXPECT_NE(std::string(text).find("cpu"), std::string::npos) << text;
  ASSERT_EQ(sy_op_explain(Op(context_, "transpose"), &x, 1, nullptr, 0, &text),
            SY_STATUS_INVALID_ARGUMENT);  // errors as the call would
}

}  // namespace
}  // namespace sy_test
