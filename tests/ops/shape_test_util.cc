#include "tests/ops/shape_test_util.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/ops/shape_util.h"

namespace sy::testing {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only
namespace {

// Turns a schema default into the Value a caller would have passed.
Value FromDefault(const DefaultValue& d) {
  struct Visitor {
    Value operator()(std::monostate) const { return None(); }
    Value operator()(int64_t v) const { return Value(v); }
    Value operator()(double v) const { return Value(v); }
    Value operator()(bool v) const { return Value(v); }
    Value operator()(const std::vector<int64_t>& v) const { return Ints(v); }
    Value operator()(const std::string& v) const { return Str(v); }
    Value operator()(sy_dtype_t v) const { return DType(v); }
  };
  return std::visit(Visitor{}, d);
}

bool KindFits(ArgKind kind, const Value& v) {
  using K = Value::Kind;
  switch (kind) {
    case ArgKind::kTensor:
      return v.kind == K::kTensors && !v.is_list;
    case ArgKind::kTensorList:
      return v.kind == K::kTensors && v.is_list;
    case ArgKind::kInt:
      return v.kind == K::kInt;
    case ArgKind::kIntList:
      return v.kind == K::kInts;
    case ArgKind::kFloat:
    case ArgKind::kScalar:
      return v.kind == K::kInt || v.kind == K::kFloat;
    case ArgKind::kBool:
      return v.kind == K::kBool;
    case ArgKind::kString:
      return v.kind == K::kStr;
    case ArgKind::kDType:
      return v.kind == K::kDType;
    case ArgKind::kCommunicator:
      return false;  // shape tests pass none
  }
  return false;
}

}  // namespace

sy_tensor_meta_t T(sy_dtype_t dtype, const Shape& shape) {
  return MakeMeta(dtype, shape);
}

Value TensorList(const std::vector<sy_tensor_meta_t>& tensors) {
  Value v;
  v.kind = Value::Kind::kTensors;
  v.tensors = tensors;
  v.is_list = true;
  return v;
}

Value Ints(const std::vector<int64_t>& ints) {
  Value v;
  v.kind = Value::Kind::kInts;
  v.ints = ints;
  return v;
}

Value Str(std::string s) {
  Value v;
  v.kind = Value::Kind::kStr;
  v.str = std::move(s);
  return v;
}

Value DType(sy_dtype_t dtype) {
  Value v;
  v.kind = Value::Kind::kDType;
  v.dtype = dtype;
  return v;
}

absl::StatusOr<sy_tensor_meta_t> Infer(std::string_view full_name,
                                       const std::vector<Value>& args) {
  // Parsed once: the random tests make thousands of calls.
  static const auto* const ops = [] {
    auto* m = new std::map<std::string, std::pair<const CoreOpDef*, Schema>,
                           std::less<>>;
    for (const CoreOpDef& op : CoreOps()) {
      absl::StatusOr<Schema> parsed = ParseSchema(op.schema);
      if (!parsed.ok()) continue;
      std::string name = parsed->FullName();
      m->emplace(std::move(name), std::make_pair(&op, *std::move(parsed)));
    }
    return m;
  }();
  const auto it = ops->find(full_name);
  if (it == ops->end()) {
    return absl::InternalError(
        absl::StrCat("test: no core op ", std::string(full_name)));
  }
  const CoreOpDef* def = it->second.first;
  const Schema& schema = it->second.second;
  if (args.size() > schema.args.size()) {
    return absl::InternalError("test: too many arguments");
  }
  // Every value the attrs point into lives in `values` until the end.
  std::vector<Value> values;
  values.reserve(schema.args.size());
  for (size_t i = 0; i < schema.args.size(); ++i) {
    const SchemaArg& arg = schema.args[i];
    if (i < args.size()) {
      values.push_back(args[i]);
    } else if (arg.has_default) {
      values.push_back(FromDefault(arg.default_value));
    } else {
      return absl::InternalError(absl::StrCat("test: missing ", arg.name));
    }
    const Value& v = values.back();
    const bool none_ok = arg.optional && v.kind == Value::Kind::kNone;
    if (!none_ok && !KindFits(arg.kind, v)) {
      return absl::InternalError(
          absl::StrCat("test: bad value for ", arg.name));
    }
  }
  std::vector<sy_tensor_meta_t> inputs;
  std::vector<int32_t> offsets;
  std::vector<sy_attr_t> attrs;
  for (size_t i = 0; i < schema.args.size(); ++i) {
    const Value& v = values[i];
    if (schema.args[i].is_tensor()) {
      offsets.push_back(static_cast<int32_t>(inputs.size()));
      inputs.insert(inputs.end(), v.tensors.begin(), v.tensors.end());
      continue;
    }
    sy_attr_t a{};
    switch (v.kind) {
      case Value::Kind::kNone:
        a.kind = SY_ATTR_NONE;
        break;
      case Value::Kind::kInt:
        a.kind = SY_ATTR_INT;
        a.value.i = v.i;
        break;
      case Value::Kind::kFloat:
        a.kind = SY_ATTR_FLOAT;
        a.value.f = v.f;
        break;
      case Value::Kind::kBool:
        a.kind = SY_ATTR_BOOL;
        a.value.b = v.b;
        break;
      case Value::Kind::kInts:
        a.kind = SY_ATTR_INTS;
        a.value.ints.data = v.ints.data();
        a.value.ints.size = static_cast<int64_t>(v.ints.size());
        break;
      case Value::Kind::kStr:
        a.kind = SY_ATTR_STRING;
        a.value.str.data = v.str.c_str();
        a.value.str.size = static_cast<int64_t>(v.str.size());
        break;
      case Value::Kind::kDType:
        a.kind = SY_ATTR_DTYPE;
        a.value.dtype = v.dtype;
        break;
      case Value::Kind::kTensors:
        break;
    }
    attrs.push_back(a);
  }
  offsets.push_back(static_cast<int32_t>(inputs.size()));
  const ShapeContext ctx(schema, inputs, offsets, attrs);
  std::vector<sy_tensor_meta_t> outputs(schema.num_returns);
  // Poison the result so that a shape function that forgets a field shows.
  for (sy_tensor_meta_t& out : outputs) {
    out.dtype = 0xdead;
    out.ndim = -7;
  }
  if (absl::Status s = def->shape_fn(ctx, absl::MakeSpan(outputs)); !s.ok()) {
    return s;
  }
  return outputs[0];
}

::testing::AssertionResult IsMeta(const absl::StatusOr<sy_tensor_meta_t>& r,
                                  sy_dtype_t dtype, const Shape& shape) {
  if (!r.ok()) {
    return ::testing::AssertionFailure() << "failed: " << r.status();
  }
  const Shape got(r->shape, r->shape + (r->ndim > 0 ? r->ndim : 0));
  if (r->dtype != dtype || got != shape) {
    return ::testing::AssertionFailure()
           << "got " << DTypeName(r->dtype) << FormatShape(got) << ", want "
           << DTypeName(dtype) << FormatShape(shape);
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsInvalid(
    const absl::StatusOr<sy_tensor_meta_t>& r) {
  if (r.ok()) {
    return ::testing::AssertionFailure()
           << "succeeded with " << DTypeName(r->dtype)
           << FormatShape(ShapeOf(*r));
  }
  if (r.status().code() != absl::StatusCode::kInvalidArgument) {
    return ::testing::AssertionFailure() << "wrong code: " << r.status();
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult IsError(const absl::StatusOr<sy_tensor_meta_t>& r,
                                   std::string_view message) {
  ::testing::AssertionResult invalid = IsInvalid(r);
  if (!invalid) return invalid;
  if (std::string(r.status().message()) != message) {
    return ::testing::AssertionFailure()
           << "message\n  got:  " << r.status().message()
           << "\n  want: " << message;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace sy::testing
