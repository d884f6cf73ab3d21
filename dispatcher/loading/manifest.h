// Plugin manifests: the JSON file that describes a plugin and is checked
// before its library is ever opened.
//
//   {
//     "format_version": 1,
//     "name": "cpu",
//     "library": "libswitchyard_cpu.so",      // relative to this file
//     "abi": {"major": 1, "minor": 0},
//     "device_types": ["cpu"],
//     "sha256": "…64 hex digits…",            // optional pin
//     "options": {"num_threads": 4}             // optional plugin options
//   }
//
// Unknown fields are ignored so that newer manifests stay readable.
#ifndef SWITCHYARD_DISPATCHER_LOADING_MANIFEST_H_
#define SWITCHYARD_DISPATCHER_LOADING_MANIFEST_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/loading/plugin_file.h"

namespace sy::core {

inline constexpr int kManifestFormatVersion = 1;

struct Manifest {
  std::string path;          // of the manifest itself
  int format_version = 0;
  std::string name;
  std::string library;       // as written
  std::string library_path;  // resolved against the manifest's folder
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::vector<std::string> device_types;
  std::optional<std::string> sha256;  // lowercase hex
  // Plugin options (plugin_options.h) as text: option → value.
  std::map<std::string, std::string> options;
};

// Reads and validates a manifest. Errors are InvalidArgument with a message
// that names the file, the field and what a valid value looks like, or
// PluginFile::Open's (NotFound when the file is missing; a FIFO, folder or
// device is refused without being read). Does not open the library.
absl::StatusOr<Manifest> ReadManifest(const std::string& path);

// The same for a manifest already opened (and checked) by descriptor. Its
// `library` is resolved against the folder the manifest really is in
// (PluginFile::resolved_path()), so a symlinked manifest finds the library
// next to its target.
absl::StatusOr<Manifest> ReadManifest(const PluginFile& file);

// Parses manifest text. `path` names the manifest in messages; `library` is
// resolved against `folder` (default: the folder of `path`).
absl::StatusOr<Manifest> ParseManifest(const std::string& text,
                                       const std::string& path,
                                       const std::string& folder = "");

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_MANIFEST_H_
