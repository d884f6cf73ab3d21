// sy::core::Runtime — one runtime: its registries (ops, kernels, devices,
// plugins), the Dispatcher that runs calls over them (dispatch/dispatcher.h,
// whose methods Runtime inherits), and what creates and changes those
// registries: plugin loading and unloading, pins, introspection. The C API
// (api/) wraps it; applications use the C API or switchyard.hpp.
//
//   auto runtime = sy::core::Runtime::Create().value();
//   sy::core::Device* cpu = runtime->GetDevice("cpu").value();
//   sy::core::Tensor a = runtime->FromHost(*cpu, SY_DTYPE_F32, {2, 3}, data).value();
//   sy::core::OpHandle add = runtime->FindOp("add").value();   // once
//   std::vector<sy::core::Tensor> out = runtime->Call(add, {a, a}).value();
//
// Thread-safety: every method may be called from any thread concurrently,
// including plugin loading and kernel pinning while calls run.
// Errors: absl::Status with a message that says what was wrong, where (op,
// argument, device, plugin) and what to do. A failed call changes nothing.
#ifndef SWITCHYARD_DISPATCHER_RUNTIME_RUNTIME_H_
#define SWITCHYARD_DISPATCHER_RUNTIME_RUNTIME_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dispatcher/dispatch/attr.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/dispatch/tuning.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/loading/plugin_loader.h"
#include "dispatcher/registry/runtime_state.h"
#include "dispatcher/memory/tensor.h"
#include "nlohmann/json_fwd.hpp"

namespace sy::core {

struct RuntimeOptions {
  LoaderOptions loader;
  // Run ops that have no kernel on the inputs' device on cpu, with copies.
  // Default: SWITCHYARD_CPU_FALLBACK=1 in the environment.
  std::optional<bool> cpu_fallback;
  // What the runtime's tuner does (dispatch/tuning.h). Default:
  // SWITCHYARD_AUTOTUNE (off|cached|on; anything else is a warning and
  // counts as unset), else kCached.
  std::optional<AutotuneMode> autotune;
  // Makes the runtime's tuner after the plugins load. The dispatcher cannot
  // name the autotuner (it sits above), so the layer that can passes it:
  // libswitchyard passes autotune::MakeTunerFactory(). Without a factory
  // there is no tuner: calls go by the static order whatever the mode, and
  // SetAutotuneMode is an error. A factory that fails leaves the runtime
  // without a tuner, with a warning; Create still succeeds.
  TunerFactory tuner_factory;
};

class Runtime : public Dispatcher {
 public:
  // Registers core op set v1 and its decompositions, then discovers and
  // loads plugins (plugin_loader.h). Fails if a plugin the user asked for
  // by name did not load; other plugin failures are only recorded.
  static absl::StatusOr<std::unique_ptr<Runtime>> Create(
      RuntimeOptions options = {});
  // Tensors must be released before the runtime; if some are still alive,
  // their devices are leaked (with a warning) instead of freed under them.
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // Forces a kernel ("plugin::name" or "name") for an op on a device type.
  absl::Status PinKernel(absl::string_view op, absl::string_view device_type,
                         absl::string_view kernel);
  absl::Status UnpinKernel(absl::string_view op, absl::string_view device_type);

  // ---- Autotuning (docs/autotune.md) ----------------------------------------
  // Switches this runtime's tuner to `mode` (see AutotuneMode): kOn installs
  // it as the dispatch hook and makes calls of untuned buckets reach it;
  // kCached and kOff take it out again (kOff also drops every verdict).
  // FailedPrecondition when the runtime has no tuner. A cache error is
  // returned, but the mode is switched regardless.
  absl::Status SetAutotuneMode(AutotuneMode mode);
  // The current mode; kOff when there is no tuner.
  AutotuneMode autotune_mode() const;
  // The tuner, or null. Owned by the runtime; lives as long as it does.
  RuntimeTuner* tuner() const { return tuner_.get(); }

  // ---- Plugins -------------------------------------------------------------
  absl::Status LoadPlugin(const std::string& manifest_path);
  absl::Status UnloadPlugin(absl::string_view name);
  std::vector<LoadRecord> LoadRecords() const;

  // ---- Introspection -------------------------------------------------------
  // {"version", "abi", "plugins": [load records], "devices": […],
  //  "ops": [{"name", "schema", "kernels": […]}]}
  nlohmann::json Info() const;

 private:
  explicit Runtime(std::unique_ptr<RuntimeState> state);
  // Makes the tuner with options.tuner_factory and switches it to the mode.
  void StartTuner(const RuntimeOptions& options);

  // What the Dispatcher base works on; declared after it but handed to it
  // before it is moved here (see the constructor).
  std::unique_ptr<RuntimeState> owned_state_;
  // Declared after the state, so destroyed before it: the tuner reads the
  // registries until its last moment.
  std::unique_ptr<RuntimeTuner> tuner_;
  mutable std::mutex tuner_mu_;  // serializes mode switches
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_RUNTIME_RUNTIME_H_
