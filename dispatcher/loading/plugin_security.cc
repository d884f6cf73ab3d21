#include "dispatcher/loading/plugin_security.h"

#include <elf.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/base/env.h"
#include "switchyard/plugin.h"

namespace sy::core {

absl::Status CheckNotExposed(const PluginFile& file) {
  if (file.exposure().empty()) return absl::OkStatus();
  if (GetEnvFlag("SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS")) return absl::OkStatus();
  return absl::PermissionDeniedError(file.exposure());
}

absl::Status CheckOnlyEntryPointExported(const PluginFile& library,
                                         const ElfDynamicInfo& info) {
  std::vector<std::string> extra;
  const ElfExport* entry = nullptr;
  for (const ElfExport& symbol : info.exports) {
    if (symbol.name == SY_PLUGIN_INIT_SYMBOL) {
      entry = &symbol;
    } else {
      extra.push_back(symbol.name);
    }
  }
  if (entry == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "library ", library.path(), " does not export ", SY_PLUGIN_INIT_SYMBOL,
        "; it is not a Switchyard plugin, or was built without "
        "SY_PLUGIN_EXPORT on its entry point"));
  }
  if (entry->type != STT_FUNC) {
    return absl::FailedPreconditionError(absl::StrCat(
        "library ", library.path(), " exports ", SY_PLUGIN_INIT_SYMBOL,
        " as a symbol of ELF type ", entry->type, ", not as a function (type ",
        STT_FUNC, "); define it as the plugin's entry function with "
        "SY_PLUGIN_EXPORT"));
  }
  if (extra.empty()) return absl::OkStatus();
  std::sort(extra.begin(), extra.end());  // the table's order is the linker's
  constexpr size_t kShown = 5;
  const size_t shown = std::min(extra.size(), kShown);
  return absl::FailedPreconditionError(absl::StrCat(
      "library ", library.path(), " exports ", extra.size(), " symbol",
      extra.size() == 1 ? "" : "s", " besides " SY_PLUGIN_INIT_SYMBOL " (",
      absl::StrJoin(extra.begin(), extra.begin() + shown, ", "),
      extra.size() > shown ? ", …" : "",
      "); a plugin must export only its entry point, or its symbols may "
      "collide with the host's and other plugins'; build it with "
      "switchyard_add_plugin (hidden visibility and a version script)"));
}

}  // namespace sy::core
