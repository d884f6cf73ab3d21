#include "absl/strings/string_view.h"
#include "dispatcher/runtime/runtime.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatcher/dispatch/decompositions/core_decompositions.h"
#include "dispatcher/base/env.h"
#include "dispatcher/base/log.h"
#include "dispatcher/ops/dtype.h"
#include "dispatcher/dispatch/view_ops.h"
#include "dispatcher/trace/trace.h"

namespace sy::core {
Runtime::Runtime(std::unique_ptr<RuntimeState> state)
    : Dispatcher(*state), owned_state_(std::move(state)) {}

Runtime::~Runtime() {
  trace::Flush();  // pending device times hold events of this runtime's devices
  // No call may reach the tuner once it starts going away.
  if (tuner_ != nullptr) {
    state().tuning.store(nullptr, std::memory_order_release);
    state().kernels.SetTuningActive(false);
    tuner_.reset();
  }
  state().constants.Clear();  // the core's own tensors are not the user's
  int64_t live = 0;
  {
    std::lock_guard<std::mutex> lock(state().plugins_mu);
    for (const auto& plugin : state().plugins) live += plugin->live_objects();
  }
  if (live > 0) {
    Log(LogLevel::kWarning,
        absl::StrCat("runtime destroyed while ", live,
                     " tensor storage block(s) are alive; leaking the runtime's "
                     "devices and plugins so those tensors stay valid. Release "
                     "tensors before destroying the runtime."));
    (void)owned_state_.release();
  }
}

absl::StatusOr<std::unique_ptr<Runtime>> Runtime::Create(RuntimeOptions options) {
  trace::StartFromEnvironment();
  std::unique_ptr<Runtime> runtime(new Runtime(std::make_unique<RuntimeState>()));
  RuntimeState& state = runtime->state();
  state.cpu_fallback = options.cpu_fallback.has_value()
                           ? *options.cpu_fallback
                           : GetEnvFlag("SWITCHYARD_CPU_FALLBACK");
  absl::Status status = state.ops.AddCoreOps();
  if (!status.ok()) return status;
  InstallViewOps(state.ops);
  InstallCoreDecompositions(state.ops);
  status = LoadPlugins(state, options.loader);
  if (!status.ok()) return status;
  if (options.tuner_factory) runtime->StartTuner(options);
  return runtime;
}

void Runtime::StartTuner(const RuntimeOptions& options) {
  AutotuneMode mode = AutotuneMode::kCached;
  if (options.autotune.has_value()) {
    mode = *options.autotune;
  } else if (std::optional<std::string> env = GetEnv("SWITCHYARD_AUTOTUNE")) {
    if (std::optional<AutotuneMode> parsed = ParseAutotuneMode(*env)) {
      mode = *parsed;
    } else {
      Log(LogLevel::kWarning,
          absl::StrCat("SWITCHYARD_AUTOTUNE='", *env, "' is not a mode; "
                       "using 'cached'. Set it to off, cached or on"));
    }
  }
  absl::StatusOr<std::unique_ptr<RuntimeTuner>> tuner =
      options.tuner_factory(*this);
  if (!tuner.ok() || *tuner == nullptr) {
    Log(LogLevel::kWarning,
        absl::StrCat("the autotuner did not start (",
                     tuner.ok() ? "its factory returned none"
                                : std::string(tuner.status().message()),
                     "); calls go by the kernels' static order"));
    return;
  }
  tuner_ = *std::move(tuner);
  // SetAutotuneMode logs nothing itself: the tuner has said what went wrong.
  (void)SetAutotuneMode(mode);
}

absl::Status Runtime::SetAutotuneMode(AutotuneMode mode) {
  if (tuner_ == nullptr) {
    return absl::FailedPreconditionError(
        "this runtime has no autotuner (it was created without a tuner "
        "factory); create it through the C API or pass "
        "autotune::MakeTunerFactory() in RuntimeOptions");
  }
  std::lock_guard<std::mutex> lock(tuner_mu_);
  // Out of the call path first, then change the verdicts, then back in:
  // a call never meets a hook whose mode is half switched.
  state().tuning.store(nullptr, std::memory_order_release);
  state().kernels.SetTuningActive(false);
  absl::Status status = tuner_->SetMode(mode);
  if (mode == AutotuneMode::kOn) {
    state().tuning.store(tuner_.get(), std::memory_order_release);
    state().kernels.SetTuningActive(true);
  }
  return status;
}

AutotuneMode Runtime::autotune_mode() const {
  return tuner_ != nullptr ? tuner_->mode() : AutotuneMode::kOff;
}

absl::Status Runtime::PinKernel(absl::string_view op, absl::string_view device_type,
                                absl::string_view kernel) {
  absl::StatusOr<OpHandle> handle = FindOp(op);
  if (!handle.ok()) return handle.status();
  return state().kernels.Pin(handle->def(), device_type, kernel);
}

absl::Status Runtime::UnpinKernel(absl::string_view op,
                                  absl::string_view device_type) {
  absl::StatusOr<OpHandle> handle = FindOp(op);
  if (!handle.ok()) return handle.status();
  state().kernels.Unpin(handle->def(), device_type);
  return absl::OkStatus();
}

absl::Status Runtime::LoadPlugin(const std::string& manifest_path) {
  absl::Status status = LoadPluginFromManifest(state(), manifest_path);
  if (status.ok() && tuner_ != nullptr) tuner_->OnPluginsChanged();
  return status;
}

absl::Status Runtime::UnloadPlugin(absl::string_view name) {
  // Pending device times of a trace hold the plugin's events.
  trace::Flush();
  // Verdicts that named the plugin's kernels no longer apply.
  absl::Status status = sy::core::UnloadPlugin(state(), name);
  if (tuner_ != nullptr) tuner_->OnPluginsChanged();
  return status;
}

std::vector<LoadRecord> Runtime::LoadRecords() const {
  std::lock_guard<std::mutex> lock(state().plugins_mu);
  std::vector<LoadRecord> records = state().records;
  // What loaded plugins learnt after their load (PluginInstance::AddNote).
  for (const auto& plugin : state().plugins) {
    std::vector<std::string> late = plugin->late_notes();
    if (late.empty()) continue;
    for (auto it = records.rbegin(); it != records.rend(); ++it) {
      if (it->name == plugin->name() && it->stage == LoadStage::kDone) {
        it->notes.insert(it->notes.end(), late.begin(), late.end());
        break;
      }
    }
  }
  return records;
}

}  // namespace sy::core
