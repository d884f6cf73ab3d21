// A plugin's shared library, opened once per process and shared by every
// runtime that loads it (see sy_host_api_t's comment in plugin.h).
//
// Note [Unload and plugin threads]: dlclose unmaps a library's code; a
// thread the plugin started and left running (OpenMP workers, a driver's
// helper threads, the plugin's own pool) then jumps into unmapped memory
// and kills the process. The contract (plugin.h, ABI 1.1): a plugin joins
// its threads in `unload`, or declares itself resident
// (SY_PLUGIN_FLAG_RESIDENT) and is never dlclose'd. The host enforces what
// it can without the plugin's word: it lists the process's threads (and
// mapped objects) before the library's first open, and after its unload
// slot returned it looks at every thread started since: one whose
// instruction pointer or live stack points into the code the open mapped
// (the library and the dependencies it pulled in), or that cannot be
// examined, may still run that code (plugin_threads.h). If any such thread
// is still alive after a grace of 100 ms, the library stays mapped, with a
// warning in the log and a note for the plugin's load record
// (TakeUnloadNote). A library kept mapped — by that
// rule, by the flag, or by the library itself (-z nodelete) — is reused by
// every later open of the same file. The process stays alive either way.
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LIBRARY_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LIBRARY_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/loading/elf_exports.h"
#include "dispatcher/loading/plugin_file.h"
#include "dispatcher/loading/plugin_options.h"
#include "dispatcher/registry/load_record.h"
#include "switchyard/plugin.h"

namespace sy::core {

// The plugin table after version negotiation, copied out of the plugin.
struct PluginTable {
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  std::string name;
  std::string version;
  sy_error_t* (*load)(const sy_host_api_t*, sy_host_context_t*) = nullptr;
  void (*unload)(void) = nullptr;
  uint32_t flags = 0;  // SY_PLUGIN_FLAG_* (1.1)
  std::vector<PluginOptionDecl> options;  // declared options (1.1)
  // The table's typed extension chain (1.1; null for a 1.0 plugin, whose
  // field was reserved): the fusion pass finds pattern kernels and fusion
  // hooks there. Static data of the plugin: valid while it is loaded.
  const sy_extension_t* extension = nullptr;
};

// Where a load is; each step is reported before it runs, so that a probe
// child (tools/cli/probe.cc) can tell which step a crash happened in.
struct StageTracker {
  LoadStage stage = LoadStage::kManifest;
  std::function<void(LoadStage)> observer;  // may be empty
  void Enter(LoadStage next) {
    stage = next;
    if (observer) observer(next);
  }
};

class SharedLibrary {
 public:
  // Opens the checked library `file` through its descriptor
  // (dlopen("/proc/self/fd/N"), RTLD_LOCAL | RTLD_NOW) — or returns the
  // copy of the same file (device and inode) already open in this process
  // — runs sy_plugin_init on first open and checks the table it returns:
  // struct size, ABI major, minor ≤ the host's, name and load slot present.
  // Dependencies that `elf` says are found through $ORIGIN are opened
  // first from the library's real folder (dlopen by descriptor would look
  // for them in /proc/self/fd). `tracker` is entered at each step (open,
  // symbol, init; version for a refused table); on failure its stage is
  // the failed step's and the status says exactly why.
  static absl::StatusOr<std::shared_ptr<SharedLibrary>> Open(
      PluginFile file, const ElfDynamicInfo& elf, StageTracker& tracker);

  // Calls the plugin's unload slot (if any), then closes the library —
  // unless it must stay mapped (Note [Unload and plugin threads]).
  ~SharedLibrary();
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;

  const std::string& path() const { return path_; }
  const PluginTable& table() const { return table_; }

 private:
  struct Mapping;
  SharedLibrary() = default;
  // Closes or keeps the mapping; LibraryMutex held.
  void CloseLocked();

  std::string path_;
  dev_t device_ = 0;
  ino_t inode_ = 0;
  std::unique_ptr<Mapping> mapping_;
  PluginTable table_;
};

// Why the library at `path` (as SharedLibrary::path()) was left mapped the
// last time it was closed, or "" — once: the note is taken. For the
// plugin's load record.
std::string TakeUnloadNote(const std::string& path);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_LIBRARY_H_
