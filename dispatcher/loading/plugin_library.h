// A plugin's shared library, opened once per process and shared by every
// runtime that loads it (see sy_host_api_t's comment in plugin.h).
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LIBRARY_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "boost/dll/shared_library.hpp"
#include "dispatcher/loading/plugin_options.h"
#include "dispatcher/registry/load_record.h"
#include "switchyard/plugin.h"

namespace sy::core {

// The plugin table after version negotiation, copied out of the plugin.
struct PluginTable {
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::string name;
  std::string version;
  sy_error_t* (*load)(const sy_host_api_t*, sy_host_context_t*) = nullptr;
  void (*unload)(void) = nullptr;
  uint32_t flags = 0;  // SY_PLUGIN_FLAG_* (1.1)
  std::vector<PluginOptionDecl> options;  // declared options (1.1)
};

class SharedLibrary {
 public:
  // Opens `path` with RTLD_LOCAL | RTLD_NOW (or returns the copy already
  // open in this process), runs sy_plugin_init on first open, and checks
  // the table it returns: struct size, ABI major, minor ≤ the host's, name
  // and load slot present. On failure `*stage` says which step failed and
  // the status says exactly why.
  static absl::StatusOr<std::shared_ptr<SharedLibrary>> Open(
      const std::string& path, LoadStage* stage);

  // Calls the plugin's unload slot (if any), then closes the library.
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  const std::string& path() const { return path_; }
  const PluginTable& table() const { return table_; }

 private:
  SharedLibrary(std::string path, boost::dll::shared_library library,
                PluginTable table)
      : path_(std::move(path)), library_(std::move(library)),
        table_(std::move(table)) {}

  std::string path_;
  boost::dll::shared_library library_;
  PluginTable table_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LIBRARY_H_
