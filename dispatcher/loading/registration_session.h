// One plugin's `load` call as the host sees it: every register_* call is
// validated and staged here, and only Commit makes it visible — all of it or
// none (a plugin whose load fails leaves no trace but its load record).
//
// Registration is linear in what a plugin registers (hash lookups for
// duplicates and staged schemas), and bounded: names, schema text, variant
// configs and the numbers of kernels, schemas, variants and device types
// have limits (kLimits below); going over one fails the load with a record
// that names the limit.
#ifndef SWITCHYARD_DISPATCHER_LOADING_REGISTRATION_SESSION_H_
#define SWITCHYARD_DISPATCHER_LOADING_REGISTRATION_SESSION_H_

#include <memory>
#include <tuple>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "dispatcher/loading/host_api.h"
#include "dispatcher/loading/plugin_options.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/ops/shape_context.h"
#include "dispatcher/registry/runtime_state.h"

namespace sy::core {

// What one plugin may register.
struct RegistrationLimits {
  size_t max_name_bytes = 256;          // kernel, variant, op names
  size_t max_schema_bytes = 64 * 1024;  // one schema's text
  size_t max_config_bytes = 64 * 1024;  // one variant's config
  size_t max_kernels = 1'000'000;
  size_t max_schemas = 100'000;
  size_t max_variants = 1024;           // per kernel
  size_t max_device_types = 64;
};
inline constexpr RegistrationLimits kLimits{};

class RegistrationSession : public RegistrationSink {
 public:
  RegistrationSession(RuntimeState& state, PluginInstance& plugin);

  const std::string& plugin_name() const override { return plugin_.name(); }
  sy_error_t* RegisterSchema(const sy_schema_desc_t* desc) override;
  sy_error_t* RegisterKernel(const sy_kernel_desc_t* desc) override;
  sy_error_t* RegisterDevice(const sy_device_api_t* desc) override;
  sy_error_t* GetOption(const char* name, sy_option_value_t* out) override;
  // The plugin's options for this load (plugin_options.h), before `load`.
  void SetOptions(std::vector<PluginOptionValue> options) {
    options_ = std::move(options);
  }
  void Note(std::string text) override;
  // The lines noted so far, in order.
  std::vector<std::string> notes() const;

  // Publishes schemas, then devices (enumerating them), then kernels. On
  // failure withdraws whatever this session had published. Fills the
  // record's counts.
  absl::Status Commit(LoadRecord& record);

  // After Commit: the plugin provides device types, and none has a device.
  bool provides_no_devices() const {
    return !devices_.empty() && committed_devices_ == 0;
  }

  // Withdraws everything `plugin` registered in `state`.
  static void Withdraw(RuntimeState& state, PluginInstance& plugin);

 private:
  mutable std::mutex notes_mu_;
  std::vector<std::string> notes_;
  struct StagedSchema {
    Schema schema;
    sy_shape_fn shape_fn;
    void* shape_data;
    OutputLayout output_layout;  // sy_schema_desc_t.output_layout (1.4)
  };
  struct StagedKernel {
    std::unique_ptr<KernelEntry> entry;
    std::string op_name;
  };

  // The schema of `name` among core/published ops or this session's staged
  // ones; null if unknown.
  const Schema* FindSchema(const std::string& name) const;
  // Identity of a staged kernel, for duplicates: op, name, device, dtypes.
  using KernelIdentity =
      std::tuple<std::string, std::string, std::string, std::vector<sy_dtype_t>>;
  sy_error_t* Error(sy_status_code_t code, const std::string& message) const;

  RuntimeState& state_;
  PluginInstance& plugin_;
  std::vector<StagedSchema> schemas_;
  // Staged schemas by full and by base name (index into schemas_).
  absl::flat_hash_map<std::string, size_t> schema_index_;
  std::vector<sy_device_api_t> devices_;
  std::vector<StagedKernel> kernels_;
  absl::flat_hash_set<KernelIdentity> kernel_identities_;
  int committed_devices_ = 0;
  std::vector<PluginOptionValue> options_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_REGISTRATION_SESSION_H_
