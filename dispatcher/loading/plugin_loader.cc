#include "absl/strings/string_view.h"
#include "dispatcher/loading/plugin_loader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "boost/dll/runtime_symbol_info.hpp"
#include "dispatcher/base/env.h"
#include "dispatcher/base/error.h"
#include "dispatcher/loading/host_api.h"
#include "dispatcher/base/log.h"
#include "dispatcher/loading/elf_exports.h"
#include "dispatcher/loading/manifest.h"
#include "dispatcher/loading/plugin_file.h"
#include "dispatcher/loading/plugin_library.h"
#include "dispatcher/loading/plugin_security.h"
#include "dispatcher/loading/registration_session.h"
#include "dispatcher/trace/trace.h"

namespace sy::core {
namespace {

namespace fs = std::filesystem;

struct Policy {
  absl::flat_hash_set<std::string> allow;
  absl::flat_hash_set<std::string> deny;
};

LoadRecord NewRecord(const std::string& manifest_path, bool requested) {
  LoadRecord record;
  record.manifest_path = manifest_path;
  record.name = fs::path(manifest_path).stem().string();
  record.requested = requested;
  record.host_abi_major = SY_PLUGIN_ABI_MAJOR;
  record.host_abi_minor = SY_PLUGIN_ABI_MINOR;
  return record;
}

void Fail(LoadRecord& record, LoadStage stage, std::string reason) {
  record.outcome = LoadOutcome::kFailed;
  record.stage = stage;
  record.reason = std::move(reason);
}

void Skip(LoadRecord& record, std::string reason) {
  record.outcome = LoadOutcome::kSkipped;
  record.stage = LoadStage::kPolicy;
  record.reason = std::move(reason);
}

// Runs every step for one manifest; fills `record`. `policy` is null for a
// plugin named explicitly by path.
void LoadOne(RuntimeState& state, LoadRecord& record, const Policy* policy,
             StageTracker& tracker) {
  auto start = std::chrono::steady_clock::now();
  tracker.Enter(LoadStage::kManifest);
  absl::StatusOr<PluginFile> manifest_file =
      PluginFile::Open(record.manifest_path, PluginFileKind::kManifest);
  if (!manifest_file.ok()) {
    return Fail(record, LoadStage::kManifest,
                std::string(manifest_file.status().message()));
  }
  absl::StatusOr<Manifest> manifest = ReadManifest(*manifest_file);
  if (!manifest.ok()) {
    return Fail(record, LoadStage::kManifest,
                std::string(manifest.status().message()));
  }
  record.name = manifest->name;
  record.library_path = manifest->library_path;
  record.manifest_abi_major = manifest->abi_major;
  record.manifest_abi_minor = manifest->abi_minor;

  if (policy != nullptr) {
    if (policy->deny.contains(manifest->name)) {
      return Skip(record, "denied by the deny list (SWITCHYARD_PLUGINS=-" +
                              manifest->name + ")");
    }
    if (!policy->allow.empty() && !policy->allow.contains(manifest->name)) {
      return Skip(record, absl::StrCat("not in the allow list (SWITCHYARD_PLUGINS="
                                       "", absl::StrJoin(policy->allow, ","),
                                       "); add it there to load it"));
    }
  }
  {
    std::lock_guard<std::mutex> lock(state.plugins_mu);
    for (const auto& plugin : state.plugins) {
      if (plugin->name() == manifest->name) {
        return Skip(record, absl::StrCat("a plugin named '", manifest->name,
                                         "' is already loaded from ",
                                         plugin->manifest_path(),
                                         "; the first one found wins"));
      }
    }
  }
  if (manifest->abi_major != SY_PLUGIN_ABI_MAJOR) {
    return Fail(record, LoadStage::kVersion,
                absl::StrCat("the manifest says the plugin was built for "
                             "plugin ABI ", manifest->abi_major, ".",
                             manifest->abi_minor, ", but this Switchyard "
                             "speaks ABI ", SY_PLUGIN_ABI_MAJOR, ".",
                             SY_PLUGIN_ABI_MINOR, "; rebuild the plugin "
                             "against Switchyard SDK ", SY_PLUGIN_ABI_MAJOR,
                             ".x"));
  }
  if (absl::Status safe = CheckNotExposed(*manifest_file); !safe.ok()) {
    return Fail(record, LoadStage::kPolicy, std::string(safe.message()));
  }
  absl::StatusOr<PluginFile> library_file =
      PluginFile::Open(manifest->library_path, PluginFileKind::kLibrary);
  if (!library_file.ok()) {
    if (absl::IsNotFound(library_file.status())) {
      return Fail(record, LoadStage::kManifest,
                  absl::StrCat("the library '", manifest->library,
                               "' named by the manifest does not exist at ",
                               manifest->library_path,
                               "; reinstall the plugin or fix \"library\""));
    }
    return Fail(record, LoadStage::kOpen,
                std::string(library_file.status().message()));
  }
  if (absl::Status safe = CheckNotExposed(*library_file); !safe.ok()) {
    return Fail(record, LoadStage::kPolicy, std::string(safe.message()));
  }
  if (manifest->sha256) {
    absl::StatusOr<std::string> digest = FileSha256(*library_file);
    if (!digest.ok()) {
      return Fail(record, LoadStage::kChecksum,
                  std::string(digest.status().message()));
    }
    if (*digest != *manifest->sha256) {
      return Fail(record, LoadStage::kChecksum,
                  absl::StrCat("the library's SHA-256 is ", *digest,
                               " but the manifest pins ", *manifest->sha256,
                               "; the file was changed after the manifest "
                               "was written — reinstall the plugin or update "
                               "the pin"));
    }
  }
  absl::StatusOr<ElfDynamicInfo> elf = ReadElfDynamicInfo(*library_file);
  if (!elf.ok()) {
    return Fail(record, LoadStage::kOpen, std::string(elf.status().message()));
  }
  if (absl::Status exports = CheckOnlyEntryPointExported(*library_file, *elf);
      !exports.ok()) {
    return Fail(record, LoadStage::kSymbol, std::string(exports.message()));
  }
  absl::StatusOr<std::shared_ptr<SharedLibrary>> library =
      SharedLibrary::Open(*std::move(library_file), *elf, tracker);
  if (!library.ok()) {
    return Fail(record, tracker.stage, std::string(library.status().message()));
  }
  const PluginTable& table = (*library)->table();
  record.plugin_abi_major = table.abi_major;
  record.plugin_abi_minor = table.abi_minor;
  record.plugin_version = table.version;
  if (table.name != manifest->name) {
    return Fail(record, LoadStage::kInit,
                absl::StrCat("the manifest names the plugin '", manifest->name,
                             "' but the library calls itself '", table.name,
                             "'; the manifest and library do not belong "
                             "together"));
  }

  absl::StatusOr<std::vector<PluginOptionValue>> options =
      ResolveOptions(manifest->name, table.options, manifest->options,
                     state.options_from_env, state.options_from_context);
  if (!options.ok()) {
    return Fail(record, LoadStage::kOptions,
                std::string(options.status().message()));
  }
  for (const PluginOptionValue& o : *options) {
    record.options.push_back({o.decl.name, OptionTypeName(o.decl.type), o.text,
                              o.source, o.decl.help});
  }
  if (table.options.empty() && !manifest->options.empty()) {
    return Fail(record, LoadStage::kOptions,
                absl::StrCat("the manifest sets options, but the plugin "
                             "declares none (it speaks plugin ABI ",
                             table.abi_major, ".", table.abi_minor,
                             "); remove \"options\" from the manifest"));
  }

  auto plugin = std::make_unique<PluginInstance>(
      manifest->name, table.version, manifest->path, *library);
  plugin->set_abi_minor(table.abi_minor);
  RegistrationSession session(state, *plugin);
  session.SetOptions(*std::move(options));
  tracker.Enter(LoadStage::kRegister);
  absl::Status status;
  {
    ScopedHostContext context(session);
    status = TakeError(table.load(HostApi(), context.get()),
                       "the plugin's load slot failed");
  }
  record.notes = session.notes();
  if (status.ok()) status = session.Commit(record);
  if (!status.ok()) {
    return Fail(record, LoadStage::kRegister, std::string(status.message()));
  }
  record.outcome = session.provides_no_devices() ? LoadOutcome::kLoadedNoDevices
                                                 : LoadOutcome::kLoaded;
  record.stage = LoadStage::kDone;
  record.load_ms = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  std::lock_guard<std::mutex> lock(state.plugins_mu);
  state.plugins.push_back(std::move(plugin));
}

// Appends the record, logs it (failures of discovered plugins warn) and
// traces it.
void Keep(RuntimeState& state, LoadRecord record) {
  trace::RecordPluginLoad(record.name, LoadOutcomeName(record.outcome),
                          record.reason, record.load_ms);
  if (record.outcome == LoadOutcome::kFailed) {
    Log(record.requested ? LogLevel::kError : LogLevel::kWarning,
        DescribeLoadRecord(record));
  } else {
    Log(LogLevel::kInfo, DescribeLoadRecord(record));
  }
  std::lock_guard<std::mutex> lock(state.plugins_mu);
  state.records.push_back(std::move(record));
}

// Manifests in `entry` (a folder: its *.json in name order; a file: itself).
std::vector<std::string> ManifestsIn(const std::string& entry) {
  std::vector<std::string> found;
  std::error_code ec;
  if (fs::is_directory(entry, ec)) {
    for (const fs::directory_entry& file : fs::directory_iterator(entry, ec)) {
      if (file.path().extension() == ".json") found.push_back(file.path().string());
    }
    std::sort(found.begin(), found.end());
  } else if (fs::exists(entry, ec)) {
    found.push_back(entry);
  }
  return found;
}

}  // namespace

std::string DefaultPluginDirectory() {
  boost::dll::fs::error_code ec;
  boost::dll::fs::path self = boost::dll::this_line_location(ec);
  if (ec) return "";
  // Canonical, so records say /usr/lib/… rather than /usr/bin/../lib/… when
  // the library was found through an executable's $ORIGIN/../lib RUNPATH.
  std::error_code error;
  const fs::path dir = fs::path(self.parent_path().string()) / "switchyard" / "plugins";
  const fs::path canonical = fs::weakly_canonical(dir, error);
  return (error ? dir : canonical).string();
}

namespace {

// The folders and files to search, in order; relative entries of
// SWITCHYARD_PLUGIN_PATH become skip records in `ignored`.
std::vector<std::string> SearchEntries(const LoaderOptions& options,
                                       std::vector<LoadRecord>* ignored) {
  std::vector<std::string> entries = options.search_paths;
  if (options.use_environment) {
    if (auto path = GetEnv("SWITCHYARD_PLUGIN_PATH")) {
      // Split by hand: empty entries matter (they mean "." to a shell).
      size_t begin = 0;
      while (begin <= path->size()) {
        size_t end = path->find(':', begin);
        if (end == std::string::npos) end = path->size();
        std::string entry = path->substr(begin, end - begin);
        if (!fs::path(entry).is_absolute()) {
          LoadRecord record = NewRecord(entry, false);
          record.name = entry.empty() ? "(empty entry)" : entry;
          Skip(record, absl::StrCat(
                           "relative entry '", entry,
                           "' in SWITCHYARD_PLUGIN_PATH ignored: plugins are "
                           "never loaded from the current directory unless "
                           "named by an absolute path"));
          record.stage = LoadStage::kDiscovery;
          if (ignored != nullptr) ignored->push_back(std::move(record));
        } else {
          entries.push_back(entry);
        }
        begin = end + 1;
      }
    }
  }
  if (options.use_default_path) {
    std::string dir = DefaultPluginDirectory();
    if (!dir.empty()) entries.push_back(dir);
  }
  return entries;
}

std::string Canonical(const std::string& path) {
  std::error_code ec;
  return fs::weakly_canonical(path, ec).string();
}

// Each manifest in `entries` once, in order.
std::vector<std::string> ManifestsInAll(const std::vector<std::string>& entries) {
  std::vector<std::string> manifests;
  absl::flat_hash_set<std::string> seen;
  for (const std::string& entry : entries) {
    for (const std::string& manifest : ManifestsIn(entry)) {
      if (seen.insert(Canonical(manifest)).second) manifests.push_back(manifest);
    }
  }
  return manifests;
}

}  // namespace

std::vector<std::string> DiscoverManifests(const LoaderOptions& options) {
  return ManifestsInAll(SearchEntries(options, nullptr));
}

absl::Status LoadPlugins(RuntimeState& state, const LoaderOptions& options) {
  for (const std::string& entry : options.plugin_options) {
    absl::Status parsed = ParseOptionAssignments(entry, state.options_from_context);
    if (!parsed.ok()) return parsed;
  }
  if (options.use_environment) {
    if (auto text = GetEnv("SWITCHYARD_PLUGIN_OPTIONS")) {
      OptionTexts env;
      absl::Status parsed = ParseOptionAssignments(*text, env);
      if (parsed.ok()) {
        state.options_from_env = std::move(env);
      } else {
        Log(LogLevel::kWarning,
            absl::StrCat("SWITCHYARD_PLUGIN_OPTIONS is ignored: ", parsed.message()));
      }
    }
  }
  Policy policy;
  for (const std::string& name : options.allow) policy.allow.insert(name);
  for (const std::string& name : options.deny) policy.deny.insert(name);
  if (options.use_environment) {
    if (auto list = GetEnv("SWITCHYARD_PLUGINS")) {
      for (const std::string& name : SplitList(*list, ',')) {
        if (name[0] == '-') policy.deny.insert(name.substr(1));
        else policy.allow.insert(name);
      }
    }
  }
  std::vector<LoadRecord> ignored;
  const std::vector<std::string> entries = SearchEntries(options, &ignored);
  for (LoadRecord& record : ignored) Keep(state, std::move(record));

  for (const std::string& manifest : ManifestsInAll(entries)) {
    auto refused = std::find_if(
        options.refused.begin(), options.refused.end(), [&](const LoadRecord& r) {
          return Canonical(r.manifest_path) == Canonical(manifest);
        });
    if (refused != options.refused.end()) {
      Keep(state, *refused);
      continue;
    }
    LoadRecord record = NewRecord(manifest, false);
    StageTracker tracker{LoadStage::kManifest, options.on_stage};
    LoadOne(state, record, &policy, tracker);
    record.requested = policy.allow.contains(record.name);
    Keep(state, std::move(record));
  }

  // Requested plugins must have loaded.
  std::vector<std::string> problems;
  {
    std::lock_guard<std::mutex> lock(state.plugins_mu);
    for (const std::string& name : policy.allow) {
      bool loaded = false;
      const LoadRecord* failure = nullptr;
      for (const LoadRecord& record : state.records) {
        if (record.name != name) continue;
        if (IsLoaded(record.outcome)) loaded = true;
        else if (record.outcome == LoadOutcome::kFailed) failure = &record;
      }
      if (loaded) continue;
      if (failure != nullptr) {
        problems.push_back(DescribeLoadRecord(*failure));
      } else {
        problems.push_back(absl::StrCat(
            "plugin '", name, "' was requested but no manifest named '", name,
            "' was found in: ", entries.empty() ? "(no folders)" : absl::StrJoin(entries, ":"),
            "; add its folder to SWITCHYARD_PLUGIN_PATH"));
      }
    }
  }
  if (!problems.empty()) {
    std::sort(problems.begin(), problems.end());
    return absl::FailedPreconditionError(absl::StrJoin(problems, "\n"));
  }
  return absl::OkStatus();
}

absl::Status LoadPluginFromManifest(RuntimeState& state,
                                    const std::string& manifest_path) {
  LoadRecord record = NewRecord(manifest_path, true);
  StageTracker tracker;
  LoadOne(state, record, nullptr, tracker);
  absl::Status status =
      IsLoaded(record.outcome)
          ? absl::OkStatus()
          : absl::FailedPreconditionError(DescribeLoadRecord(record));
  Keep(state, std::move(record));
  return status;
}

absl::Status UnloadPlugin(RuntimeState& state, absl::string_view name) {
  std::unique_ptr<PluginInstance> plugin;
  {
    std::lock_guard<std::mutex> lock(state.plugins_mu);
    auto it = std::find_if(state.plugins.begin(), state.plugins.end(),
                           [&](const auto& p) { return p->name() == name; });
    if (it == state.plugins.end()) {
      return absl::NotFoundError(absl::StrCat(
          "cannot unload plugin '", name, "': no plugin of that name is "
          "loaded (see `switchyard info`)"));
    }
    state.constants.DropDevicesOf(it->get());  // the core's, not the user's
    if (int64_t live = (*it)->live_objects(); live > 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot unload plugin '", name, "': ", live,
          " tensor storage block(s) on its devices are still alive; release "
          "every tensor on its devices first"));
    }
    plugin = std::move(*it);
    state.plugins.erase(it);
  }
  // Withdraw kernels first so no new call can reach the plugin, then wait
  // for calls already inside it before its devices and library go.
  state.kernels.RemovePlugin(plugin.get());
  state.ops.Retire(plugin->name());
  state.calls.WaitForQuiescence();
  state.devices.RemoveOwnedBy(plugin.get());
  const std::string library_path = plugin->library()->path();
  plugin.reset();  // the last runtime to hold the library closes it here
  Log(LogLevel::kInfo, absl::StrCat("plugin '", name, "' unloaded"));
  if (std::string note = TakeUnloadNote(library_path); !note.empty()) {
    std::lock_guard<std::mutex> lock(state.plugins_mu);
    for (auto it = state.records.rbegin(); it != state.records.rend(); ++it) {
      if (it->name == name && it->outcome == LoadOutcome::kLoaded) {
        it->notes.push_back(std::move(note));
        break;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace sy::core
