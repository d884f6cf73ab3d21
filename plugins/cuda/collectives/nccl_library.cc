// dlopen of NCCL (nccl_library.h). Opened once, never closed: communicators
// and their enqueued work point into it for the life of the process.
#include "collectives/nccl_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::StrCat;

struct Loaded {
  NcclLibrary lib;
  bool ok = false;
  std::string why_not;
};

// Where to look, in order (nccl_library.h).
std::vector<std::string> Candidates() {
  std::vector<std::string> out;
  const char* env = secure_getenv("SWITCHYARD_NCCL_LIBRARY");
  if (env != nullptr && env[0] != '\0') {
    out.emplace_back(env);  // named explicitly: nothing else is tried
    return out;
  }
  out.emplace_back("libnccl.so.2");
#if defined(SY_CUDA_TOOLKIT_LIBRARY_DIR)
  out.emplace_back(StrCat(SY_CUDA_TOOLKIT_LIBRARY_DIR, "/libnccl.so.2"));
#endif
  return out;
}

Loaded LoadOnce() {
  Loaded out;
  void* handle = nullptr;
  std::string tried;
  for (const std::string& path : Candidates()) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) {
      out.lib.path = path;
      break;
    }
    const char* err = dlerror();
    tried = StrCat(tried, tried.empty() ? "" : "; ", path, ": ",
                   err != nullptr ? err : "dlopen failed");
  }
  if (handle == nullptr) {
    out.why_not = StrCat("NCCL not found (", tried, ")");
    return out;
  }
  NcclLibrary& lib = out.lib;
  std::string missing;
#define SY_NCCL_RESOLVE(name)                                             \
  lib.name = reinterpret_cast<decltype(lib.name)>(dlsym(handle, #name)); \
  if (lib.name == nullptr && missing.empty()) missing = #name
  SY_NCCL_RESOLVE(ncclGetVersion);
  SY_NCCL_RESOLVE(ncclGetErrorString);
  SY_NCCL_RESOLVE(ncclGetUniqueId);
  SY_NCCL_RESOLVE(ncclCommInitRank);
  SY_NCCL_RESOLVE(ncclCommDestroy);
  SY_NCCL_RESOLVE(ncclCommAbort);
  SY_NCCL_RESOLVE(ncclCommGetAsyncError);
  SY_NCCL_RESOLVE(ncclAllReduce);
  SY_NCCL_RESOLVE(ncclAllGather);
  SY_NCCL_RESOLVE(ncclReduceScatter);
  SY_NCCL_RESOLVE(ncclBroadcast);
  SY_NCCL_RESOLVE(ncclSend);
  SY_NCCL_RESOLVE(ncclRecv);
  SY_NCCL_RESOLVE(ncclGroupStart);
  SY_NCCL_RESOLVE(ncclGroupEnd);
#undef SY_NCCL_RESOLVE
  lib.ncclGetLastError = reinterpret_cast<decltype(lib.ncclGetLastError)>(
      dlsym(handle, "ncclGetLastError"));
  if (lib.ncclGetVersion != nullptr) lib.ncclGetVersion(&lib.version);
  if (!missing.empty()) {
    out.why_not = StrCat("NCCL at ", lib.path, " lacks ", missing,
                         " (not an NCCL 2 library?)");
    return out;
  }
  if (lib.version < kMinNcclVersion) {
    out.why_not = StrCat("NCCL ", NcclVersionString(lib.version), " (",
                         lib.path, ") is too old; NCCL 2.10 or newer is needed");
    return out;  // stays open: harmless, and dlclose is risky
  }
  out.ok = true;
  return out;
}

}  // namespace

std::string NcclVersionString(int version) {
  // NCCL >= 2.9 encodes major*10000 + minor*100 + patch.
  return StrCat(version / 10000, ".", (version / 100) % 100, ".", version % 100);
}

const NcclLibrary* NcclLibrary::Get(std::string* why_not) {
  static const Loaded loaded = LoadOnce();
  if (!loaded.ok) {
    if (why_not != nullptr) *why_not = loaded.why_not;
    return nullptr;
  }
  return &loaded.lib;
}

std::string NcclErrorText(const NcclLibrary& lib, ncclResult_t result,
                          std::string_view what) {
  const char* last = lib.ncclGetLastError != nullptr ? lib.ncclGetLastError(nullptr)
                                                     : nullptr;
  return StrCat(what, " (NCCL: ", lib.ncclGetErrorString(result),
                last != nullptr && last[0] != '\0' ? StrCat("; ", last) : "", ")");
}

}  // namespace sy::cuda
