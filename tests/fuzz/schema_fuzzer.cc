// Fuzzes ParseSchema (dispatcher/ops/schema.h) with arbitrary text.
//
// Beyond "no crash", every input checks the header's contract:
// - a failure is InvalidArgument whose message quotes the schema and names
//   a column;
// - a success obeys the grammar's rules (identifiers, unique argument
//   names, defaults last and of the argument's kind, Tensor defaults only
//   None on optional arguments, tensor_args/attr_args split in order);
// - ToString() is canonical: it parses back to an equal Schema, and
//   printing that again gives the same text.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <variant>

#include "dispatcher/ops/schema.h"
#include "fuzz_check.h"

namespace {

bool IsIdentifier(std::string_view s) {
  if (s.empty()) return false;
  auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!alpha(s[0])) return false;
  for (char c : s) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

// Whether a default value's type is one the argument's kind allows.
bool DefaultFitsKind(const sy::core::SchemaArg& arg) {
  const sy::core::DefaultValue& v = arg.default_value;
  if (std::holds_alternative<std::monostate>(v)) return arg.optional;
  switch (arg.kind) {
    case sy::core::ArgKind::kInt:
      return std::holds_alternative<int64_t>(v);
    case sy::core::ArgKind::kFloat:
      return std::holds_alternative<double>(v);
    case sy::core::ArgKind::kScalar:
      return std::holds_alternative<int64_t>(v) ||
             std::holds_alternative<double>(v);
    case sy::core::ArgKind::kBool:
      return std::holds_alternative<bool>(v);
    case sy::core::ArgKind::kIntList:
      return std::holds_alternative<std::vector<int64_t>>(v);
    case sy::core::ArgKind::kString:
      return std::holds_alternative<std::string>(v);
    case sy::core::ArgKind::kDType:
      return std::holds_alternative<sy_dtype_t>(v);
    case sy::core::ArgKind::kTensor:
    case sy::core::ArgKind::kTensorList:
    case sy::core::ArgKind::kCommunicator:
      return false;  // only None, handled above (a Communicator has none)
  }
  return false;
}

void CheckRules(const sy::core::Schema& s, const std::string& text) {
  const char* t = text.c_str();
  FUZZ_CHECK(IsIdentifier(s.name), "op name '%s' of '%s'", s.name.c_str(), t);
  FUZZ_CHECK(s.ns.empty() || IsIdentifier(s.ns), "namespace of '%s'", t);
  FUZZ_CHECK(s.overload.empty() || IsIdentifier(s.overload),
             "overload of '%s'", t);
  FUZZ_CHECK(s.num_returns >= 1, "%d returns in '%s'", s.num_returns, t);

  std::set<std::string> names;
  bool seen_default = false;
  size_t next_tensor = 0, next_attr = 0;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const sy::core::SchemaArg& arg = s.args[i];
    FUZZ_CHECK(IsIdentifier(arg.name), "argument %zu of '%s'", i, t);
    FUZZ_CHECK(names.insert(arg.name).second, "argument '%s' twice in '%s'",
               arg.name.c_str(), t);
    FUZZ_CHECK(arg.has_default || !seen_default,
               "'%s' without a default after one with, in '%s'",
               arg.name.c_str(), t);
    seen_default = seen_default || arg.has_default;
    if (arg.has_default) {
      FUZZ_CHECK(DefaultFitsKind(arg), "default of '%s' in '%s'",
                 arg.name.c_str(), t);
    } else {
      FUZZ_CHECK(std::holds_alternative<std::monostate>(arg.default_value),
                 "'%s' has a value but no default, in '%s'", arg.name.c_str(),
                 t);
    }
    if (arg.is_tensor() && arg.has_default) {
      FUZZ_CHECK(arg.optional && std::holds_alternative<std::monostate>(
                                     arg.default_value),
                 "Tensor '%s' defaults to other than None, in '%s'",
                 arg.name.c_str(), t);
    }
    // tensor_args and attr_args list the indices in written order.
    if (arg.is_tensor()) {
      FUZZ_CHECK(next_tensor < s.tensor_args.size() &&
                     s.tensor_args[next_tensor] == static_cast<int>(i),
                 "tensor_args of '%s' at argument %zu", t, i);
      ++next_tensor;
    } else {
      FUZZ_CHECK(next_attr < s.attr_args.size() &&
                     s.attr_args[next_attr] == static_cast<int>(i),
                 "attr_args of '%s' at argument %zu", t, i);
      ++next_attr;
    }
  }
  FUZZ_CHECK(next_tensor == s.tensor_args.size() &&
                 next_attr == s.attr_args.size(),
             "tensor_args/attr_args of '%s' list extra indices", t);

  // FullName is "ns::name.overload" with the parts that exist.
  std::string full = s.ns.empty() ? s.name : s.ns + "::" + s.name;
  FUZZ_CHECK(s.BaseName() == full, "BaseName '%s' of '%s'",
             s.BaseName().c_str(), t);
  if (!s.overload.empty()) full += "." + s.overload;
  FUZZ_CHECK(s.FullName() == full, "FullName '%s' of '%s'",
             s.FullName().c_str(), t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<sy::core::Schema> parsed = sy::core::ParseSchema(text);
  if (!parsed.ok()) {
    const absl::Status& status = parsed.status();
    FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument,
               "code %d for '%s'", static_cast<int>(status.code()),
               text.c_str());
    const std::string message(status.message());
    FUZZ_CHECK(message.rfind("schema '", 0) == 0 &&
                   message.find("at column ") != std::string::npos,
               "message '%s' quotes no schema or column", message.c_str());
    return 0;
  }
  CheckRules(*parsed, text);

  const std::string canonical = parsed->ToString();
  absl::StatusOr<sy::core::Schema> reparsed = sy::core::ParseSchema(canonical);
  FUZZ_CHECK(reparsed.ok(), "ToString of '%s' is '%s', which does not parse: %s",
             text.c_str(), canonical.c_str(),
             std::string(reparsed.status().message()).c_str());
  FUZZ_CHECK(*reparsed == *parsed,
             "'%s' prints as '%s', which parses to another schema",
             text.c_str(), canonical.c_str());
  FUZZ_CHECK(reparsed->ToString() == canonical,
             "ToString is not a fixed point: '%s' then '%s'", canonical.c_str(),
             reparsed->ToString().c_str());
  return 0;
}
