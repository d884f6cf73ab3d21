// Checks on a plugin's files before any of its code runs: code that anyone
// on the machine could have replaced is not loaded.
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_SECURITY_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_SECURITY_H_

#include <string>

#include "absl/status/status.h"

namespace sy::core {

// PermissionDenied when the manifest, the library, or the folder holding
// either is writable by every user (mode o+w), naming the path, its mode
// and the fix. SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 turns the refusal
// into OK (read with secure_getenv, so a setuid program cannot be talked
// into it). Paths that cannot be examined are left to the later steps,
// which report them.
absl::Status CheckPluginFilesNotWorldWritable(const std::string& manifest_path,
                                              const std::string& library_path);

// FailedPrecondition when the library at `library_path` exports symbols
// besides sy_plugin_init (read from its .dynsym, without loading it),
// naming them. A library that exports nothing, lacks the entry point, or
// cannot be read is left to the open and symbol steps, which say so.
absl::Status CheckOnlyEntryPointExported(const std::string& library_path);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_SECURITY_H_
