#include "dispatcher/loading/plugin_library.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "dispatcher/base/error.h"
#include "dispatcher/loading/host_api.h"

namespace sy::core {
namespace {

// The dynamic loader's own words for a failed open ("libdnnl.so.2: cannot
// open shared object file: …"): Boost.DLL reports only an errno-style
// message, so the open is repeated to read dlerror(). A library that failed
// to open ran none of its code, so repeating it is harmless.
std::string DynamicLoaderError(const std::string& path,
                               const boost::system::error_code& error) {
  dlerror();  // clear
  if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    dlclose(handle);  // opens now (a race with the file); keep Boost's text
    return error.message();
  }
  const char* text = dlerror();
  return text != nullptr ? std::string(text) : error.message();
}

std::mutex& LibraryMutex() {
  static std::mutex mu;
  return mu;
}

// Canonical path → the open copy. Weak, so the last runtime to let a plugin
// go closes it.
absl::flat_hash_map<std::string, std::weak_ptr<SharedLibrary>>& OpenLibraries() {
  static auto* open =
      new absl::flat_hash_map<std::string, std::weak_ptr<SharedLibrary>>;
  return *open;
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

}  // namespace

absl::StatusOr<std::shared_ptr<SharedLibrary>> SharedLibrary::Open(
    const std::string& path, LoadStage* stage) {
  std::error_code fs_error;
  std::string canonical = std::filesystem::canonical(path, fs_error).string();
  *stage = LoadStage::kOpen;
  if (fs_error) {
    return absl::NotFoundError(absl::StrCat("library ", path,
                                            " does not exist or cannot be "
                                            "resolved: ", fs_error.message()));
  }
  std::lock_guard<std::mutex> lock(LibraryMutex());
  auto& open = OpenLibraries();
  if (auto it = open.find(canonical); it != open.end()) {
    if (std::shared_ptr<SharedLibrary> existing = it->second.lock()) {
      return existing;
    }
  }

  boost::dll::shared_library library;
  boost::system::error_code error;
  library.load(canonical,
               boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now,
               error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open library ", canonical, ": ", DynamicLoaderError(canonical, error),
        "; check that its dependencies are installed (ldd ", canonical, ")"));
  }
  *stage = LoadStage::kSymbol;
  if (!library.has(SY_PLUGIN_INIT_SYMBOL)) {
    return absl::NotFoundError(absl::StrCat(
        "library ", canonical, " does not export ", SY_PLUGIN_INIT_SYMBOL,
        "; it is not a Switchyard plugin, or was built without "
        "SY_PLUGIN_EXPORT on its entry point"));
  }
  auto init = library.get<sy_error_t*(const sy_host_api_t*,
                                      const sy_plugin_api_t**)>(
      SY_PLUGIN_INIT_SYMBOL);

  *stage = LoadStage::kInit;
  const sy_plugin_api_t* api = nullptr;
  absl::Status init_status =
      TakeError(init(HostApi(), &api), "sy_plugin_init");
  if (!init_status.ok()) return init_status;
  absl::StatusOr<PluginTable> table = CheckTable(api);
  if (!table.ok()) {
    if (table.status().code() == absl::StatusCode::kFailedPrecondition) {
      *stage = LoadStage::kVersion;
    }
    return table.status();
  }
  std::shared_ptr<SharedLibrary> shared(
      new SharedLibrary(canonical, std::move(library), *std::move(table)));
  open[canonical] = shared;
  return shared;
}

SharedLibrary::~SharedLibrary() {
  if (table_.unload != nullptr) table_.unload();
  std::lock_guard<std::mutex> lock(LibraryMutex());
  auto& open = OpenLibraries();
  if (auto it = open.find(path_); it != open.end() && it->second.expired()) {
    open.erase(it);
  }
}

}  // namespace sy::core
