#include "run_args.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace sy::cli {
namespace {

sy::Status Invalid(std::string message) {
  return sy::Status(SY_STATUS_INVALID_ARGUMENT, std::move(message));
}

sy::Result<std::vector<int64_t>> ParseIntList(absl::string_view text,
                                              absl::string_view what) {
  std::vector<int64_t> values;
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return values;
  for (absl::string_view part : absl::StrSplit(text, absl::ByAnyChar("x,"))) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part), &value)) {
      return Invalid(absl::StrCat(
          what, " \"", text, "\": \"", part,
          "\" is not an integer; write integers separated by 'x' or ','"));
    }
    values.push_back(value);
  }
  return values;
}

sy::Result<bool> ParseBool(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  return Invalid("expected true or false");
}

// "int", "ScalarType": the kind as schema text writes it, without the "?"
// of an optional argument.
std::string KindName(const sy::OpArg& arg) {
  std::string name = arg.kind_name;
  if (!name.empty() && name.back() == '?') name.pop_back();
  return name;
}

}  // namespace

sy::Result<std::vector<int64_t>> ParseShape(std::string_view text) {
  if (text == "scalar") return std::vector<int64_t>{};
  sy::Result<std::vector<int64_t>> shape =
      ParseIntList(absl::string_view(text.data(), text.size()), "--shape");
  if (!shape.ok()) return shape.status();
  int64_t numel = 1;
  for (int64_t extent : *shape) {
    if (extent < 0) {
      return Invalid(absl::StrCat("--shape \"", std::string(text),
                                  "\": extents must be >= 0"));
    }
    if (__builtin_mul_overflow(numel, extent, &numel)) {
      return Invalid(absl::StrCat("--shape \"", std::string(text),
                                  "\": more elements than int64 can count; use smaller extents"));
    }
  }
  return shape;
}

std::vector<sy::OpArg> AttributesOf(const std::vector<sy::OpArg>& args) {
  std::vector<sy::OpArg> attrs;
  for (const sy::OpArg& arg : args) {
    if (arg.attr_index >= 0) attrs.push_back(arg);
  }
  std::sort(attrs.begin(), attrs.end(), [](const sy::OpArg& a, const sy::OpArg& b) {
    return a.attr_index < b.attr_index;
  });
  return attrs;
}

sy::Result<ParsedAttrs> ParsedAttrs::Parse(const std::string& op_name,
                                           const std::vector<sy::OpArg>& args,
                                           const std::vector<std::string>& texts) {
  const std::vector<sy::OpArg> schema = AttributesOf(args);
  const int num_attrs = static_cast<int>(schema.size());
  ParsedAttrs parsed;
  std::vector<bool> given(schema.size(), false);
  std::vector<sy::Attr> values(schema.size());
  std::vector<std::string> summary;
  for (const std::string& text : texts) {
    const size_t eq = text.find('=');
    const std::string name = text.substr(0, eq);
    int j = 0;
    while (j < num_attrs && schema[j].name != name) ++j;
    if (eq == std::string::npos || j == num_attrs) {
      std::vector<std::string> names;
      for (const sy::OpArg& arg : schema) names.push_back(arg.name);
      return Invalid(absl::StrCat(
          "--attr \"", text, "\": ", op_name,
          eq == std::string::npos ? " attributes are written name=value"
                                  : " has no attribute by that name",
          "; its attributes are: ", names.empty() ? "none" : absl::StrJoin(names, ", ")));
    }
    if (given[j]) return Invalid(absl::StrCat("--attr ", name, " is given twice"));
    given[j] = true;
    const sy::OpArg& arg = schema[j];
    const absl::string_view value = absl::string_view(text).substr(eq + 1);
    auto wrong = [&](absl::string_view expected) {
      return Invalid(absl::StrCat("--attr ", text, ": argument '", name, "' of ", op_name,
                                  " is ", KindName(arg), "; expected ", expected));
    };
    if (arg.optional && (value == "None" || value == "none")) {
      values[j] = sy::Attr::None();
      summary.push_back(text);
      continue;
    }
    switch (arg.kind) {
      case SY_ARG_INT: {
        int64_t v = 0;
        if (!absl::SimpleAtoi(value, &v)) return wrong("an integer");
        values[j] = sy::Attr(v);
        break;
      }
      case SY_ARG_FLOAT: {
        double v = 0;
        if (!absl::SimpleAtod(value, &v)) return wrong("a number");
        values[j] = sy::Attr(v);
        break;
      }
      case SY_ARG_SCALAR: {
        int64_t i = 0;
        double f = 0;
        if (absl::SimpleAtoi(value, &i)) {
          values[j] = sy::Attr(i);
        } else if (absl::SimpleAtod(value, &f)) {
          values[j] = sy::Attr(f);
        } else {
          return wrong("a number");
        }
        break;
      }
      case SY_ARG_BOOL: {
        sy::Result<bool> v = ParseBool(value);
        if (!v.ok()) return wrong("true or false");
        values[j] = sy::Attr(*v);
        break;
      }
      case SY_ARG_INT_LIST: {
        sy::Result<std::vector<int64_t>> list = ParseIntList(value, "--attr");
        if (!list.ok()) return wrong("integers separated by ','");
        parsed.lists_.push_back(*std::move(list));
        values[j] = sy::Attr(std::span<const int64_t>(parsed.lists_.back()));
        break;
      }
      case SY_ARG_STRING:
        parsed.strings_.emplace_back(value);
        values[j] = sy::Attr(parsed.strings_.back());
        break;
      case SY_ARG_DTYPE: {
        sy::Result<sy_dtype_t> dtype = sy::DTypeFromName(std::string(value));
        if (!dtype.ok()) return wrong("a dtype such as f32, f16, bf16, i64, bool");
        values[j] = sy::Attr::DType(*dtype);
        break;
      }
      case SY_ARG_TENSOR:
      case SY_ARG_TENSOR_LIST:
        return wrong("a tensor, which `run` makes from --shape");
      case SY_ARG_COMMUNICATOR:
        return wrong("a communicator of several processes, which `run` cannot "
                     "make; run collective ops from a program (docs/distributed.md)");
    }
    summary.push_back(text);
  }
  // A call takes the leading attributes; the gaps before the last one given
  // take their defaults (SY_ATTR_DEFAULT), and a required one left out is
  // refused here, where the message can say which --attr to add.
  int last = -1;
  for (int j = 0; j < num_attrs; ++j) {
    if (given[j]) {
      last = j;
    } else if (!schema[j].has_default && !schema[j].optional) {
      return Invalid(absl::StrCat(op_name, " needs argument '", schema[j].name, "' (",
                                  KindName(schema[j]), "): add --attr ", schema[j].name,
                                  "=VALUE"));
    }
  }
  for (int j = 0; j <= last; ++j) {
    parsed.attrs_.push_back(given[j] ? values[j] : sy::Attr::Default());
  }
  parsed.summary_ = absl::StrJoin(summary, ", ");
  return parsed;
}

}  // namespace sy::cli
