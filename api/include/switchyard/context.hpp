// Switchyard C++ — sy::Context: contexts, plugin loading, load records
// and autotuning (over switchyard/context.h and switchyard/autotune.h).
//
// Part of the C++ layer: switchyard/switchyard.hpp includes it, and what
// that header says at its top (C++20, nothing throws, Result::value(),
// ownership, thread-safety) holds here too. Compiles on its own, but
// programs include the umbrella, switchyard/switchyard.hpp.
#ifndef SWITCHYARD_CONTEXT_HPP_
#define SWITCHYARD_CONTEXT_HPP_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "switchyard/autotune.h"
#include "switchyard/base.hpp"
#include "switchyard/context.h"
#include "switchyard/device.hpp"
#include "switchyard/op.hpp"
#include "switchyard/tensor.hpp"

namespace sy {

// ===== Contexts ============================================================

// sy_context_options_t with owned strings. Defaults as sy_context_options_init.
struct ContextOptions {
  struct Refusal {
    std::string manifest_path, reason;
  };
  std::vector<std::string> plugin_paths;      // searched first
  std::vector<std::string> plugin_manifests;  // loaded by name (must load)
  std::vector<std::string> allow, deny;
  std::vector<std::string> plugin_options;    // "plugin.option=value"
  std::vector<Refusal> refused;               // manifests not to load
  bool use_environment = true;
  bool use_default_path = true;
  std::optional<bool> cpu_fallback;           // unset: SWITCHYARD_CPU_FALLBACK
  // Before each step of a plugin's load (sy_context_options_t.on_load_stage).
  std::function<void(const char* stage)> on_load_stage;
};

namespace detail {
// The C struct over a ContextOptions; the C strings point into `options`.
class CContextOptions {
 public:
  explicit CContextOptions(const ContextOptions& options) {
    sy_context_options_init(&c_);
    Fill(options.plugin_paths, paths_, &c_.plugin_paths, &c_.num_plugin_paths);
    Fill(options.plugin_manifests, manifests_, &c_.plugin_manifests,
         &c_.num_plugin_manifests);
    Fill(options.allow, allow_, &c_.allow, &c_.num_allow);
    Fill(options.deny, deny_, &c_.deny, &c_.num_deny);
    Fill(options.plugin_options, plugin_options_, &c_.plugin_options,
         &c_.num_plugin_options);
    for (const ContextOptions::Refusal& r : options.refused) {
      sy_plugin_refusal_t refusal;
      refusal.struct_size = sizeof refusal;
      refusal.extension = nullptr;
      refusal.manifest_path = r.manifest_path.c_str();
      refusal.reason = r.reason.c_str();
      refused_.push_back(refusal);
    }
    c_.refused = refused_.data();
    c_.num_refused = static_cast<int32_t>(refused_.size());
    c_.use_environment = options.use_environment ? 1 : 0;
    c_.use_default_path = options.use_default_path ? 1 : 0;
    c_.cpu_fallback = options.cpu_fallback.has_value() ? (*options.cpu_fallback ? 1 : 0) : -1;
    if (options.on_load_stage) {
      on_load_stage_ = &options.on_load_stage;
      c_.on_load_stage = [](void* user, const char* stage) {
        (*static_cast<const std::function<void(const char*)>*>(user))(stage);
      };
      c_.on_load_stage_user_data = const_cast<std::function<void(const char*)>*>(on_load_stage_);
    }
  }
  const sy_context_options_t* get() const { return &c_; }

 private:
  static void Fill(const std::vector<std::string>& from, std::vector<const char*>& to,
                   const char* const** field, int32_t* count) {
    for (const std::string& s : from) to.push_back(s.c_str());
    *field = to.data();
    *count = static_cast<int32_t>(to.size());
  }
  sy_context_options_t c_;
  std::vector<const char*> paths_, manifests_, allow_, deny_, plugin_options_;
  std::vector<sy_plugin_refusal_t> refused_;
  const std::function<void(const char*)>* on_load_stage_ = nullptr;
};
}  // namespace detail

struct PluginOption {
  std::string name, type, value, source, help;
};

// One plugin load attempt (sy_plugin_record_t) with owned strings.
struct LoadRecord {
  std::string name, manifest_path, library_path;
  sy_load_outcome_t outcome = SY_LOAD_FAILED;
  bool requested = false;
  std::string stage, reason, description, plugin_version;
  uint32_t host_abi_major = 0, host_abi_minor = 0;
  uint32_t plugin_abi_major = 0, plugin_abi_minor = 0;
  int32_t num_devices = 0, num_schemas = 0, num_kernels = 0;
  double load_ms = 0;
  std::vector<PluginOption> options;
  std::vector<std::string> notes;

  bool loaded() const {
    return outcome == SY_LOAD_LOADED || outcome == SY_LOAD_LOADED_NO_DEVICES;
  }
  // "loaded", "loaded, no devices", "failed", "skipped".
  std::string outcome_name() const {
    switch (outcome) {
      case SY_LOAD_LOADED: return "loaded";
      case SY_LOAD_LOADED_NO_DEVICES: return "loaded, no devices";
      case SY_LOAD_FAILED: return "failed";
      case SY_LOAD_SKIPPED: return "skipped";
    }
    return "unknown";
  }
};

// The manifests a context with `options` would try, without loading them.
inline Result<std::vector<std::string>> DiscoverPlugins(const ContextOptions& options = {}) {
  detail::CContextOptions c(options);
  const char* const* paths = nullptr;
  int32_t count = 0;
  if (sy_status_code_t code = sy_plugin_discover(c.get(), &paths, &count);
      code != SY_STATUS_OK) {
    return Status::FromCode(code);
  }
  return std::vector<std::string>(paths, paths + count);
}

class Context {
 public:
  Context() = default;  // none; Create makes one
  static Result<Context> Create(const ContextOptions& options = {}) {
    detail::CContextOptions c(options);
    sy_context_t context = nullptr;
    if (sy_status_code_t code = sy_context_create(c.get(), &context); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Context(context);
  }
  Context(Context&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Context& operator=(Context&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context() { reset(); }

  // Destroys the context now: every handle of it becomes stale.
  void reset() {
    if (handle_ != nullptr) sy_context_destroy(std::exchange(handle_, nullptr));
  }
  sy_context_t get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }

  // ---- Plugins ----
  Status LoadPlugin(const std::string& manifest_path) const {
    return Status::FromCode(sy_context_load_plugin(handle_, manifest_path.c_str()));
  }
  Status UnloadPlugin(const std::string& name) const {
    return Status::FromCode(sy_context_unload_plugin(handle_, name.c_str()));
  }
  Result<std::vector<LoadRecord>> load_records() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_context_plugin_record_count(handle_, &count);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<LoadRecord> out;
    for (int32_t i = 0; i < count; ++i) {
      sy_plugin_record_t c{};
      c.struct_size = sizeof c;
      if (sy_status_code_t code = sy_context_plugin_record(handle_, i, &c);
          code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      LoadRecord r;
      r.name = c.name;
      r.manifest_path = c.manifest_path;
      r.library_path = c.library_path;
      r.outcome = static_cast<sy_load_outcome_t>(c.outcome);
      r.requested = c.requested != 0;
      r.stage = c.stage;
      r.reason = c.reason;
      r.description = c.description;
      r.plugin_version = c.plugin_version;
      r.host_abi_major = c.host_abi_major;
      r.host_abi_minor = c.host_abi_minor;
      r.plugin_abi_major = c.plugin_abi_major;
      r.plugin_abi_minor = c.plugin_abi_minor;
      r.num_devices = c.num_devices;
      r.num_schemas = c.num_schemas;
      r.num_kernels = c.num_kernels;
      r.load_ms = c.load_ms;
      for (int32_t k = 0; k < c.num_options; ++k) {
        sy_plugin_option_info_t o{};
        o.struct_size = sizeof o;
        if (sy_status_code_t code = sy_context_plugin_record_option(handle_, i, k, &o);
            code != SY_STATUS_OK) {
          return Status::FromCode(code);
        }
        r.options.push_back({o.name, o.type, o.value, o.source, o.help});
      }
      for (int32_t k = 0; k < c.num_notes; ++k) {
        const char* note = nullptr;
        if (sy_status_code_t code = sy_context_plugin_record_note(handle_, i, k, &note);
            code != SY_STATUS_OK) {
          return Status::FromCode(code);
        }
        r.notes.emplace_back(note);
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  // Everything `switchyard info --json` prints.
  Result<std::string> info_json() const {
    const char* json = nullptr;
    if (sy_status_code_t code = sy_context_info_json(handle_, &json); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  Status synchronize() const { return Status::FromCode(sy_context_synchronize(handle_)); }

  // ---- Autotuning (docs/autotune.md) ----
  // "off", "cached" or "on".
  Status set_autotune(const std::string& mode) const {
    return Status::FromCode(sy_context_set_autotune(handle_, mode.c_str()));
  }
  Result<std::string> autotune() const {
    const char* mode = nullptr;
    if (sy_status_code_t code = sy_context_autotune(handle_, &mode); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(mode);
  }
  // Called after each case: (done, total, the case's row as JSON).
  using TuneProgress = std::function<void(int32_t, int32_t, const std::string&)>;
  // Runs a case file's cases ({"cases": […]}, docs/autotune.md); the rows
  // as JSON (sy_context_tune_cases).
  Result<std::string> tune_cases(const std::string& cases_json, bool force = false,
                                 const TuneProgress& progress = {}) const {
    const char* json = nullptr;
    const TuneProgress* user = progress ? &progress : nullptr;
    sy_tune_progress_fn forward = [](void* user_data, int32_t done, int32_t total,
                                     const char* row) {
      (*static_cast<const TuneProgress*>(user_data))(done, total, row);
    };
    if (sy_status_code_t code = sy_context_tune_cases(
            handle_, cases_json.c_str(), force ? SY_TUNE_FORCE : 0,
            user != nullptr ? forward : nullptr, const_cast<TuneProgress*>(user), &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  // Writes this machine's verdicts (every device's with `all_devices`) to
  // `path`; how many.
  Result<int64_t> autotune_export(const std::string& path, bool all_devices = false) const {
    int64_t count = 0;
    if (sy_status_code_t code =
            sy_context_autotune_export(handle_, path.c_str(), all_devices ? 1 : 0, &count);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return count;
  }
  // Imports an export; the record as JSON.
  Result<std::string> autotune_import(const std::string& path) const {
    const char* json = nullptr;
    if (sy_status_code_t code = sy_context_autotune_import(handle_, path.c_str(), &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }
  // What the cache holds, as JSON (`switchyard info --autotune`).
  Result<std::string> autotune_info_json() const {
    const char* json = nullptr;
    if (sy_status_code_t code = sy_context_autotune_info_json(handle_, &json);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return std::string(json);
  }

  // ---- Devices and ops ----
  Result<std::vector<Device>> devices() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_device_count(handle_, &count); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<Device> out;
    for (int32_t i = 0; i < count; ++i) {
      sy_device_handle_t d = nullptr;
      if (sy_status_code_t code = sy_device_get(handle_, i, &d); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      out.emplace_back(d);
    }
    return out;
  }
  // "cpu", "cpu:0", "cuda:1".
  Result<Device> device(const std::string& spec) const {
    sy_device_handle_t d = nullptr;
    if (sy_status_code_t code = sy_device_find(handle_, spec.c_str(), &d);
        code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Device(d);
  }
  // "add.Tensor" or "add" (its first overload).
  Result<Op> op(const std::string& name) const {
    sy_op_t o = nullptr;
    if (sy_status_code_t code = sy_op_find(handle_, name.c_str(), &o); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    return Op(o);
  }
  Result<std::vector<Op>> ops() const {
    int32_t count = 0;
    if (sy_status_code_t code = sy_op_count(handle_, &count); code != SY_STATUS_OK) {
      return Status::FromCode(code);
    }
    std::vector<Op> out;
    for (int32_t i = 0; i < count; ++i) {
      sy_op_t o = nullptr;
      if (sy_status_code_t code = sy_op_get(handle_, i, &o); code != SY_STATUS_OK) {
        return Status::FromCode(code);
      }
      out.emplace_back(o);
    }
    return out;
  }

 private:
  explicit Context(sy_context_t handle) : handle_(handle) {}
  sy_context_t handle_ = nullptr;
};

}  // namespace sy

#endif  // SWITCHYARD_CONTEXT_HPP_
