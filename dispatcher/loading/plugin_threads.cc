#include "dispatcher/loading/plugin_threads.h"

#include <dirent.h>
#include <link.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace sy::core {
namespace {

// Why look at stacks, not only count threads: a process gains threads for
// many reasons while a plugin is loaded (the application's own pools,
// another plugin's workers started on first use). Counting would blame the
// plugin being closed for all of them. A thread that is still inside the
// plugin's code — or will return into it — has the plugin's addresses in
// its instruction pointer or on its live stack; one that never touched the
// plugin does not (a stale copy of such an address in a live stack slot is
// possible, and errs on the safe side: the library is kept).
constexpr uintptr_t kMaxStackScan = uintptr_t{1} << 20;

bool InCode(uintptr_t value, const std::vector<CodeRange>& code) {
  for (const CodeRange& range : code) {
    if (value >= range.begin && value < range.end) return true;
  }
  return false;
}

// [start, end) of every mapping of this process.
std::vector<CodeRange> Mappings() {
  std::vector<CodeRange> maps;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    const std::string range = line.substr(0, line.find(' '));
    const size_t dash = range.find('-');
    uint64_t begin = 0, end = 0;
    if (dash == std::string::npos ||
        !absl::SimpleHexAtoi(range.substr(0, dash), &begin) ||
        !absl::SimpleHexAtoi(range.substr(dash + 1), &end)) {
      continue;
    }
    maps.push_back({static_cast<uintptr_t>(begin), static_cast<uintptr_t>(end)});
  }
  return maps;
}

enum class Verdict { kExited, kMayRun, kClear };

// Reads [from, to) of this process's memory through the kernel, so that a
// page unmapped meanwhile is an error rather than a fault, and sanitizers
// do not see another thread's stack being read.
bool StackPointsInto(uintptr_t from, uintptr_t to, const std::vector<CodeRange>& code,
                     bool* readable) {
  std::vector<uintptr_t> words(4096);
  *readable = true;
  for (uintptr_t at = from & ~uintptr_t{7}; at < to;) {
    const size_t bytes = std::min<uintptr_t>(words.size() * sizeof(uintptr_t), to - at);
    iovec local{words.data(), bytes};
    iovec remote{reinterpret_cast<void*>(at), bytes};
    const ssize_t n = process_vm_readv(::getpid(), &local, 1, &remote, 1, 0);
    if (n <= 0) {
      *readable = false;
      return false;
    }
    for (size_t i = 0; i < static_cast<size_t>(n) / sizeof(uintptr_t); ++i) {
      if (InCode(words[i], code)) return true;
    }
    at += static_cast<uintptr_t>(n);
  }
  return false;
}

Verdict Examine(pid_t tid, const std::vector<CodeRange>& code,
                const std::vector<CodeRange>& maps) {
  const std::string task = absl::StrCat("/proc/self/task/", tid);
  std::ifstream in(task + "/syscall");
  if (!in) return ::access(task.c_str(), F_OK) != 0 ? Verdict::kExited : Verdict::kMayRun;
  std::string text;
  std::getline(in, text);
  std::vector<std::string> fields = absl::StrSplit(text, ' ', absl::SkipEmpty());
  // "running", or "<nr|-1> [6 arguments] <sp> <pc>" while it is blocked.
  if (fields.size() < 3) return Verdict::kMayRun;
  uint64_t sp = 0, pc = 0;
  if (!absl::SimpleHexAtoi(fields[fields.size() - 2], &sp) ||
      !absl::SimpleHexAtoi(fields.back(), &pc)) {
    return Verdict::kMayRun;
  }
  if (InCode(static_cast<uintptr_t>(pc), code)) return Verdict::kMayRun;
  for (const CodeRange& map : maps) {
    if (sp < map.begin || sp >= map.end) continue;
    const uintptr_t top = std::min<uintptr_t>(map.end, sp + kMaxStackScan);
    bool readable = true;
    if (StackPointsInto(static_cast<uintptr_t>(sp), top, code, &readable)) {
      return Verdict::kMayRun;
    }
    if (!readable) {
      return ::access(task.c_str(), F_OK) != 0 ? Verdict::kExited : Verdict::kMayRun;
    }
    return Verdict::kClear;
  }
  return Verdict::kMayRun;  // a stack pointer into no mapping: cannot tell
}

}  // namespace

std::vector<pid_t> ProcessThreadIds() {
  std::vector<pid_t> ids;
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return ids;
  while (const dirent* entry = ::readdir(dir)) {
    const long id = std::strtol(entry->d_name, nullptr, 10);
    if (id > 0) ids.push_back(static_cast<pid_t>(id));
  }
  ::closedir(dir);
  std::sort(ids.begin(), ids.end());
  return ids;
}

LoadedObjects CurrentLoadedObjects() {
  LoadedObjects objects;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        static_cast<LoadedObjects*>(data)->emplace_back(
            static_cast<uintptr_t>(info->dlpi_addr),
            info->dlpi_name != nullptr ? info->dlpi_name : "");
        return 0;
      },
      &objects);
  std::sort(objects.begin(), objects.end());
  return objects;
}

std::vector<CodeRange> CodeLoadedSince(const LoadedObjects& before) {
  struct Walk {
    const LoadedObjects* before;
    std::vector<CodeRange> code;
  } walk{&before, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* w = static_cast<Walk*>(data);
        const std::pair<uintptr_t, std::string> key(
            static_cast<uintptr_t>(info->dlpi_addr),
            info->dlpi_name != nullptr ? info->dlpi_name : "");
        if (std::binary_search(w->before->begin(), w->before->end(), key)) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
          const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
          w->code.push_back({begin, begin + ph.p_memsz});
        }
        return 0;
      },
      &walk);
  return walk.code;
}

std::vector<pid_t> ThreadsThatMayRun(const std::vector<pid_t>& candidates,
                                     const std::vector<CodeRange>& code) {
  std::vector<pid_t> found;
  const pid_t self = ::gettid();
  const std::vector<CodeRange> maps = Mappings();
  for (pid_t tid : candidates) {
    if (tid == self) continue;
    if (Examine(tid, code, maps) == Verdict::kMayRun) found.push_back(tid);
  }
  return found;
}

}  // namespace sy::core
