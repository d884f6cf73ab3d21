#include "dispatcher/loading/plugin_security.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "dispatcher/loading/elf_exports.h"
#include "dispatcher/base/env.h"
#include "switchyard/plugin.h"

namespace sy::core {
namespace {

namespace fs = std::filesystem;

// The first path among the files and their folders that others may write.
// A sticky folder (like /tmp) still lets others add files but not replace
// ours; the files' own folders are checked, not their ancestors.
bool FindWorldWritable(const std::vector<std::string>& paths, std::string* path,
                       mode_t* mode) {
  for (const std::string& candidate : paths) {
    struct stat info;
    if (::stat(candidate.c_str(), &info) != 0) continue;
    const bool sticky_dir = S_ISDIR(info.st_mode) && (info.st_mode & S_ISVTX) != 0;
    if ((info.st_mode & S_IWOTH) != 0 && !sticky_dir) {
      *path = candidate;
      *mode = info.st_mode & 07777;
      return true;
    }
  }
  return false;
}

}  // namespace

absl::Status CheckPluginFilesNotWorldWritable(const std::string& manifest_path,
                                              const std::string& library_path) {
  auto folder = [](const std::string& file) {
    std::string parent = fs::path(file).parent_path().string();
    return parent.empty() ? std::string(".") : parent;
  };
  std::string path;
  mode_t mode = 0;
  if (!FindWorldWritable({folder(manifest_path), manifest_path,
                          folder(library_path), library_path},
                         &path, &mode)) {
    return absl::OkStatus();
  }
  if (GetEnvFlag("SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS")) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrFormat(
      "%s is writable by every user (mode %04o), so anyone on this machine "
      "could replace the plugin's code; make it writable by its owner only "
      "(chmod o-w '%s'), or set SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 to "
      "load it anyway",
      path, static_cast<unsigned>(mode), path));
}

absl::Status CheckOnlyEntryPointExported(const std::string& library_path) {
  absl::StatusOr<std::vector<std::string>> exports = ExportedSymbols(library_path);
  if (!exports.ok()) return absl::OkStatus();
  std::vector<std::string> extra;
  bool has_entry = false;
  for (const std::string& name : *exports) {
    if (name == SY_PLUGIN_INIT_SYMBOL) {
      has_entry = true;
    } else {
      extra.push_back(name);
    }
  }
  if (!has_entry || extra.empty()) return absl::OkStatus();
  std::sort(extra.begin(), extra.end());  // the table's order is the linker's
  constexpr size_t kShown = 5;
  const size_t shown = std::min(extra.size(), kShown);
  return absl::FailedPreconditionError(absl::StrCat(
      "library ", library_path, " exports ", extra.size(), " symbol",
      extra.size() == 1 ? "" : "s", " besides " SY_PLUGIN_INIT_SYMBOL " (",
      absl::StrJoin(extra.begin(), extra.begin() + shown, ", "),
      extra.size() > shown ? ", …" : "",
      "); a plugin must export only its entry point, or its symbols may "
      "collide with the host's and other plugins'; build it with "
      "switchyard_add_plugin (hidden visibility and a version script)"));
}

}  // namespace sy::core
