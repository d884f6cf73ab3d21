// The parsing half of schema.h: recursive descent over schema_lexer's
// tokens. Semantic rules (unique names, defaults last, default kinds) are
// checked at the token that breaks them, so the error reported is always
// the first one in reading order, with its column.
#include "dispatcher/ops/schema.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/ops/absl_compat.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/ops/schema_lexer.h"

namespace sy::core {
namespace {

using schema_internal::Token;
using schema_internal::TokenKind;

constexpr char kTypeList[] =
    "Tensor, Tensor[], int, int[], float, bool, Scalar, str, ScalarType, "
    "Communicator";

std::string TypeText(const SchemaArg& arg) {
  return absl::StrCat(AsAbsl(ArgKindName(arg.kind)), arg.optional ? "?" : "");
}

// What a default of each kind looks like, for "expected …" messages.
const char* DefaultExpectation(ArgKind kind) {
  switch (kind) {
    case ArgKind::kInt:
      return "an integer";
    case ArgKind::kIntList:
      return "a list of integers such as [1, 1]";
    case ArgKind::kFloat:
      return "a number";
    case ArgKind::kBool:
      return "True or False";
    case ArgKind::kScalar:
      return "a number";
    case ArgKind::kString:
      return "a quoted string";
    case ArgKind::kDType:
      return "a dtype name (f32, f64, f16, bf16, i32, i64, i8, u8, bool)";
    case ArgKind::kTensor:
    case ArgKind::kTensorList:
      return "None";
    case ArgKind::kCommunicator:
      return "no default (a Communicator is always passed)";
  }
  return "a value";
}

class Parser {
 public:
  explicit Parser(std::string_view text)
      : text_(text), tokens_(schema_internal::Tokenize(text)) {}

  absl::StatusOr<Schema> Parse() {
    Schema schema;
    if (absl::Status s = ParseName(schema); !s.ok()) return s;
    if (absl::Status s = ParseArgs(schema); !s.ok()) return s;
    if (!ConsumePunct("->")) return Fail(Peek(), "'->' after ')'");
    if (absl::Status s = ParseReturns(schema); !s.ok()) return s;
    if (Peek().kind != TokenKind::kEnd) {
      return Fail(Peek(), "the end of the schema");
    }
    for (int i = 0; i < static_cast<int>(schema.args.size()); ++i) {
      (schema.args[i].is_tensor() ? schema.tensor_args : schema.attr_args)
          .push_back(i);
    }
    return schema;
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  // Stops at the final kEnd token, so callers may read past the end.
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  static bool IsPunct(const Token& t, std::string_view p) {
    return t.kind == TokenKind::kPunct && t.text == p;
  }
  static bool IsIdent(const Token& t, std::string_view name) {
    return t.kind == TokenKind::kIdent && t.text == name;
  }
  bool ConsumePunct(std::string_view p) {
    if (!IsPunct(Peek(), p)) return false;
    Next();
    return true;
  }

  absl::Status ErrorAt(int column, std::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("schema '", AsAbsl(text_),
                                                   "': at column ", column,
                                                   ": ", AsAbsl(what)));
  }
  absl::Status Fail(const Token& found, std::string_view expected) const {
    std::string what = absl::StrCat("expected ", AsAbsl(expected), ", found ");
    if (found.kind == TokenKind::kEnd) {
      absl::StrAppend(&what, "the end of the schema");
    } else {
      absl::StrAppend(&what, "'", AsAbsl(found.text), "'");
      if (!found.note.empty()) absl::StrAppend(&what, " (", found.note, ")");
    }
    return ErrorAt(found.column, what);
  }

  absl::Status ParseName(Schema& schema) {
    const Token* name = &Next();
    if (name->kind != TokenKind::kIdent) return Fail(*name, "an op name");
    if (ConsumePunct("::")) {
      schema.ns = std::string(name->text);
      name = &Next();
      if (name->kind != TokenKind::kIdent) {
        return Fail(*name, "an op name after '::'");
      }
    }
    schema.name = std::string(name->text);
    if (ConsumePunct(".")) {
      const Token& overload = Next();
      if (overload.kind != TokenKind::kIdent) {
        return Fail(overload, "an overload name after '.'");
      }
      schema.overload = std::string(overload.text);
    }
    return absl::OkStatus();
  }

  absl::Status ParseArgs(Schema& schema) {
    if (!ConsumePunct("(")) return Fail(Peek(), "'(' after the op name");
    if (ConsumePunct(")")) return absl::OkStatus();
    while (true) {
      if (absl::Status s = ParseArg(schema); !s.ok()) return s;
      if (ConsumePunct(")")) return absl::OkStatus();
      if (!ConsumePunct(",")) {
        return Fail(Peek(), "',' or ')' after an argument");
      }
    }
  }

  absl::Status ParseArg(Schema& schema) {
    SchemaArg arg;
    if (absl::Status s = ParseType(arg); !s.ok()) return s;
    const Token& name = Next();
    if (name.kind != TokenKind::kIdent) {
      return Fail(name,
                  absl::StrCat("an argument name after '", TypeText(arg), "'"));
    }
    arg.name = std::string(name.text);
    for (const SchemaArg& other : schema.args) {
      if (other.name == arg.name) {
        return ErrorAt(name.column,
                       absl::StrCat("argument name '", arg.name,
                                    "' is used twice; give each argument "
                                    "its own name"));
      }
    }
    if (ConsumePunct("=")) {
      if (absl::Status s = ParseDefault(arg); !s.ok()) return s;
    } else if (!schema.args.empty() && schema.args.back().has_default) {
      return ErrorAt(
          name.column,
          absl::StrCat("argument '", arg.name, "' has no default but follows '",
                       schema.args.back().name,
                       "', which has one; put arguments with defaults last"));
    }
    schema.args.push_back(std::move(arg));
    return absl::OkStatus();
  }

  absl::Status ParseType(SchemaArg& arg) {
    const Token& t = Next();
    if (t.kind != TokenKind::kIdent) {
      return Fail(t, "an argument type (Tensor, int, float, \u2026)");
    }
    bool list_allowed = false;
    if (t.text == "Tensor") {
      arg.kind = ArgKind::kTensor;
      list_allowed = true;
    } else if (t.text == "int") {
      arg.kind = ArgKind::kInt;
      list_allowed = true;
    } else if (t.text == "float") {
      arg.kind = ArgKind::kFloat;
    } else if (t.text == "bool") {
      arg.kind = ArgKind::kBool;
    } else if (t.text == "Scalar") {
      arg.kind = ArgKind::kScalar;
    } else if (t.text == "str") {
      arg.kind = ArgKind::kString;
    } else if (t.text == "ScalarType") {
      arg.kind = ArgKind::kDType;
    } else if (t.text == "Communicator") {
      arg.kind = ArgKind::kCommunicator;
    } else {
      return Fail(t, absl::StrCat("an argument type (one of ", kTypeList, ")"));
    }
    if (list_allowed && ConsumePunct("[")) {
      if (!ConsumePunct("]")) {
        return Fail(Peek(),
                    absl::StrCat("']' to close '", AsAbsl(t.text), "['"));
      }
      arg.kind = arg.kind == ArgKind::kTensor ? ArgKind::kTensorList
                                              : ArgKind::kIntList;
    }
    arg.optional = ConsumePunct("?");
    if (arg.optional && arg.kind == ArgKind::kCommunicator) {
      return ErrorAt(t.column, "a Communicator argument cannot be optional; "
                               "collective ops always run on one");
    }
    return absl::OkStatus();
  }

  absl::Status ParseDefault(SchemaArg& arg) {
    const Token& t = Peek();
    arg.has_default = true;
    if (arg.is_tensor() && !arg.optional) {
      return ErrorAt(t.column, absl::StrCat(AsAbsl(ArgKindName(arg.kind)),
                                            " argument '", arg.name,
                                            "' has a default but is not "
                                            "optional; write '",
                                            AsAbsl(ArgKindName(arg.kind)), "? ",
                                            arg.name, "=None'"));
    }
    if (IsIdent(t, "None")) {
      if (!arg.optional) {
        return ErrorAt(t.column,
                       absl::StrCat("argument '", arg.name,
                                    "' defaults to None but is not optional; "
                                    "write '",
                                    TypeText(arg), "? ", arg.name, "=None'"));
      }
      Next();
      arg.default_value = std::monostate{};
      return absl::OkStatus();
    }
    const std::string expected =
        absl::StrCat(DefaultExpectation(arg.kind), " as the default of ",
                     TypeText(arg), " argument '", arg.name, "'");
    switch (arg.kind) {
      case ArgKind::kInt:
      case ArgKind::kScalar:
      case ArgKind::kFloat: {
        const bool take_float = arg.kind != ArgKind::kInt;
        if (t.kind == TokenKind::kInt) {
          int64_t v = 0;
          if (absl::Status s = ParseInt(t, v); !s.ok()) return s;
          if (arg.kind == ArgKind::kFloat) {
            arg.default_value = static_cast<double>(v);
          } else {
            arg.default_value = v;
          }
        } else if (t.kind == TokenKind::kFloat && take_float) {
          double v = 0;
          if (absl::Status s = ParseFloat(t, v); !s.ok()) return s;
          arg.default_value = v;
        } else {
          return Fail(t, expected);
        }
        Next();
        return absl::OkStatus();
      }
      case ArgKind::kBool:
        if (!IsIdent(t, "True") && !IsIdent(t, "False")) {
          return Fail(t, expected);
        }
        arg.default_value = t.text == "True";
        Next();
        return absl::OkStatus();
      case ArgKind::kString:
        if (t.kind != TokenKind::kString) return Fail(t, expected);
        arg.default_value = t.value;
        Next();
        return absl::OkStatus();
      case ArgKind::kDType: {
        std::optional<sy_dtype_t> dtype;
        if (t.kind == TokenKind::kIdent) dtype = ParseDType(t.text);
        if (!dtype.has_value()) return Fail(t, expected);
        arg.default_value = *dtype;
        Next();
        return absl::OkStatus();
      }
      case ArgKind::kIntList:
        if (!IsPunct(t, "[")) return Fail(t, expected);
        Next();
        return ParseIntList(arg);
      case ArgKind::kTensor:
      case ArgKind::kTensorList:
      case ArgKind::kCommunicator:
        return Fail(t, expected);
    }
    return Fail(t, expected);
  }

  absl::Status ParseIntList(SchemaArg& arg) {
    std::vector<int64_t> values;
    if (!ConsumePunct("]")) {
      while (true) {
        const Token& t = Peek();
        if (t.kind != TokenKind::kInt) {
          return Fail(
              t, absl::StrCat("an integer in the default of '", arg.name, "'"));
        }
        int64_t v = 0;
        if (absl::Status s = ParseInt(t, v); !s.ok()) return s;
        values.push_back(v);
        Next();
        if (ConsumePunct("]")) break;
        if (!ConsumePunct(",")) {
          return Fail(Peek(), absl::StrCat("',' or ']' in the default of '",
                                           arg.name, "'"));
        }
      }
    }
    arg.default_value = std::move(values);
    return absl::OkStatus();
  }

  absl::Status ParseInt(const Token& t, int64_t& out) const {
    const char* end = t.text.data() + t.text.size();
    auto [ptr, ec] = std::from_chars(t.text.data(), end, out);
    if (ec != std::errc() || ptr != end) {
      return ErrorAt(t.column, absl::StrCat("integer '", AsAbsl(t.text),
                                            "' does not fit in 64 bits"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseFloat(const Token& t, double& out) const {
    const char* end = t.text.data() + t.text.size();
    auto [ptr, ec] = std::from_chars(t.text.data(), end, out);
    if (ec != std::errc() || ptr != end) {
      return ErrorAt(t.column, absl::StrCat("number '", AsAbsl(t.text),
                                            "' is out of the range of a "
                                            "double"));
    }
    return absl::OkStatus();
  }

  absl::Status ParseReturns(Schema& schema) {
    constexpr std::string_view kExpected =
        "'Tensor' (every return is a Tensor in v1)";
    const Token& t = Next();
    if (IsIdent(t, "Tensor")) {
      schema.num_returns = 1;
      return absl::OkStatus();
    }
    if (!IsPunct(t, "(")) {
      return Fail(t,
                  "'Tensor' or '(' as the return type (every return is "
                  "a Tensor in v1)");
    }
    schema.num_returns = 0;
    while (true) {
      const Token& r = Next();
      if (!IsIdent(r, "Tensor")) return Fail(r, kExpected);
      ++schema.num_returns;
      if (ConsumePunct(")")) return absl::OkStatus();
      if (!ConsumePunct(",")) return Fail(Peek(), "',' or ')' in the returns");
    }
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Schema> ParseSchema(std::string_view text) {
  return Parser(text).Parse();
}

}  // namespace sy::core
