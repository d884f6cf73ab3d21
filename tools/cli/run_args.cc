#include "run_args.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "dispatcher/ops/dtype.h"

namespace sy::cli {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only
namespace {

absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text,
                                                  absl::string_view what) {
  std::vector<int64_t> values;
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return values;
  for (absl::string_view part : absl::StrSplit(text, absl::ByAnyChar("x,"))) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " \"", text, "\": \"", part,
          "\" is not an integer; write integers separated by 'x' or ','"));
    }
    values.push_back(value);
  }
  return values;
}

absl::StatusOr<bool> ParseBool(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  return absl::InvalidArgumentError("expected true or false");
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> ParseShape(std::string_view text) {
  if (text == "scalar") return std::vector<int64_t>{};
  absl::StatusOr<std::vector<int64_t>> shape =
      ParseIntList(absl::string_view(text.data(), text.size()), "--shape");
  if (!shape.ok()) return shape.status();
  int64_t numel = 1;
  for (int64_t extent : *shape) {
    if (extent < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--shape \"", std::string(text), "\": extents must be >= 0"));
    }
    if (__builtin_mul_overflow(numel, extent, &numel)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--shape \"", std::string(text),
          "\": more elements than int64 can count; use smaller extents"));
    }
  }
  return shape;
}

absl::StatusOr<ParsedAttrs> ParsedAttrs::Parse(const OpDef& op,
                                               const std::vector<std::string>& texts) {
  const Schema& schema = op.schema();
  ParsedAttrs parsed;
  std::vector<bool> given(schema.attr_args.size(), false);
  std::vector<Attr> values(schema.attr_args.size());
  std::vector<std::string> summary;
  for (const std::string& text : texts) {
    const size_t eq = text.find('=');
    const std::string name = text.substr(0, eq);
    int j = 0;
    while (j < op.num_attrs() && schema.args[schema.attr_args[j]].name != name) ++j;
    if (eq == std::string::npos || j == op.num_attrs()) {
      std::vector<std::string> names;
      for (int index : schema.attr_args) names.push_back(schema.args[index].name);
      return absl::InvalidArgumentError(absl::StrCat(
          "--attr \"", text, "\": ", op.full_name(),
          eq == std::string::npos ? " attributes are written name=value"
                                  : " has no attribute by that name",
          "; its attributes are: ",
          names.empty() ? "none" : absl::StrJoin(names, ", ")));
    }
    if (given[j]) {
      return absl::InvalidArgumentError(
          absl::StrCat("--attr ", name, " is given twice"));
    }
    given[j] = true;
    const SchemaArg& arg = schema.args[schema.attr_args[j]];
    const absl::string_view value = absl::string_view(text).substr(eq + 1);
    auto wrong = [&](absl::string_view expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--attr ", text, ": argument '", name, "' of ", op.full_name(),
          " is ", std::string(ArgKindName(arg.kind)), "; expected ", expected));
    };
    if (arg.optional && (value == "None" || value == "none")) {
      values[j] = Attr();
      summary.push_back(text);
      continue;
    }
    switch (arg.kind) {
      case ArgKind::kInt: {
        int64_t v = 0;
        if (!absl::SimpleAtoi(value, &v)) return wrong("an integer");
        values[j] = Attr(v);
        break;
      }
      case ArgKind::kFloat: {
        double v = 0;
        if (!absl::SimpleAtod(value, &v)) return wrong("a number");
        values[j] = Attr(v);
        break;
      }
      case ArgKind::kScalar: {
        int64_t i = 0;
        double f = 0;
        if (absl::SimpleAtoi(value, &i)) {
          values[j] = Attr(i);
        } else if (absl::SimpleAtod(value, &f)) {
          values[j] = Attr(f);
        } else {
          return wrong("a number");
        }
        break;
      }
      case ArgKind::kBool: {
        absl::StatusOr<bool> v = ParseBool(value);
        if (!v.ok()) return wrong("true or false");
        values[j] = Attr(*v);
        break;
      }
      case ArgKind::kIntList: {
        absl::StatusOr<std::vector<int64_t>> list = ParseIntList(value, "--attr");
        if (!list.ok()) return wrong("integers separated by ','");
        parsed.lists_.push_back(*std::move(list));
        values[j] = Attr(absl::MakeConstSpan(parsed.lists_.back()));
        break;
      }
      case ArgKind::kString:
        parsed.strings_.emplace_back(value);
        values[j] = Attr(parsed.strings_.back());
        break;
      case ArgKind::kDType: {
        std::optional<sy_dtype_t> dtype =
            ParseDType(std::string_view(value.data(), value.size()));
        if (!dtype) return wrong("a dtype such as f32, f16, bf16, i64, bool");
        values[j] = Attr::DType(*dtype);
        break;
      }
      case ArgKind::kTensor:
      case ArgKind::kTensorList:
        return wrong("a tensor, which `run` makes from --shape");
    }
    summary.push_back(text);
  }
  // Runtime::Call takes the leading attributes; fill the gaps before the
  // last one given with defaults, and reject missing required ones.
  int last = -1;
  for (int j = 0; j < op.num_attrs(); ++j) {
    if (given[j]) {
      last = j;
    } else if (op.attr_required(j)) {
      return absl::InvalidArgumentError(absl::StrCat(
          op.full_name(), " needs argument '",
          schema.args[schema.attr_args[j]].name, "' (",
          std::string(ArgKindName(schema.args[schema.attr_args[j]].kind)),
          "): add --attr ", schema.args[schema.attr_args[j]].name, "=VALUE"));
    }
  }
  for (int j = 0; j <= last; ++j) {
    if (!given[j]) static_cast<sy_attr_t&>(values[j]) = op.default_attr(j);
    parsed.attrs_.push_back(values[j]);
  }
  parsed.summary_ = absl::StrJoin(summary, ", ");
  return parsed;
}

}  // namespace sy::cli
