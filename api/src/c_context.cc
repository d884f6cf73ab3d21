// sy_context_*: creating and destroying contexts, loading plugins, the load
// report, introspection and context-wide synchronization.
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/src/context_state.h"
#include "api/src/graph_capture.h"
#include "api/src/handle_table.h"
#include "api/src/lookups.h"
#include "api/src/status.h"
#include "autotune/tuner.h"
#include "dispatcher/loading/manifest.h"
#include "dispatcher/loading/plugin_loader.h"
#include "dispatcher/loading/plugin_options.h"
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

// The loader options `options` (NULL: the defaults) ask for, checked.
absl::Status ReadOptions(const sy_context_options_t* options,
                         RuntimeOptions& runtime_options,
                         std::vector<std::string>* manifests) {
  sy_context_options_t defaults;
  sy_context_options_init(&defaults);
  if (options == nullptr) options = &defaults;
  if (absl::Status s = CheckStructSize(options->struct_size,
                                       SY_STRUCT_SIZE(sy_context_options_t, cpu_fallback),
                                       "options", "sy_context_options_t");
      !s.ok()) {
    return s;
  }
  LoaderOptions& loader = runtime_options.loader;
  absl::StatusOr<std::vector<std::string>> paths =
      Strings(options->plugin_paths, options->num_plugin_paths, "options->plugin_paths");
  if (!paths.ok()) return paths.status();
  absl::StatusOr<std::vector<std::string>> named = Strings(
      options->plugin_manifests, options->num_plugin_manifests,
      "options->plugin_manifests");
  if (!named.ok()) return named.status();
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
  // 1.1 fields, read only when the caller's struct has them.
  if (SY_STRUCT_HAS(options, sy_context_options_t, num_plugin_options)) {
    absl::StatusOr<std::vector<std::string>> plugin_options =
        Strings(options->plugin_options, options->num_plugin_options,
                "options->plugin_options");
    if (!plugin_options.ok()) return plugin_options.status();
    for (const std::string& entry : *plugin_options) {
      OptionTexts parsed;  // checked here, so the error names the field
      if (absl::Status s = ParseOptionAssignments(entry, parsed); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("options->plugin_options: ", s.message()));
      }
    }
    loader.plugin_options = *std::move(plugin_options);
  }
  if (SY_STRUCT_HAS(options, sy_context_options_t, refused)) {
    if (absl::Status s = CheckArray(options->refused, options->num_refused,
                                    "options->refused");
        !s.ok()) {
      return s;
    }
    for (int32_t i = 0; i < options->num_refused; ++i) {
      const sy_plugin_refusal_t& refusal = options->refused[i];
      if (refusal.manifest_path == nullptr || refusal.reason == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "options->refused[", i, "] has a NULL manifest_path or reason"));
      }
      LoadRecord record;
      absl::StatusOr<Manifest> parsed = ReadManifest(refusal.manifest_path);
      record.name = parsed.ok()
                        ? parsed->name
                        : std::filesystem::path(refusal.manifest_path).stem().string();
      record.manifest_path = refusal.manifest_path;
      if (parsed.ok()) record.library_path = parsed->library_path;
      record.outcome = LoadOutcome::kFailed;
      record.stage = LoadStage::kProbe;
      record.reason = refusal.reason;
      loader.refused.push_back(std::move(record));
    }
  }
  if (SY_STRUCT_HAS(options, sy_context_options_t, on_load_stage_user_data) &&
      options->on_load_stage != nullptr) {
    loader.on_stage = [fn = options->on_load_stage,
                       user = options->on_load_stage_user_data](LoadStage stage) {
      fn(user, LoadStageName(stage));
    };
  }
  loader.search_paths = *std::move(paths);
  loader.allow = *std::move(allow);
  loader.deny = *std::move(deny);
  loader.use_environment = options->use_environment != 0;
  loader.use_default_path = options->use_default_path != 0;
  if (options->cpu_fallback >= 0) runtime_options.cpu_fallback = options->cpu_fallback == 1;
  if (manifests != nullptr) *manifests = *std::move(named);
  return absl::OkStatus();
}

absl::Status Create(const sy_context_options_t* options, sy_context_t* out_context) {
  if (absl::Status s = CheckNotNull(out_context, "out_context"); !s.ok()) return s;
  RuntimeOptions runtime_options;
  std::vector<std::string> manifests;
  if (absl::Status s = ReadOptions(options, runtime_options, &manifests); !s.ok()) {
    return s;
  }
  // Every context has an autotuner (docs/autotune.md): its mode comes from
  // SWITCHYARD_AUTOTUNE (default cached: the cache's verdicts, never a
  // measurement on a call) until sy_context_set_autotune.
  runtime_options.tuner_factory = autotune::MakeTunerFactory();
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(runtime_options);
  if (!runtime.ok()) return runtime.status();
  for (const std::string& manifest : manifests) {
    if (absl::Status s = (*runtime)->LoadPlugin(manifest); !s.ok()) return s;
  }
  auto context = std::make_shared<ContextState>();
  context->runtime = *std::move(runtime);
  absl::StatusOr<uint64_t> token =
      HandleTable::Instance().Add(new ContextObject(std::move(context)));
  if (!token.ok()) return token.status();
  *out_context = FromToken<sy_context_t>(*token);
  return absl::OkStatus();
}

// What sy_plugin_discover hands out: kept per thread until its next call.
struct DiscoveredPaths {
  std::vector<std::string> paths;
  std::vector<const char*> pointers;
};

DiscoveredPaths& ThreadDiscovered() {
  thread_local DiscoveredPaths discovered;
  return discovered;
}

absl::Status Discover(const sy_context_options_t* options,
                      const char* const** out_paths, int32_t* out_count) {
  if (absl::Status s = CheckNotNull(out_paths, "out_paths"); !s.ok()) return s;
  if (absl::Status s = CheckNotNull(out_count, "out_count"); !s.ok()) return s;
  RuntimeOptions runtime_options;
  if (absl::Status s = ReadOptions(options, runtime_options, nullptr); !s.ok()) return s;
  DiscoveredPaths& discovered = ThreadDiscovered();
  discovered.paths = DiscoverManifests(runtime_options.loader);
  discovered.pointers.clear();
  for (const std::string& path : discovered.paths) {
    discovered.pointers.push_back(path.c_str());
  }
  *out_paths = discovered.pointers.data();
  *out_count = static_cast<int32_t>(discovered.pointers.size());
  return absl::OkStatus();
}

}  // namespace
}  // namespace sy::capi

using sy::capi::CheckNotNull;
using sy::capi::ContextOf;
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
  // Every handle of the context is freed; its objects — and, with the last
  // of them, the runtime — go when no call on another thread still holds
  // them (Note [Epoch reclamation]), usually before this returns.
  return Guard("sy_context_destroy", [&] {
    sy::capi::DiscardCaptureOf(Token(context));
    return HandleTable::Instance().RemoveContext(Token(context));
  });
}

SY_API sy_status_code_t sy_plugin_discover(const sy_context_options_t* options,
                                           const char* const** out_paths,
                                           int32_t* out_count) {
  return Guard("sy_plugin_discover",
               [&] { return sy::capi::Discover(options, out_paths, out_count); });
}

SY_API sy_status_code_t sy_context_load_plugin(sy_context_t context,
                                               const char* manifest_path) {
  return Guard("sy_context_load_plugin", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(manifest_path, "manifest_path"); !s.ok()) return s;
    return (*state)->runtime->LoadPlugin(manifest_path);
  });
}

SY_API sy_status_code_t sy_context_unload_plugin(sy_context_t context,
                                                 const char* name) {
  return Guard("sy_context_unload_plugin", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(name, "name"); !s.ok()) return s;
    return (*state)->runtime->UnloadPlugin(name);
  });
}

SY_API sy_status_code_t sy_context_plugin_record_count(sy_context_t context,
                                                       int32_t* out_count) {
  return Guard("sy_context_plugin_record_count", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_count, "out_count"); !s.ok()) return s;
    *out_count = (*state)->RecordCount();
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_plugin_record(sy_context_t context, int32_t index,
                                                 sy_plugin_record_t* out_record) {
  return Guard("sy_context_plugin_record", [&]() -> absl::Status {
    auto state = ContextOf(context);
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
    full.num_options = static_cast<int32_t>(r.options.size());
    full.num_notes = static_cast<int32_t>(r.notes.size());
    sy::capi::WriteOutStruct(out_record, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_plugin_record_option(
    sy_context_t context, int32_t record, int32_t index,
    sy_plugin_option_info_t* out_option) {
  return Guard("sy_context_plugin_record_option", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = sy::capi::CheckOutStruct(
            out_option, SY_STRUCT_SIZE(sy_plugin_option_info_t, help), "out_option",
            "sy_plugin_option_info_t");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<const sy::capi::RecordEntry*> entry = (*state)->Record(record);
    if (!entry.ok()) return entry.status();
    const sy::core::LoadRecord& r = (*entry)->record;
    if (index < 0 || static_cast<size_t>(index) >= r.options.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          "option index ", index, " is out of range: plugin '", r.name,
          "' declares ", r.options.size(), " option(s) (see num_options)"));
    }
    const sy::core::LoadRecordOption& o = r.options[index];
    sy_plugin_option_info_t full{};
    full.name = o.name.c_str();
    full.type = o.type.c_str();
    full.value = o.value.c_str();
    full.source = o.source.c_str();
    full.help = o.help.c_str();
    sy::capi::WriteOutStruct(out_option, full);
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_plugin_record_note(sy_context_t context,
                                                      int32_t record, int32_t index,
                                                      const char** out_note) {
  return Guard("sy_context_plugin_record_note", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_note, "out_note"); !s.ok()) return s;
    absl::StatusOr<const sy::capi::RecordEntry*> entry = (*state)->Record(record);
    if (!entry.ok()) return entry.status();
    const sy::core::LoadRecord& r = (*entry)->record;
    if (index < 0 || static_cast<size_t>(index) >= r.notes.size()) {
      return absl::OutOfRangeError(absl::StrCat(
          "note index ", index, " is out of range: the record of plugin '", r.name,
          "' has ", r.notes.size(), " note(s) (see num_notes)"));
    }
    *out_note = r.notes[index].c_str();
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_info_json(sy_context_t context,
                                             const char** out_json) {
  return Guard("sy_context_info_json", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    if (absl::Status s = CheckNotNull(out_json, "out_json"); !s.ok()) return s;
    *out_json = sy::capi::KeepThreadText((*state)->runtime->Info().dump(
        2, ' ', false, nlohmann::json::error_handler_t::replace));
    return absl::OkStatus();
  });
}

SY_API sy_status_code_t sy_context_synchronize(sy_context_t context) {
  return Guard("sy_context_synchronize", [&]() -> absl::Status {
    auto state = ContextOf(context);
    if (!state.ok()) return state.status();
    for (sy::core::Device* device : (*state)->runtime->Devices()) {
      if (absl::Status s = device->Synchronize(); !s.ok()) return s;
    }
    return absl::OkStatus();
  });
}

}  // extern "C"
