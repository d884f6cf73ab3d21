// Which plugin to test and which cpu reference to load beside it: turning
// the command line's argument (a manifest or a library) into a manifest the
// loader accepts, and finding the reference plugin's manifest.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_TARGET_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_TARGET_H_

#include <optional>
#include <string>

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"

namespace sy::conformance {

// The manifest fields the tool reads (the loader reads and checks all of
// them again when it loads the plugin: its record is the authority).
struct ManifestFields {
  std::string path;          // of the manifest itself
  std::string name;
  std::string library_path;  // "library", resolved against the manifest's folder
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::vector<std::string> device_types;
};

// Reads `path` as a manifest. InvalidArgument naming the file and field
// for one that is not JSON or lacks what the tool needs.
absl::StatusOr<ManifestFields> ReadManifestFields(const std::string& path);

struct PluginTarget {
  ManifestFields manifest;
  std::string library_path;  // canonical path of the library
  // True when no manifest came with the library and one was written to a
  // temporary folder (removed by ~TemporaryManifest, see below).
  bool synthesized = false;
  std::string temporary_dir;
};

// `argument` is either a manifest (*.json) or a plugin library:
// - a manifest is read (its fields as the loader reads them);
// - for a library, a manifest beside it that names it is used (first
//   NAME.json for libswitchyard_NAME.so, then any *.json in that folder
//   whose "library" resolves to the same file);
// - otherwise a manifest is written to a fresh folder under $TMPDIR, with
//   the name taken from the file name (libswitchyard_NAME.so → NAME, or
//   `name_override`), this host's ABI version and device_types ["unknown"]
//   (the manifest's device_types check is then skipped), so that the loader
//   can open the library. `name_override` also forces this for a library
//   that has a manifest.
// Errors: NotFound (the file does not exist), InvalidArgument (a manifest
// that cannot be read, or a file that is neither), each naming the path
// and what to do.
absl::StatusOr<PluginTarget> ResolveTarget(const std::string& argument,
                                           const std::string& name_override);

// Removes a synthesized manifest's folder; does nothing otherwise.
void RemoveTemporary(const PluginTarget& target);

// The cpu reference plugin's manifest, first found of:
//   `explicit_path` (a manifest, or a folder holding cpu.json),
//   SWITCHYARD_PLUGIN_PATH (each entry: a cpu.json file or a folder with one),
//   <folder of this executable>/../lib/switchyard/plugins/cpu.json,
//   the plugin folder next to libswitchyard.so (sy::DiscoverPlugins),
//   the build tree's plugin folder (SWITCHYARD_BUILD_PLUGIN_DIR), if any.
// Errors: NotFound listing every place looked at, and how to name one
// (--reference) — and, for an explicit path that does not hold cpu.json,
// NotFound naming it.
absl::StatusOr<std::string> FindReference(const std::string& explicit_path);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_PLUGIN_TARGET_H_
