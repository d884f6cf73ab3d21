#include "dispatcher/plugin_security.h"

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "dispatcher/env.h"

namespace sy {
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

}  // namespace sy
