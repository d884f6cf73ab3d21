#include "dispatcher/loading/plugin_options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "dispatcher/base/identifier.h"

namespace sy::core {
namespace {

// Parses `text` as `type` into `value`; false when it does not parse.
bool ParseValue(sy_option_type_t type, absl::string_view text,
                PluginOptionValue& value) {
  const std::string trimmed(absl::StripAsciiWhitespace(text));
  switch (type) {
    case SY_OPTION_INT:
      return absl::SimpleAtoi(trimmed, &value.i);
    case SY_OPTION_FLOAT:
      return absl::SimpleAtod(trimmed, &value.f) && std::isfinite(value.f);
    case SY_OPTION_BOOL: {
      const std::string lower = absl::AsciiStrToLower(trimmed);
      if (lower == "1" || lower == "true" || lower == "yes" || lower == "on") {
        value.b = true;
        return true;
      }
      if (lower == "0" || lower == "false" || lower == "no" || lower == "off") {
        value.b = false;
        return true;
      }
      return false;
    }
    case SY_OPTION_STRING:
      return true;
  }
  return false;
}

std::string Describe(const std::vector<PluginOptionDecl>& decls) {
  if (decls.empty()) return "it declares none";
  std::vector<std::string> names;
  for (const PluginOptionDecl& d : decls) {
    names.push_back(absl::StrCat(d.name, " (", OptionTypeName(d.type), ")"));
  }
  return absl::StrCat("its options: ", absl::StrJoin(names, ", "));
}

}  // namespace

const char* OptionTypeName(sy_option_type_t type) {
  switch (type) {
    case SY_OPTION_INT: return "int";
    case SY_OPTION_FLOAT: return "float";
    case SY_OPTION_BOOL: return "bool";
    case SY_OPTION_STRING: return "string";
  }
  return "unknown";
}

absl::StatusOr<std::vector<PluginOptionDecl>> ReadOptionDecls(
    const sy_plugin_api_t& api) {
  std::vector<PluginOptionDecl> decls;
  if (api.abi_minor < 1 || !SY_STRUCT_HAS(&api, sy_plugin_api_t, options) ||
      api.num_options == 0) {
    return decls;
  }
  if (api.num_options < 0 || api.num_options > 256 || api.options == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the plugin table declares ", api.num_options, " options",
        api.options == nullptr ? " but `options` is NULL" : "",
        "; declare 0 to 256 options in an array"));
  }
  absl::flat_hash_set<std::string> seen;
  for (int32_t i = 0; i < api.num_options; ++i) {
    const sy_plugin_option_t& o = api.options[i];
    const std::string where = absl::StrCat("option #", i);
    if (o.struct_size < SY_STRUCT_SIZE(sy_plugin_option_t, help) ||
        o.name == nullptr || !IsLowercaseIdentifier(o.name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, " of the plugin table needs struct_size and a name that is a "
          "lowercase identifier ([a-z_][a-z0-9_]*, at most 64 bytes)"));
    }
    PluginOptionDecl decl;
    decl.name = o.name;
    if (o.type < SY_OPTION_INT || o.type > SY_OPTION_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          "option '", decl.name, "' has type ", o.type,
          "; use one of SY_OPTION_INT, _FLOAT, _BOOL, _STRING"));
    }
    decl.type = static_cast<sy_option_type_t>(o.type);
    decl.default_value = o.default_value != nullptr ? o.default_value : "";
    decl.help = o.help != nullptr ? o.help : "";
    PluginOptionValue probe;
    if (!ParseValue(decl.type, decl.default_value, probe)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "option '", decl.name, "' has the default \"", decl.default_value,
          "\", which is not a valid ", OptionTypeName(decl.type)));
    }
    if (!seen.insert(decl.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("option '", decl.name, "' is declared twice"));
    }
    decls.push_back(std::move(decl));
  }
  return decls;
}

absl::Status ParseOptionAssignments(absl::string_view text, OptionTexts& out) {
  for (absl::string_view entry : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    const size_t eq = entry.find('=');
    const size_t dot = entry.find('.');
    if (eq == absl::string_view::npos || dot == absl::string_view::npos ||
        dot == 0 || dot + 1 >= eq) {
      return absl::InvalidArgumentError(absl::StrCat(
          "plugin option '", entry, "' is not of the form plugin.option=value "
          "(e.g. cpu.num_threads=4)"));
    }
    const std::string plugin(absl::StripAsciiWhitespace(entry.substr(0, dot)));
    const std::string key(absl::StripAsciiWhitespace(entry.substr(dot + 1, eq - dot - 1)));
    out[plugin][key] = std::string(entry.substr(eq + 1));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PluginOptionValue>> ResolveOptions(
    absl::string_view plugin, const std::vector<PluginOptionDecl>& decls,
    const std::map<std::string, std::string>& manifest,
    const OptionTexts& environment, const OptionTexts& context) {
  std::vector<PluginOptionValue> values;
  for (const PluginOptionDecl& decl : decls) {
    PluginOptionValue value;
    value.decl = decl;
    value.text = decl.default_value;
    value.source = "default";
    values.push_back(std::move(value));
  }
  // Sources by the name the load record shows, and how messages say them.
  auto phrase = [](absl::string_view source) -> std::string {
    if (source == "manifest") return "the manifest";
    if (source == "context") return "the context's plugin options";
    return std::string(source);
  };
  auto apply = [&](const std::map<std::string, std::string>* given,
                   const char* source) -> absl::Status {
    if (given == nullptr) return absl::OkStatus();
    for (const auto& entry : *given) {
      // Named, not a structured binding: clang 14 (the fuzz build) cannot
      // capture those in the lambda below.
      const std::string& key = entry.first;
      const std::string& text = entry.second;
      auto it = std::find_if(values.begin(), values.end(),
                             [&](const PluginOptionValue& v) { return v.decl.name == key; });
      if (it == values.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            phrase(source), " sets option '", key, "' of plugin '", plugin,
            "', which the plugin does not declare; ", Describe(decls)));
      }
      it->text = text;
      it->source = source;
    }
    return absl::OkStatus();
  };
  auto find = [&](const OptionTexts& texts) -> const std::map<std::string, std::string>* {
    auto it = texts.find(std::string(plugin));
    return it == texts.end() ? nullptr : &it->second;
  };
  if (absl::Status s = apply(&manifest, "manifest"); !s.ok()) return s;
  if (absl::Status s = apply(find(environment), "SWITCHYARD_PLUGIN_OPTIONS"); !s.ok()) return s;
  if (absl::Status s = apply(find(context), "context"); !s.ok()) return s;
  for (PluginOptionValue& value : values) {
    if (!ParseValue(value.decl.type, value.text, value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          phrase(value.source), " sets option '", value.decl.name, "' of plugin '",
          plugin, "' to \"", value.text, "\", which is not a valid ",
          OptionTypeName(value.decl.type),
          value.decl.help.empty() ? "" : absl::StrCat(" (", value.decl.help, ")")));
    }
  }
  return values;
}

}  // namespace sy::core
