// One plugin's `load` call as the host sees it: every register_* call is
// validated and staged here, and only Commit makes it visible — all of it or
// none (a plugin whose load fails leaves no trace but its load record).
#ifndef SWITCHYARD_DISPATCHER_LOADING_REGISTRATION_SESSION_H_
#define SWITCHYARD_DISPATCHER_LOADING_REGISTRATION_SESSION_H_

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "dispatcher/loading/host_api.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/ops/schema.h"
#include "dispatcher/registry/runtime_state.h"

namespace sy::core {

class RegistrationSession : public RegistrationSink {
 public:
  RegistrationSession(RuntimeState& state, PluginInstance& plugin);

  const std::string& plugin_name() const override { return plugin_.name(); }
  sy_error_t* RegisterSchema(const sy_schema_desc_t* desc) override;
  sy_error_t* RegisterKernel(const sy_kernel_desc_t* desc) override;
  sy_error_t* RegisterDevice(const sy_device_api_t* desc) override;
  void Note(std::string text) override;
  // The lines noted so far, in order.
  std::vector<std::string> notes() const;

  // Publishes schemas, then devices (enumerating them), then kernels. On
  // failure withdraws whatever this session had published. Fills the
  // record's counts.
  absl::Status Commit(LoadRecord& record);

  // Withdraws everything `plugin` registered in `state`.
  static void Withdraw(RuntimeState& state, PluginInstance& plugin);

 private:
  mutable std::mutex notes_mu_;
  std::vector<std::string> notes_;
  struct StagedSchema {
    Schema schema;
    sy_shape_fn shape_fn;
    void* shape_data;
  };
  struct StagedKernel {
    std::unique_ptr<KernelEntry> entry;
    std::string op_name;
  };

  // The schema of `name` among core/published ops or this session's staged
  // ones; null if unknown.
  const Schema* FindSchema(const std::string& name) const;
  sy_error_t* Error(sy_status_code_t code, const std::string& message) const;

  RuntimeState& state_;
  PluginInstance& plugin_;
  std::vector<StagedSchema> schemas_;
  std::vector<sy_device_api_t> devices_;
  std::vector<StagedKernel> kernels_;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_REGISTRATION_SESSION_H_
