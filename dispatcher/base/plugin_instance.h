// One plugin as loaded by one runtime: its identity, what it registered, and
// a count of the live objects that keep it from being unloaded.
//
// It lives in base/ because every part of the core names the plugin behind
// what it holds: memory/ counts each plugin's storage, streams and events
// here (so unload can refuse while any remain), registry/ and loading/ fill
// it in, dispatch/ and the passes name it in messages. It depends on nothing
// but the ABI header; the library it keeps is only declared here.
#ifndef SWITCHYARD_DISPATCHER_BASE_PLUGIN_INSTANCE_H_
#define SWITCHYARD_DISPATCHER_BASE_PLUGIN_INSTANCE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "switchyard/plugin.h"

namespace sy::core {

class SharedLibrary;  // loading/plugin_library.h

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

  // The ABI minor the plugin answered (its table's abi_minor), set by the
  // loader before `load` runs.
  uint32_t abi_minor() const { return abi_minor_; }
  void set_abi_minor(uint32_t minor) { abi_minor_ = minor; }

  // Lines about the plugin learnt after it loaded (a kernel that broke the
  // ABI in a call, …), appended to its load record's notes. Thread-safe.
  void AddNote(std::string note) {
    std::lock_guard<std::mutex> lock(notes_mu_);
    late_notes_.push_back(std::move(note));
  }
  std::vector<std::string> late_notes() const {
    std::lock_guard<std::mutex> lock(notes_mu_);
    return late_notes_;
  }

 private:
  std::string name_;
  std::string version_;
  std::string manifest_path_;
  std::shared_ptr<SharedLibrary> library_;
  std::atomic<int64_t> live_objects_{0};
  uint32_t abi_minor_ = 0;
  mutable std::mutex notes_mu_;
  std::vector<std::string> late_notes_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_BASE_PLUGIN_INSTANCE_H_
