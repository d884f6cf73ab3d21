// One plugin as loaded by one runtime: its identity, what it registered, and
// a count of the live objects that keep it from being unloaded.
#ifndef SWITCHYARD_DISPATCHER_REGISTRY_PLUGIN_INSTANCE_H_
#define SWITCHYARD_DISPATCHER_REGISTRY_PLUGIN_INSTANCE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "switchyard/plugin.h"

namespace sy::core {

class SharedLibrary;  // plugin_library.h

class PluginInstance {
 public:
  PluginInstance(std::string name, std::string version,
                 std::string manifest_path, std::shared_ptr<SharedLibrary> lib)
      : name_(std::move(name)),
        version_(std::move(version)),
        manifest_path_(std::move(manifest_path)),
        library_(std::move(lib)) {}

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& manifest_path() const { return manifest_path_; }
  const std::shared_ptr<SharedLibrary>& library() const { return library_; }

  // Storage, streams and events made through this plugin's device hold a
  // reference; unload refuses while any remain.
  void RetainObject() { live_objects_.fetch_add(1, std::memory_order_relaxed); }
  void ReleaseObject() { live_objects_.fetch_sub(1, std::memory_order_release); }
  int64_t live_objects() const {
    return live_objects_.load(std::memory_order_acquire);
  }

 private:
  std::string name_;
  std::string version_;
  std::string manifest_path_;
  std::shared_ptr<SharedLibrary> library_;
  std::atomic<int64_t> live_objects_{0};
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_PLUGIN_INSTANCE_H_
