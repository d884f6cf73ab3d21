// Policy checks on a plugin's files before any of its code runs: code that
// anyone on the machine could have replaced is not loaded, and a library
// must export nothing but its entry point. Each check fails closed: what it
// cannot establish counts as a refusal, never as a pass.
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_SECURITY_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_SECURITY_H_

#include "absl/status/status.h"
#include "dispatcher/loading/elf_exports.h"
#include "dispatcher/loading/plugin_file.h"

namespace sy::core {

// PermissionDenied with the file's exposure (PluginFile::exposure(): the
// file, or any folder on its resolved path, writable by every user; or the
// file or a link to it planted by another user in a sticky world-writable
// folder). SWITCHYARD_ALLOW_INSECURE_PLUGIN_DIRS=1 turns the refusal into
// OK (read with secure_getenv, so a setuid program cannot be talked into
// it).
absl::Status CheckNotExposed(const PluginFile& file);

// FailedPrecondition when the library (`info` read from `library`) lacks a
// function sy_plugin_init or exports other symbols, naming them.
absl::Status CheckOnlyEntryPointExported(const PluginFile& library,
                                         const ElfDynamicInfo& info);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_SECURITY_H_
