#include "sdk/conformance/harness/error_cases.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/references.h"
#include "sdk/conformance/harness/spec_builders.h"

namespace sy::op_harness {
namespace {

using specs::Case;
using specs::Fixed;
using specs::In;
constexpr sy_dtype_t kF32 = SY_DTYPE_F32;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

OpCase FollowUp(std::string label, std::vector<InputSpec> inputs,
                std::vector<AttrValue> attrs, Accuracy accuracy,
                ReferenceFn reference) {
  return Case(std::move(label), std::move(inputs), std::move(attrs), accuracy,
              std::move(reference), LayoutPlan::kContiguousOnly);
}

ErrorCase Error(std::string name, std::string variant, std::string op,
                std::vector<InputSpec> inputs, std::vector<AttrValue> attrs,
                std::vector<std::vector<std::string>> mentions, OpCase follow_up) {
  ErrorCase e;
  e.name = std::move(name);
  e.variant = std::move(variant);
  e.op = std::move(op);
  e.inputs = std::move(inputs);
  e.attrs = std::move(attrs);
  e.mentions = std::move(mentions);
  e.follow_up = std::move(follow_up);
  return e;
}

// An ErrorCase whose error is in the input's values (ErrorCase::found_in_data).
ErrorCase DataError(std::string name, std::string variant, std::string op,
                    std::vector<InputSpec> inputs, std::vector<AttrValue> attrs,
                    std::vector<std::vector<std::string>> mentions, OpCase follow_up) {
  ErrorCase e = Error(std::move(name), std::move(variant), std::move(op), std::move(inputs),
                      std::move(attrs), std::move(mentions), std::move(follow_up));
  e.found_in_data = true;
  return e;
}

void IntegerDivisionByZero(std::vector<ErrorCase>& out) {
  for (sy_dtype_t d : {SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_I8, SY_DTYPE_U8}) {
    const std::vector<double> a = d == SY_DTYPE_U8 ? std::vector<double>{7, 9, 5, 3, 8}
                                                   : std::vector<double>{7, -9, 5, 3, 8};
    out.push_back(DataError(
        "div_Tensor_by_zero", std::string(DtypeName(d)), "div.Tensor",
        {Fixed(d, a), Fixed(d, {2, 3, 0, 1, 4})}, {}, {{"zero", "by 0"}},
        FollowUp("nonzero divisors", {In(d, {5}, Domain::kArith), In(d, {5}, Domain::kNonZero)},
                 {}, Accuracy::kExact, [](const std::vector<RefTensor>& in) {
                   return ref::BinaryTensor(ref::BinaryOp::kDiv, in[0], in[1]);
                 })));
  }
  out.push_back(Error(
      "div_Scalar_by_zero", "i32", "div.Scalar", {Fixed(SY_DTYPE_I32, {7, -9, 5})},
      {AttrValue::Int(0)}, {{"zero", "0"}},
      FollowUp("b=3", {In(SY_DTYPE_I32, {5}, Domain::kArith)}, {AttrValue::Int(3)},
               Accuracy::kExact, [](const std::vector<RefTensor>& in) {
                 return ref::BinaryScalar(ref::BinaryOp::kDiv, in[0], {false, 3});
               })));
}

void EmbeddingIndices(std::vector<ErrorCase>& out) {
  const ReferenceFn reference = [](const std::vector<RefTensor>& in) {
    return ref::Embedding(in[0], in[1]);
  };
  for (sy_dtype_t d : {SY_DTYPE_I64, SY_DTYPE_I32}) {
    const std::string variant = "f32_" + std::string(DtypeName(d));
    OpCase follow_up = FollowUp("indices in range", {In(kF32, {4, 3}), specs::Index(d, {5}, 4)},
                                {}, Accuracy::kExact, reference);
    out.push_back(DataError("embedding_index_too_large", variant, "embedding",
                        {In(kF32, {4, 3}), Fixed(d, {0, 4, 1})}, {},
                        {{"range", "out of", "bound", "4"}}, follow_up));
    out.push_back(DataError("embedding_index_negative", variant, "embedding",
                        {In(kF32, {4, 3}), Fixed(d, {0, -1})}, {},
                        {{"range", "out of", "bound", "negative", "-1"}}, follow_up));
  }
  out.push_back(Error("embedding_float_indices", "f32_f32", "embedding",
                      {In(kF32, {4, 3}), Fixed(kF32, {0, 1})}, {}, {{"i32", "i64"}},
                      FollowUp("i64 indices", {In(kF32, {4, 3}), specs::Index(SY_DTYPE_I64, {2}, 4)},
                               {}, Accuracy::kExact, reference)));
}

void BadAttributes(std::vector<ErrorCase>& out) {
  out.push_back(Error(
      "gelu_unknown_approximate", "f32", "gelu", {In(kF32, {4})}, {AttrValue::Str("fast")},
      {{"approximate"}},
      FollowUp("approximate=tanh", {In(kF32, {4})}, {AttrValue::Str("tanh")},
               Accuracy::kTranscendental, [](const std::vector<RefTensor>& in) {
                 return ref::Unary(ref::UnaryOp::kGeluTanh, in[0]);
               })));
  out.push_back(Error(
      "softmax_dim_out_of_range", "f32", "softmax", {In(kF32, {3, 4})}, {AttrValue::Int(2)},
      {{"dim"}},
      FollowUp("dim=1", {In(kF32, {3, 4})}, {AttrValue::Int(1)}, Accuracy::kNormalization,
               [](const std::vector<RefTensor>& in) { return ref::Softmax(in[0], 1, false); })));
  out.push_back(Error(
      "slice_step_zero", "f32", "slice", {In(kF32, {6})},
      {AttrValue::Int(0), AttrValue::Int(0), AttrValue::None(), AttrValue::Int(0)}, {{"step"}},
      FollowUp("step=2", {In(kF32, {6})},
               {AttrValue::Int(0), AttrValue::Int(0), AttrValue::None(), AttrValue::Int(2)},
               Accuracy::kExact, [](const std::vector<RefTensor>& in) {
                 return ref::Slice(in[0], 0, 0, std::nullopt, 2);
               })));
  auto conv_attrs = [](std::vector<int64_t> stride, int64_t groups) {
    return std::vector<AttrValue>{AttrValue::Ints(stride), AttrValue::Ints({0, 0}),
                                  AttrValue::Ints({1, 1}), AttrValue::Int(groups)};
  };
  auto conv_reference = [](std::vector<int64_t> stride, int64_t groups) -> ReferenceFn {
    return [=](const std::vector<RefTensor>& in) {
      return ref::Conv2d(in[0], in[1], in[2], stride, {0, 0}, {1, 1}, groups);
    };
  };
  out.push_back(Error(
      "conv2d_stride_zero", "f32", "conv2d",
      {In(kF32, {1, 2, 5, 5}), In(kF32, {3, 2, 3, 3}), InputSpec::None()},
      conv_attrs({0, 1}, 1), {{"stride"}},
      FollowUp("stride=[1, 1]", {In(kF32, {1, 2, 5, 5}), In(kF32, {3, 2, 3, 3}), InputSpec::None()},
               conv_attrs({1, 1}, 1), Accuracy::kContraction, conv_reference({1, 1}, 1))));
  out.push_back(Error(
      "conv2d_groups_mismatch", "f32", "conv2d",
      {In(kF32, {1, 4, 5, 5}), In(kF32, {6, 2, 3, 3}), InputSpec::None()},
      conv_attrs({1, 1}, 3), {{"groups"}},
      FollowUp("groups=2", {In(kF32, {1, 4, 5, 5}), In(kF32, {6, 2, 3, 3}), InputSpec::None()},
               conv_attrs({1, 1}, 2), Accuracy::kContraction, conv_reference({1, 1}, 2))));
  out.push_back(Error(
      "conv2d_integer_input", "i32", "conv2d",
      {In(SY_DTYPE_I32, {1, 2, 5, 5}), In(SY_DTYPE_I32, {3, 2, 3, 3}), InputSpec::None()},
      conv_attrs({1, 1}, 1), {{"float"}},
      FollowUp("f32", {In(kF32, {1, 2, 5, 5}), In(kF32, {3, 2, 3, 3}), InputSpec::None()},
               conv_attrs({1, 1}, 1), Accuracy::kContraction, conv_reference({1, 1}, 1))));
  out.push_back(Error(
      "fill_value_out_of_range", "u8", "fill.Scalar", {In(SY_DTYPE_U8, {3})},
      {AttrValue::Int(300)}, {{"300"}},
      FollowUp("value 255", {In(SY_DTYPE_U8, {3})}, {AttrValue::Int(255)}, Accuracy::kExact,
               [](const std::vector<RefTensor>& in) { return ref::Fill(in[0], 255); })));
  out.push_back(Error(
      "layer_norm_negative_eps", "f32", "layer_norm",
      {In(kF32, {2, 4}), InputSpec::None(), InputSpec::None()},
      {AttrValue::Ints({4}), AttrValue::Float(-1)}, {{"eps"}},
      FollowUp("eps=1e-05", {In(kF32, {2, 4}), InputSpec::None(), InputSpec::None()},
               {AttrValue::Ints({4}), AttrValue::Float(1e-5)}, Accuracy::kNormalization,
               [](const std::vector<RefTensor>& in) {
                 return ref::LayerNorm(in[0], {4}, in[1], in[2], 1e-5);
               })));
  const std::vector<InputSpec> qkv = {In(kF32, {2, 3, 4}, Domain::kUnit),
                                      In(kF32, {2, 3, 4}, Domain::kUnit),
                                      In(kF32, {2, 3, 4}, Domain::kUnit)};
  std::vector<InputSpec> with_mask = qkv;
  with_mask.push_back(In(SY_DTYPE_BOOL, {3, 3}, Domain::kMaskKeep));
  std::vector<InputSpec> no_mask = qkv;
  no_mask.push_back(InputSpec::None());
  out.push_back(Error(
      "scaled_dot_product_attention_mask_and_causal", "f32", "scaled_dot_product_attention",
      with_mask, {AttrValue::Bool(true), AttrValue::None()}, {{"causal"}},
      FollowUp("causal only", no_mask, {AttrValue::Bool(true), AttrValue::None()},
               Accuracy::kAttention, [](const std::vector<RefTensor>& in) {
                 return ref::ScaledDotProductAttention(in[0], in[1], in[2], in[3], true,
                                                       std::nullopt);
               })));
  out.push_back(Error(
      "sum_repeated_dim", "f32", "sum", {In(kF32, {3, 4})},
      {AttrValue::Ints({0, 0}), AttrValue::Bool(false)}, {{"twice", "repeat", "once"}},
      FollowUp("dims=[0]", {In(kF32, {3, 4})}, {AttrValue::Ints({0}), AttrValue::Bool(false)},
               Accuracy::kReduction, [](const std::vector<RefTensor>& in) {
                 return ref::Reduce(ref::ReduceOp::kSum, in[0], {0}, false);
               })));
  out.push_back(Error(
      "pow_Scalar_negative_exponent", "i32", "pow.Scalar",
      {In(SY_DTYPE_I32, {3}, Domain::kPowBase)}, {AttrValue::Int(-1)}, {{"negative"}},
      FollowUp("b=2", {In(SY_DTYPE_I32, {3}, Domain::kPowBase)}, {AttrValue::Int(2)},
               Accuracy::kExact, [](const std::vector<RefTensor>& in) {
                 return ref::BinaryScalar(ref::BinaryOp::kPow, in[0], {false, 2});
               })));
  out.push_back(Error(
      "cast_invalid_dtype", "f32", "cast", {In(kF32, {3})}, {AttrValue::Dtype(0x12345u)},
      {{"dtype"}},
      FollowUp("to f64", {In(kF32, {3})}, {AttrValue::Dtype(SY_DTYPE_F64)}, Accuracy::kExact,
               [](const std::vector<RefTensor>& in) { return ref::Cast(in[0], SY_DTYPE_F64); })));
}

void BadShapesAndDtypes(std::vector<ErrorCase>& out) {
  const ReferenceFn matmul = [](const std::vector<RefTensor>& in) {
    return ref::Matmul(in[0], in[1]);
  };
  out.push_back(Error("matmul_inner_dims_differ", "f32", "matmul",
                      {In(kF32, {3, 4}), In(kF32, {5, 2})}, {}, {{"dim"}},
                      FollowUp("[3, 4] x [4, 2]", {In(kF32, {3, 4}), In(kF32, {4, 2})}, {},
                               Accuracy::kContraction, matmul)));
  out.push_back(Error(
      "argmax_empty", "f32", "argmax", {In(kF32, {0, 3})},
      {AttrValue::None(), AttrValue::Bool(false)}, {{"size 0", "empty"}},
      FollowUp("[2, 3]", {In(kF32, {2, 3})}, {AttrValue::None(), AttrValue::Bool(false)},
               Accuracy::kExact, [](const std::vector<RefTensor>& in) {
                 return ref::Argmax(in[0], std::nullopt, false);
               })));
  const ReferenceFn where = [](const std::vector<RefTensor>& in) {
    return ref::Where(in[0], in[1], in[2]);
  };
  out.push_back(Error("where_condition_not_bool", "f32", "where",
                      {In(kF32, {3}), In(kF32, {3}), In(kF32, {3})}, {}, {{"bool"}},
                      FollowUp("bool condition",
                               {In(SY_DTYPE_BOOL, {3}), In(kF32, {3}), In(kF32, {3})}, {},
                               Accuracy::kExact, where)));
  out.push_back(Error(
      "reshape_element_count", "f32", "reshape", {In(kF32, {2, 3})}, {AttrValue::Ints({4})},
      {{"element"}},
      FollowUp("[3, 2]", {In(kF32, {2, 3})}, {AttrValue::Ints({3, 2})}, Accuracy::kExact,
               [](const std::vector<RefTensor>& in) { return ref::Reshape(in[0], {3, 2}); })));
  ErrorCase concat = Error(
      "concat_dtypes_differ", "f32_i32", "concat", {In(kF32, {2}), In(SY_DTYPE_I32, {2})},
      {AttrValue::Int(0)}, {{"dtype"}},
      FollowUp("f32 with f32", {In(kF32, {2}), In(kF32, {2})}, {AttrValue::Int(0)},
               Accuracy::kExact,
               [](const std::vector<RefTensor>& in) { return ref::Concat(in, 0); }));
  concat.list_sizes = {2};
  concat.follow_up.list_sizes = {2};
  out.push_back(std::move(concat));
  out.push_back(Error(
      "add_Tensor_shapes_do_not_broadcast", "f32", "add.Tensor",
      {In(kF32, {3}), In(kF32, {4})}, {}, {{"broadcast"}},
      FollowUp("[3] with [3]", {In(kF32, {3}), In(kF32, {3})}, {}, Accuracy::kBasic,
               [](const std::vector<RefTensor>& in) {
                 return ref::BinaryTensor(ref::BinaryOp::kAdd, in[0], in[1]);
               })));
  out.push_back(Error(
      "sub_Tensor_bool", "bool", "sub.Tensor",
      {In(SY_DTYPE_BOOL, {3}), In(SY_DTYPE_BOOL, {3})}, {}, {{"bool"}},
      FollowUp("i32", {In(SY_DTYPE_I32, {3}, Domain::kArith), In(SY_DTYPE_I32, {3}, Domain::kArith)},
               {}, Accuracy::kExact, [](const std::vector<RefTensor>& in) {
                 return ref::BinaryTensor(ref::BinaryOp::kSub, in[0], in[1]);
               })));
}

}  // namespace

std::vector<ErrorCase> ErrorCases() {
  std::vector<ErrorCase> out;
  IntegerDivisionByZero(out);
  EmbeddingIndices(out);
  BadAttributes(out);
  BadShapesAndDtypes(out);
  return out;
}

std::vector<std::string> CheckErrorMessage(
    const std::string& op, const std::string& message,
    const std::vector<std::vector<std::string>>& mentions) {
  std::vector<std::string> problems;
  const std::string text = Lower(message);
  const std::string base = Lower(op.substr(0, op.find('.')));
  if (text.find(base) == std::string::npos) {
    problems.push_back("does not name the op '" + base + "'");
  }
  for (const std::vector<std::string>& any : mentions) {
    const bool found = std::any_of(any.begin(), any.end(), [&](const std::string& w) {
      return text.find(Lower(w)) != std::string::npos;
    });
    if (!found) {
      std::string list;
      for (const std::string& w : any) list += (list.empty() ? "\"" : " or \"") + w + "\"";
      problems.push_back("does not mention " + list);
    }
  }
  static const char* const kAdvice[] = {"; ", "must", "use ", "pass ", "expected",
                                        "cast ", "should"};
  const bool advises = std::any_of(std::begin(kAdvice), std::end(kAdvice), [&](const char* w) {
    return text.find(w) != std::string::npos;
  });
  if (!advises) problems.push_back("does not say what to do");
  return problems;
}

}  // namespace sy::op_harness
