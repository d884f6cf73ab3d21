// The printing half of schema.h: names and the canonical text. Whatever is
// printed here must parse (schema.cc) back to an equal Schema.
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/schema.h"

namespace sy::core {
namespace {

// Shortest text that reads back as the same double (std::to_chars, which
// unlike printf ignores the locale), always with a '.' or an exponent so
// that a Scalar default stays a float when re-parsed.
std::string FormatDouble(double v) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
  return out;
}

std::string FormatDefault(const DefaultValue& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return "None"; }
    std::string operator()(int64_t v) const { return absl::StrCat(v); }
    std::string operator()(double v) const { return FormatDouble(v); }
    std::string operator()(bool v) const { return v ? "True" : "False"; }
    std::string operator()(const std::vector<int64_t>& v) const {
      return absl::StrCat("[", absl::StrJoin(v, ", "), "]");
    }
    std::string operator()(const std::string& v) const { return Quote(v); }
    std::string operator()(sy_dtype_t v) const {
      return std::string(DTypeName(v));
    }
  };
  return std::visit(Visitor{}, value);
}

std::string TypeText(const SchemaArg& arg) {
  return absl::StrCat(AsAbsl(ArgKindName(arg.kind)), arg.optional ? "?" : "");
}

}  // namespace

std::string_view ArgKindName(ArgKind kind) {
  switch (kind) {
    case ArgKind::kTensor:
      return "Tensor";
    case ArgKind::kTensorList:
      return "Tensor[]";
    case ArgKind::kInt:
      return "int";
    case ArgKind::kIntList:
      return "int[]";
    case ArgKind::kFloat:
      return "float";
    case ArgKind::kBool:
      return "bool";
    case ArgKind::kScalar:
      return "Scalar";
    case ArgKind::kString:
      return "str";
    case ArgKind::kDType:
      return "ScalarType";
    case ArgKind::kCommunicator:
      return "Communicator";
  }
  return "invalid";
}

std::string Schema::BaseName() const {
  return ns.empty() ? name : absl::StrCat(ns, "::", name);
}

std::string Schema::FullName() const {
  return overload.empty() ? BaseName()
                          : absl::StrCat(BaseName(), ".", overload);
}

std::string Schema::ToString() const {
  std::string out = absl::StrCat(FullName(), "(");
  for (size_t i = 0; i < args.size(); ++i) {
    const SchemaArg& arg = args[i];
    absl::StrAppend(&out, i == 0 ? "" : ", ", TypeText(arg), " ", arg.name);
    if (arg.has_default) {
      absl::StrAppend(&out, "=", FormatDefault(arg.default_value));
    }
  }
  absl::StrAppend(&out, ") -> ");
  if (num_returns == 1) {
    absl::StrAppend(&out, "Tensor");
  } else {
    std::vector<const char*> returns(num_returns, "Tensor");
    absl::StrAppend(&out, "(", absl::StrJoin(returns, ", "), ")");
  }
  return out;
}

}  // namespace sy::core
