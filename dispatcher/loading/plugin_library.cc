#include "dispatcher/loading/plugin_library.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/log.h"
#include "dispatcher/loading/host_api.h"
#include "dispatcher/loading/plugin_threads.h"

namespace sy::core {

// What dlopen gave us for one file: the handle, the descriptor it was
// opened through (its name, /proc/self/fd/N, is the object's name in the
// dynamic loader for as long as it is mapped, so the descriptor must not be
// closed and its number reused before then), and the $ORIGIN dependencies
// opened before it.
struct SharedLibrary::Mapping {
  void* handle = nullptr;
  int fd = -1;
  std::vector<void*> dependencies;
  std::vector<pid_t> threads_before;  // when first opened
  std::vector<CodeRange> code;  // what the open mapped: it and new dependencies
  bool kept = false;  // a kept mapping: never closed (Note [Unload and …])
};

namespace {

using FileId = std::pair<dev_t, ino_t>;

std::mutex& LibraryMutex() {
  static std::mutex mu;
  return mu;
}

// File → the open copy. Weak, so the last runtime to let a plugin go
// closes it.
std::map<FileId, std::weak_ptr<SharedLibrary>>& OpenLibraries() {
  static auto* open = new std::map<FileId, std::weak_ptr<SharedLibrary>>;
  return *open;
}

// File → a mapping that stays for the life of the process, reused by every
// later open of that file.
struct KeptMapping {
  void* handle = nullptr;
  int fd = -1;
};
std::map<FileId, KeptMapping>& KeptMappings() {
  static auto* kept = new std::map<FileId, KeptMapping>;
  return *kept;
}

absl::flat_hash_map<std::string, std::string>& UnloadNotes() {
  static auto* notes = new absl::flat_hash_map<std::string, std::string>;
  return *notes;
}

std::string FdPath(int fd) { return absl::StrCat("/proc/self/fd/", fd); }

// dlerror() with the descriptor's name replaced by the file's.
std::string LoaderError(int fd, const std::string& path) {
  const char* text = dlerror();
  if (text == nullptr) return "unknown dynamic loader error";
  return absl::StrReplaceAll(text, {{FdPath(fd), path}});
}

absl::StatusOr<PluginTable> CheckTable(const sy_plugin_api_t* api) {
  if (api == nullptr) {
    return absl::InvalidArgumentError(
        "sy_plugin_init returned success but left *out_plugin null; it must "
        "point at the plugin's static sy_plugin_api_t");
  }
  const size_t needed = SY_STRUCT_SIZE(sy_plugin_api_t, load);
  if (api->struct_size < needed) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the plugin table's struct_size is ", api->struct_size,
        " bytes, smaller than ABI 1.0's ", needed,
        "; set struct_size = sizeof(sy_plugin_api_t) and rebuild"));
  }
  PluginTable table;
  table.abi_major = api->abi_major;
  table.abi_minor = api->abi_minor;
  if (api->abi_major != SY_PLUGIN_ABI_MAJOR) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the library reports plugin ABI ", api->abi_major, ".", api->abi_minor,
        ", but this Switchyard speaks ABI ", SY_PLUGIN_ABI_MAJOR, ".",
        SY_PLUGIN_ABI_MINOR, "; rebuild the plugin against Switchyard SDK ",
        SY_PLUGIN_ABI_MAJOR, ".x"));
  }
  if (api->abi_minor > SY_PLUGIN_ABI_MINOR) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the plugin needs plugin ABI ", api->abi_major, ".", api->abi_minor,
        ", but this Switchyard provides at most ", SY_PLUGIN_ABI_MAJOR, ".",
        SY_PLUGIN_ABI_MINOR, "; upgrade Switchyard, or build the plugin to "
        "answer the host's minor (sy_host_api_t.abi_minor)"));
  }
  if (api->name == nullptr || api->name[0] == '\0') {
    return absl::InvalidArgumentError(
        "the plugin table has no name; set sy_plugin_api_t.name to the "
        "manifest's name");
  }
  if (api->load == nullptr) {
    return absl::InvalidArgumentError(
        "the plugin table's required slot 'load' is null");
  }
  table.name = api->name;
  table.version = api->version != nullptr ? api->version : "";
  table.load = api->load;
  if (SY_STRUCT_HAS(api, sy_plugin_api_t, unload)) table.unload = api->unload;
  if (api->abi_minor >= 1) table.extension = api->extension;
  if (api->abi_minor >= 1 && SY_STRUCT_HAS(api, sy_plugin_api_t, flags)) {
    if ((api->flags & ~SY_PLUGIN_FLAG_RESIDENT) != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the plugin table's flags 0x", absl::Hex(api->flags), " have bits "
          "this host does not know; the only flag is SY_PLUGIN_FLAG_RESIDENT"));
    }
    table.flags = api->flags;
  }
  absl::StatusOr<std::vector<PluginOptionDecl>> options = ReadOptionDecls(*api);
  if (!options.ok()) return options.status();
  table.options = *std::move(options);
  return table;
}

// Opens the dependencies the library finds through $ORIGIN in its
// DT_RUNPATH/DT_RPATH, from the folder the library really is in. Opened by
// descriptor, the library's $ORIGIN would be /proc/self/fd; once these are
// loaded, ld.so satisfies the library's DT_NEEDED entries with them.
absl::Status OpenOriginDependencies(const PluginFile& file,
                                    const ElfDynamicInfo& elf,
                                    std::vector<void*>& handles) {
  const std::string folder =
      file.resolved_path().substr(0, file.resolved_path().rfind('/'));
  std::vector<std::string> dirs;
  for (const std::string& entry : elf.search_path) {
    if (entry.find("$ORIGIN") == std::string::npos &&
        entry.find("${ORIGIN}") == std::string::npos) {
      continue;
    }
    dirs.push_back(absl::StrReplaceAll(entry, {{"${ORIGIN}", folder}, {"$ORIGIN", folder}}));
  }
  if (dirs.empty()) return absl::OkStatus();
  for (const std::string& name : elf.needed) {
    if (name.find('/') != std::string::npos) continue;
    for (const std::string& dir : dirs) {
      const std::string candidate = absl::StrCat(dir, "/", name);
      struct stat info;
      if (::stat(candidate.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
      dlerror();
      void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) {
        const char* text = dlerror();
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot open library ", file.path(), ": its dependency ", candidate,
            " (found through $ORIGIN) cannot be opened: ",
            text != nullptr ? text : "unknown error"));
      }
      handles.push_back(handle);
      break;
    }
  }
  return absl::OkStatus();
}

// The threads started since `before` (other than the calling one) that may
// still run `code`, after waiting up to 100 ms for ones the plugin told to
// stop but did not join.
std::vector<pid_t> LingeringThreads(const std::vector<pid_t>& before,
                                    const std::vector<CodeRange>& code) {
  std::vector<pid_t> lingering;
  for (int wait = 0; wait <= 50; ++wait) {
    if (wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::vector<pid_t> fresh;
    const std::vector<pid_t> now = ProcessThreadIds();
    std::set_difference(now.begin(), now.end(), before.begin(), before.end(),
                        std::back_inserter(fresh));
    lingering = ThreadsThatMayRun(fresh, code);
    if (lingering.empty()) break;
  }
  return lingering;
}

}  // namespace

std::string TakeUnloadNote(const std::string& path) {
  std::lock_guard<std::mutex> lock(LibraryMutex());
  auto it = UnloadNotes().find(path);
  if (it == UnloadNotes().end()) return "";
  std::string note = std::move(it->second);
  UnloadNotes().erase(it);
  return note;
}

absl::StatusOr<std::shared_ptr<SharedLibrary>> SharedLibrary::Open(
    PluginFile file, const ElfDynamicInfo& elf, StageTracker& tracker) {
  tracker.Enter(LoadStage::kOpen);
  const FileId id{file.device(), file.inode()};
  std::lock_guard<std::mutex> lock(LibraryMutex());
  auto& open = OpenLibraries();
  if (auto it = open.find(id); it != open.end()) {
    if (std::shared_ptr<SharedLibrary> existing = it->second.lock()) {
      return existing;
    }
  }

  std::shared_ptr<SharedLibrary> library(new SharedLibrary);
  library->path_ = file.path();
  library->device_ = id.first;
  library->inode_ = id.second;
  library->mapping_ = std::make_unique<Mapping>();
  Mapping& mapping = *library->mapping_;
  if (auto kept = KeptMappings().find(id); kept != KeptMappings().end()) {
    // Still mapped from an earlier load: run its init again on that copy.
    mapping.handle = kept->second.handle;
    mapping.fd = kept->second.fd;
    mapping.kept = true;
  } else {
    mapping.threads_before = ProcessThreadIds();
    const LoadedObjects objects_before = CurrentLoadedObjects();
    if (absl::Status s = OpenOriginDependencies(file, elf, mapping.dependencies);
        !s.ok()) {
      library->CloseLocked();
      return s;
    }
    mapping.fd = file.ReleaseFd();
    dlerror();  // clear
    mapping.handle = dlopen(FdPath(mapping.fd).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (mapping.handle == nullptr) {
      absl::Status error = absl::FailedPreconditionError(absl::StrCat(
          "cannot open library ", library->path_, ": ",
          LoaderError(mapping.fd, library->path_),
          "; check that its dependencies are installed (ldd ", library->path_, ")"));
      library->CloseLocked();
      return error;
    }
    mapping.code = CodeLoadedSince(objects_before);
  }

  tracker.Enter(LoadStage::kSymbol);
  using InitFn = sy_error_t* (*)(const sy_host_api_t*, const sy_plugin_api_t**);
  auto init = reinterpret_cast<InitFn>(dlsym(mapping.handle, SY_PLUGIN_INIT_SYMBOL));
  if (init == nullptr) {
    library->CloseLocked();
    return absl::NotFoundError(absl::StrCat(
        "library ", library->path_, " does not export ", SY_PLUGIN_INIT_SYMBOL,
        "; it is not a Switchyard plugin, or was built without "
        "SY_PLUGIN_EXPORT on its entry point"));
  }

  tracker.Enter(LoadStage::kInit);
  const sy_plugin_api_t* api = nullptr;
  absl::Status init_status = TakeError(init(HostApi(), &api), "sy_plugin_init");
  absl::StatusOr<PluginTable> table =
      init_status.ok() ? CheckTable(api) : absl::StatusOr<PluginTable>(init_status);
  if (!table.ok()) {
    if (init_status.ok() &&
        table.status().code() == absl::StatusCode::kFailedPrecondition) {
      tracker.stage = LoadStage::kVersion;
    }
    library->CloseLocked();
    return table.status();
  }
  library->table_ = *std::move(table);
  open[id] = library;
  return library;
}

SharedLibrary::~SharedLibrary() {
  // A failed Open closed its mapping itself, with LibraryMutex held.
  if (mapping_ == nullptr) return;
  // The plugin's unload runs under LibraryMutex: once the last reference
  // is gone, another thread's Open of the same file finds the entry expired
  // and runs sy_plugin_init again on the same mapping; unload must finish
  // before that init starts, or it would tear down the new instance's state.
  std::lock_guard<std::mutex> lock(LibraryMutex());
  if (table_.unload != nullptr) table_.unload();
  auto& open = OpenLibraries();
  if (auto it = open.find({device_, inode_}); it != open.end() && it->second.expired()) {
    open.erase(it);
  }
  CloseLocked();
}

void SharedLibrary::CloseLocked() {
  if (mapping_ == nullptr) return;
  std::unique_ptr<Mapping> mapping = std::move(mapping_);
  if (mapping->kept) return;  // shared with the kept-mappings table
  const FileId id{device_, inode_};
  auto keep = [&](void* handle, std::string note) {
    KeptMappings()[id] = {handle, mapping->fd};
    if (!note.empty()) {
      Log(LogLevel::kWarning, note);
      UnloadNotes()[path_] = std::move(note);
    }
  };
  if (mapping->handle != nullptr) {
    if ((table_.flags & SY_PLUGIN_FLAG_RESIDENT) != 0) {
      return keep(mapping->handle, "");
    }
    const std::vector<pid_t> lingering =
        LingeringThreads(mapping->threads_before, mapping->code);
    if (!lingering.empty()) {
      constexpr size_t kShown = 8;
      std::vector<pid_t> shown(lingering.begin(),
                               lingering.begin() + std::min(lingering.size(), kShown));
      return keep(mapping->handle, absl::StrCat(
          "plugin library ", path_, " stays mapped: ", lingering.size(),
          " thread(s) started while it was loaded were still running after "
          "its unload slot returned (thread id ", absl::StrJoin(shown, ", "),
          lingering.size() > kShown ? ", …" : "",
          "), and closing the library would pull their code from under them; "
          "a plugin must join its threads in unload, or declare itself "
          "resident (SY_PLUGIN_FLAG_RESIDENT)"));
    }
    dlclose(mapping->handle);
  }
  for (auto it = mapping->dependencies.rbegin(); it != mapping->dependencies.rend(); ++it) {
    dlclose(*it);
  }
  if (mapping->fd < 0) return;
  if (mapping->handle != nullptr) {
    // Still loaded after our dlclose (-z nodelete, or another reference):
    // ld.so still knows it as /proc/self/fd/N, so that descriptor stays.
    void* still = dlopen(FdPath(mapping->fd).c_str(), RTLD_NOW | RTLD_NOLOAD);
    dlerror();  // NOLOAD's "not loaded" is the expected answer
    if (still != nullptr) return keep(still, "");
  }
  ::close(mapping->fd);
}

}  // namespace sy::core
