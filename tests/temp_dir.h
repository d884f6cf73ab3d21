// A fresh folder under the system's temporary directory for one test (an
// autotune cache, a kernel cache), removed with everything in it when the
// object goes. Shared by the test suites that need one.
#ifndef SWITCHYARD_TESTS_TEMP_DIR_H_
#define SWITCHYARD_TESTS_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace sy::testing {

class TempDir {
 public:
  // `prefix` names the folder ("<prefix>-XXXXXX"), for finding leftovers.
  explicit TempDir(const std::string& prefix = "sy-test") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Empty if the folder could not be made.
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  // The names of the folder's entries.
  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

 private:
  std::string path_;
};

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_TEMP_DIR_H_
