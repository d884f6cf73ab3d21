// The record every plugin load attempt leaves behind: where it came from,
// which versions met, what happened and exactly why. `switchyard info` and
// the C API show these.
#ifndef SWITCHYARD_DISPATCHER_REGISTRY_LOAD_RECORD_H_
#define SWITCHYARD_DISPATCHER_REGISTRY_LOAD_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "nlohmann/json_fwd.hpp"

namespace sy::core {

enum class LoadOutcome {
  kLoaded,   // registered and usable
  kFailed,   // tried and refused or broken; `reason` says why
  kSkipped,  // deliberately not loaded (policy, duplicate); `reason` says why
  // Registered, but every device type it provides has no device (a GPU
  // plugin on a machine without that GPU); `notes` say why. Its kernels for
  // other plugins' device types, if any, work.
  kLoadedNoDevices,
};

// Where in the pipeline the outcome was decided.
enum class LoadStage {
  kDiscovery,  // the path itself (relative entry, missing manifest)
  kProbe,      // loading it in a child process first (`switchyard info --probe`)
  kManifest,   // reading or validating the JSON
  kPolicy,     // allow/deny lists, duplicates
  kVersion,    // ABI major/minor negotiation
  kChecksum,   // sha256 pin
  kOpen,       // dlopen
  kSymbol,     // looking up sy_plugin_init
  kInit,       // sy_plugin_init and its table
  kOptions,    // the plugin's declared options against the values users gave
  kRegister,   // the plugin's load slot and committing what it registered
  kDone,       // loaded
};

// A declared plugin option and the value it had for this load.
struct LoadRecordOption {
  std::string name;
  std::string type;    // "int", "float", "bool", "string"
  std::string value;   // as given, or the default
  std::string source;  // "default", "manifest", "SWITCHYARD_PLUGIN_OPTIONS", "context"
  std::string help;
};

struct LoadRecord {
  std::string name;           // from the manifest (or the file name)
  std::string manifest_path;
  std::string library_path;
  bool requested = false;     // named by the user: failure is an error
  LoadOutcome outcome = LoadOutcome::kFailed;
  LoadStage stage = LoadStage::kDiscovery;
  std::string reason;         // empty when loaded
  uint32_t host_abi_major = 0, host_abi_minor = 0;
  uint32_t manifest_abi_major = 0, manifest_abi_minor = 0;
  uint32_t plugin_abi_major = 0, plugin_abi_minor = 0;  // from its table
  std::string plugin_version;
  int num_devices = 0;
  int num_schemas = 0;
  int num_kernels = 0;
  double load_ms = 0;
  // What the plugin logged while loading, at info level or above ("no CUDA
  // device: …", "bf16 kernels not registered: …"), in order.
  std::vector<std::string> notes;
  // Every option the plugin declares, with its value (ABI 1.1 plugins).
  std::vector<LoadRecordOption> options;
};

// True for both ways of having loaded (kLoaded, kLoadedNoDevices).
inline bool IsLoaded(LoadOutcome outcome) {
  return outcome == LoadOutcome::kLoaded ||
         outcome == LoadOutcome::kLoadedNoDevices;
}

const char* LoadOutcomeName(LoadOutcome outcome);  // "loaded", "failed", …
const char* LoadStageName(LoadStage stage);        // "manifest", …

nlohmann::json LoadRecordToJson(const LoadRecord& record);

// One paragraph in plain words, e.g.
//   "plugin 'bad_major' (/p/bad_major.json): failed at version check —
//    built for plugin ABI 2.0, but this Switchyard speaks 1.0; …"
std::string DescribeLoadRecord(const LoadRecord& record);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_LOAD_RECORD_H_
