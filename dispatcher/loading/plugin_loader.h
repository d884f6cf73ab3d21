// Finding, checking and loading plugins.
//
// Discovery order: LoaderOptions::search_paths, then SWITCHYARD_PLUGIN_PATH
// (':'-separated folders or manifest files), then the install's
// lib/switchyard/plugins next to libswitchyard.so. Within a folder, every
// *.json file is a manifest, taken in name order. Relative entries in
// SWITCHYARD_PLUGIN_PATH (including empty ones, which the shell would treat
// as the current directory) are ignored with a record: nothing is loaded
// from the current directory unless named explicitly.
//
// SWITCHYARD_PLUGINS="a,b,-c": names without '-' form an allow list (only
// they load, and each must load or Runtime::Create fails); names with '-'
// are denied. Environment overrides are read with secure_getenv.
//
// Each manifest goes through: manifest (opened once and read by descriptor,
// plugin_file.h) → policy → version (manifest ABI major) → the library file
// (opened once by descriptor; recorded at the manifest step when it is
// missing, at the open step when it is not a regular file) → who could
// have replaced either file (plugin_security.h; recorded at the policy
// step) → checksum → the ELF checks (elf_exports.h: truncation, machine,
// malformed tables at the open step; exports at the symbol step) → open
// (dlopen of that same descriptor) → symbol → init (version negotiation)
// → register. Every check fails closed: what cannot be established is a
// refusal. Every attempt leaves a LoadRecord. A plugin that fails is a
// warning unless it was requested; the others keep working.
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LOADER_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LOADER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/status/status.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/registry/runtime_state.h"

namespace sy::core {

struct LoaderOptions {
  std::vector<std::string> search_paths;  // folders or manifest files
  bool use_environment = true;   // SWITCHYARD_PLUGIN_PATH, SWITCHYARD_PLUGINS
  bool use_default_path = true;  // lib/switchyard/plugins
  std::vector<std::string> allow;  // added to SWITCHYARD_PLUGINS' allow list
  std::vector<std::string> deny;   // added to its deny list
  // Manifests not to load, each with the record to keep in its place: the
  // probe's verdict on a plugin that crashed a child process (tools/cli).
  // Matched by manifest_path after canonicalization.
  std::vector<LoadRecord> refused;
  // Plugin options set in code (the context's), as "plugin.option=value"
  // entries; they override the manifest and SWITCHYARD_PLUGIN_OPTIONS.
  std::vector<std::string> plugin_options;
  // Called before each step that reads a plugin's files or runs its code
  // (manifest, open, symbol, init, register), on the loading thread: a
  // probe child reports its progress with it, so that a crash can be
  // pinned on the step that crashed.
  std::function<void(LoadStage)> on_stage;
};

// The manifests LoadPlugins would try, in order, without loading any:
// search_paths, SWITCHYARD_PLUGIN_PATH's absolute entries (when
// use_environment), then the default folder (when use_default_path), each
// once.
std::vector<std::string> DiscoverManifests(const LoaderOptions& options);

// Discovers and loads plugins into `state`. Returns an error (whose message
// holds the record's reason) when a requested plugin failed or was not
// found; every other outcome is only recorded.
absl::Status LoadPlugins(RuntimeState& state, const LoaderOptions& options);

// Loads the plugin whose manifest is at `manifest_path` (named explicitly:
// its failure is returned). The record is appended to state.records.
absl::Status LoadPluginFromManifest(RuntimeState& state,
                                    const std::string& manifest_path);

// Unloads plugin `name` from this runtime. FailedPrecondition while tensors,
// streams or events it created are alive; NotFound if no such plugin. When
// its library had to stay mapped (threads it left running; Note [Unload and
// plugin threads] in plugin_library.h), its load record gets a note saying
// so, besides the warning in the log.
absl::Status UnloadPlugin(RuntimeState& state, absl::string_view name);

// The folder lib/switchyard/plugins next to libswitchyard.so.
std::string DefaultPluginDirectory();

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LOADER_H_
