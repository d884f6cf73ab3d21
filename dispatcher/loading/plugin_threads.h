// Which threads of this process might still be running a plugin's code:
// what the host looks at before it dlcloses a plugin (Note [Unload and
// plugin threads] in plugin_library.h).
#ifndef SWITCHYARD_DISPATCHER_LOADING_PLUGIN_THREADS_H_
#define SWITCHYARD_DISPATCHER_LOADING_PLUGIN_THREADS_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sy::core {

// The thread ids of this process (/proc/self/task), sorted.
std::vector<pid_t> ProcessThreadIds();

// The shared objects mapped in this process (load address and name, from
// dl_iterate_phdr), sorted.
using LoadedObjects = std::vector<std::pair<uintptr_t, std::string>>;
LoadedObjects CurrentLoadedObjects();

// Executable address ranges [begin, end).
struct CodeRange {
  uintptr_t begin = 0;
  uintptr_t end = 0;
};

// The executable segments of the objects mapped now that were not in
// `before`: a library just opened and the dependencies it pulled in.
std::vector<CodeRange> CodeLoadedSince(const LoadedObjects& before);

// The threads among `candidates` (never the calling one) that may be
// running code in `code`: those whose instruction pointer, or any word of
// whose live stack (from the stack pointer to the top of its mapping, at
// most 1 MiB), points into it — read from /proc/self/task/<id>/syscall and
// process_vm_readv while the thread sits in a system call — plus those that
// cannot be examined (running, or unreadable): the answer errs towards
// "may be". A thread that has exited is left out.
std::vector<pid_t> ThreadsThatMayRun(const std::vector<pid_t>& candidates,
                                     const std::vector<CodeRange>& code);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_LOADING_PLUGIN_THREADS_H_
