// Plugin options (plugin.h, ABI 1.1): the declarations a plugin makes in its
// table, the values users give — in the manifest, SWITCHYARD_PLUGIN_OPTIONS
// and the context's options — and their resolution into one value per
// declared option, checked before the plugin's `load` runs.
//
// Precedence, weakest first: the declared default, the manifest's
// "options" object, SWITCHYARD_PLUGIN_OPTIONS ("cpu.num_threads=4,
// onednn.min_elements=4096"; read with secure_getenv), the context's
// options (code states intent most precisely, so it wins).
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_OPTIONS_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "switchyard/plugin.h"

namespace sy::core {

struct PluginOptionDecl {
  std::string name;
  sy_option_type_t type = SY_OPTION_STRING;
  std::string default_value;
  std::string help;
};

// One option's value for one load.
struct PluginOptionValue {
  PluginOptionDecl decl;
  std::string text;    // the value as given (or the default's text)
  std::string source;  // "default", "manifest", "SWITCHYARD_PLUGIN_OPTIONS", "context"
  int64_t i = 0;
  double f = 0;
  bool b = false;
};

// What users set for plugins, by source: plugin name → option → text.
using OptionTexts = std::map<std::string, std::map<std::string, std::string>>;

// Copies and checks a plugin table's declarations (names are identifiers
// and unique, types known, defaults parse). Empty for a 1.0 plugin.
absl::StatusOr<std::vector<PluginOptionDecl>> ReadOptionDecls(
    const sy_plugin_api_t& api);

// Parses "plugin.key=value,plugin.key=value" (SWITCHYARD_PLUGIN_OPTIONS, or
// one entry of the C API's list) into `out`. InvalidArgument names the
// malformed entry.
absl::Status ParseOptionAssignments(absl::string_view text, OptionTexts& out);

// The value of every declared option of `plugin` for one load, from the
// sources in precedence order. InvalidArgument when a source names an
// option the plugin does not declare (listing those it does) or a value
// that does not parse as the declared type.
absl::StatusOr<std::vector<PluginOptionValue>> ResolveOptions(
    absl::string_view plugin, const std::vector<PluginOptionDecl>& decls,
    const std::map<std::string, std::string>& manifest,
    const OptionTexts& environment, const OptionTexts& context);

// "int", "float", "bool", "string".
const char* OptionTypeName(sy_option_type_t type);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_OPTIONS_H_
