// sy_context_*: creating and destroying contexts, loading plugins, the load
// report, introspection and context-wide synchronization.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/status.h"
#include "nlohmann/json.hpp"

namespace sy::capi {
namespace {

absl::StatusOr<std::vector<std::string>> Strings(const char* const* array,
                                                 int32_t count, const char* what) {
  if (absl::Status s = CheckArray(array, count, what); !s.ok()) return s;
  std::vector<std::string> out;
  for (int32_t i = 0; i < count; ++i) {
    if (array[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(what, "[", i, "] is NULL"));
    }
    out.emplace_back(array[i]);
  }
  return out;
}

absl::Status Create(const sy_context_options_t* options, sy_context_t* out_context) {
  if (absl::Status s = CheckNotNull(out_context, "out_context"); !s.ok()) return s;
  sy_context_options_t defaults;
  sy_context_options_init(&defaults);
  if (options == nullptr) options = &defaults;
  if (absl::Status s = CheckStructSize(options->struct_size,
                                       SY_STRUCT_SIZE(sy_context_options_t, cpu_fallback),
                                       "options", "sy_context_options_t");
      !s.ok()) {
    return s;
  }
  RuntimeOptions runtime_options;
  LoaderOptions& loader = runtime_options.loader;
  absl::StatusOr<std::vector<std::string>> paths =
      Strings(options->plugin_paths, options->num_plugin_paths, "options->plugin_paths");
  if (!paths.ok()) return paths.status();
  absl::StatusOr<std::vector<std::string>> manifests = Strings(
      options->plugin_manifests, options->num_plugin_manifests,
      "options->plugin_manifests");
  if (!manifests.ok()) return manifests.status();
  absl::StatusOr<std::vector<std::string>> allow =
      Strings(options->allow, options->num_allow, "options->allow");
  if (!allow.ok()) return allow.status();
  absl::StatusOr<std::vector<std::string>> deny =
      Strings(options->deny, options->num_deny, "options->deny");
  if (!deny.ok()) return deny.status();
  if (options->cpu_fallback < -1 || options->cpu_fallback > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "options->cpu_fallback is ", options->cpu_fallback,
        "; use 1 (on), 0 (off) or -1 (SWITCHYARD_CPU_FALLBACK decides)"));
  }
  loader.search_paths = *std::move(paths);
  loader.allow = *std::move(allow);
  loader.deny = *std::move(deny);
  loader.use_environment = options->use_environment != 0;
  loader.use_default_path = options->use_default_path != 0;
  if (options->cpu_fallback >= 0) runtime_options.cpu_fallback = options->cpu_fallback == 1;

  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(runtime_options);
  if (!runtime.ok()) return runtime.status();
  for (const std::string& manifest : *manifests) {
    if (absl::Status s = (*runtime)->LoadPlugin(manifest); !s.ok()) return s;
  }
  auto context = std::make_shared<ContextState>();
  context->runtime = *std::move(runtime);
  absl::StatusOr<uint64_t> token = HandleTable::Instance().AddContext(context);
  if (!token.ok()) return token.status();
  *out_context = FromToken<sy_context_t>(*token);
  return absl::OkStatus();
}

absl::Status Destroy(sy_context_t context) {
  std::vector<Tensor> doomed;
  absl::StatusOr<std::shared_ptr<ContextState>> state =
      HandleTable::Instance().RemoveContext(Token(context), &doomed);
  if (!state.ok()) return state.status();
  // Tensors go first: the runtime must outlive its storage. The runtime
  // itself goes when the last holder lets go — here, or a call still in
  // flight on another thread, or the deleter of a DLPack export.
  doomed.clear();
  state->reset();
  return absl::OkStatus();
}

}  // namespace
}  // namespace sy::capi

using sy::capi::CheckNotNull;
using sy::capi::Guard;
using sy::capi::HandleTable;
using sy::capi::Token;

extern "C" {

SY_API sy_status_code_t sy_context_create(const sy_context_options_t* options,
                                          sy_context_t* out_context) {
  return Guard("sy_context_create",
               [&] { return sy::capi::Create(options, out_context); });
}

SY_API sy_status_code_t sy_context_destroy(sy_context_t context) {
  return Guard("sy_context_destroy", [&] { return sy::capi::Destroy(context); });
}

SY_API sy_status_code_t sy_context_load_plugin(sy_context_t context,
                                               const char* manifest_path) {
  return Guard("sy_context_load_plugin", [&]() -> absl::Status {
    auto state = HandleTable::Instance().FindContext(Token(context), "context");
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(manifest_path, "manifest_path"); !s.ok()) return s;
    return (*state)->runtime->LoadPlugin(manifest_path);
  });
}

SY_API sy_status_code_t sy_context_unload_plugin(sy_context_t context,
                                                 const char* name) {
  return Guard("sy_context_unload_plugin", [&]() -> absl::Status {
    auto state = HandleTable::Instance().FindContext(Token(context), "context");
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(name, "name"); !s.ok()) return s;
    return (*state)->runtime->UnloadPlugin(name);
  });
}

SY_API sy_status_code_t sy_context_plugin_record_count(sy_context_t context,
                                                       int32_t* out_count) {
  return Guard("sy_context_plugin_record_count", [&]() -> absl::Status {
    auto state = HandleTable::Instance().FindContext(Token(context), "context");
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_count, "out_count"); !s.ok()) return s;
    *out_count = (*state)->RecordCount();
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_plugin_record(sy_context_t context, int32_t index,
                                                 sy_plugin_record_t* out_record) {
  return Guard("sy_context_plugin_record", [&]() -> absl::Status {
    auto state = HandleTable::Instance().FindContext(Token(context), "context");
    if (!state.ok()) return state.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_record, SY_STRUCT_SIZE(sy_plugin_record_t, load_ms), "out_record",
            "sy_plugin_record_t");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<const sy::capi::RecordEntry*> entry = (*state)->Record(index);
    if (!entry.ok()) return entry.status();
    const sy::core::LoadRecord& r = (*entry)->record;
    sy_plugin_record_t full{};
    full.name = r.name.c_str();
    full.manifest_path = r.manifest_path.c_str();
    full.library_path = r.library_path.c_str();
    switch (r.outcome) {
      case sy::core::LoadOutcome::kLoaded: full.outcome = SY_LOAD_LOADED; break;
      case sy::core::LoadOutcome::kFailed: full.outcome = SY_LOAD_FAILED; break;
      case sy::core::LoadOutcome::kSkipped: full.outcome = SY_LOAD_SKIPPED; break;
      case sy::core::LoadOutcome::kLoadedNoDevices:
        full.outcome = SY_LOAD_LOADED_NO_DEVICES;
        break;
    }
    full.requested = r.requested ? 1 : 0;
    full.stage = sy::core::LoadStageName(r.stage);
    full.reason = r.reason.c_str();
    full.description = (*entry)->description.c_str();
    full.plugin_version = r.plugin_version.c_str();
    full.host_abi_major = r.host_abi_major;
    full.host_abi_minor = r.host_abi_minor;
    full.plugin_abi_major = r.plugin_abi_major;
    full.plugin_abi_minor = r.plugin_abi_minor;
    full.num_devices = r.num_devices;
    full.num_schemas = r.num_schemas;
    full.num_kernels = r.num_kernels;
    full.load_ms = r.load_ms;
    sy::capi::WriteOutStruct(out_record, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_info_json(sy_context_t context,
                                             const char** out_json) {
  return Guard("sy_context_info_json", [&]() -> absl::Status {
    auto state = HandleTable::Instance().FindContext(Token(context), "context");
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_json, "out_json"); !s.ok()) return s;
    *out_json = sy::capi::KeepThreadText((*state)->runtime->Info().dump(
        2, ' ', false, nlohmann::json::error_handler_t::replace));
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_synchronize(sy_context_t context) {
  return Guard("sy_context_synchronize", [&]() -> absl::Status {
    auto state = HandleTable::Instance().FindContext(Token(context), "context");
    if (!state.ok()) return state.status();
    for (sy::core::Device* device : (*state)->runtime->Devices()) {
      if (absl::Status s = device->Synchronize(); !s.ok()) return s;
    }
    return absl::OkStatus();
  });
}

}  // extern "C"
