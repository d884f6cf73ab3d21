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
  return runtime;
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
  return LoadPluginFromManifest(state(), manifest_path);
}

absl::Status Runtime::UnloadPlugin(absl::string_view name) {
  // Pending device times of a trace hold the plugin's events.
  trace::Flush();
  return sy::core::UnloadPlugin(state(), name);
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
