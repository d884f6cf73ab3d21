// NCCL, loaded at run time: the plugin never links libnccl, so it still
// loads (and runs every other kernel) where NCCL is absent; cuda
// communicators then fail to be made with a message that says what to
// install, and `load` notes it in the load record.
//
// NcclLibrary::Get() dlopens the library once per process (RTLD_NOW |
// RTLD_LOCAL): the file named by SWITCHYARD_NCCL_LIBRARY (read with
// secure_getenv), else "libnccl.so.2" on the loader's path, else the CUDA
// toolkit's lib directory the plugin was built with (CUDA ships NCCL
// there). The functions are typed from nccl.h (headers only at build
// time). The library is never closed.
#ifndef SWITCHYARD_PLUGINS_CUDA_COLLECTIVES_NCCL_LIBRARY_H_
#define SWITCHYARD_PLUGINS_CUDA_COLLECTIVES_NCCL_LIBRARY_H_

#include <nccl.h>

#include <string>
#include <string_view>

#include "switchyard/plugin.h"

namespace sy::cuda {

struct NcclLibrary {
#define SY_NCCL_FN(name) decltype(&::name) name = nullptr
  SY_NCCL_FN(ncclGetVersion);
  SY_NCCL_FN(ncclGetErrorString);
  SY_NCCL_FN(ncclGetUniqueId);
  SY_NCCL_FN(ncclCommInitRank);
  SY_NCCL_FN(ncclCommDestroy);
  SY_NCCL_FN(ncclCommAbort);
  SY_NCCL_FN(ncclCommGetAsyncError);
  SY_NCCL_FN(ncclAllReduce);
  SY_NCCL_FN(ncclAllGather);
  SY_NCCL_FN(ncclReduceScatter);
  SY_NCCL_FN(ncclBroadcast);
  SY_NCCL_FN(ncclSend);
  SY_NCCL_FN(ncclRecv);
  SY_NCCL_FN(ncclGroupStart);
  SY_NCCL_FN(ncclGroupEnd);
  // Optional (NULL when absent): the last error's details, for messages.
  SY_NCCL_FN(ncclGetLastError);
#undef SY_NCCL_FN
  int version = 0;   // ncclGetVersion(), e.g. 22805
  std::string path;  // what was dlopened

  // The loaded library, or NULL with *why_not a plain sentence ("NCCL not
  // found (libnccl.so.2: <dlerror>; …)", "NCCL 2.7 … is too old: …").
  static const NcclLibrary* Get(std::string* why_not);
};

// The oldest NCCL the plugin takes: 2.10 (ncclAvg).
inline constexpr int kMinNcclVersion = 21000;

// "2.28.5".
std::string NcclVersionString(int version);

// NULL for ncclSuccess; otherwise "<what> (NCCL: <error string>; <last
// error>)" as text, for the callers' messages.
std::string NcclErrorText(const NcclLibrary& lib, ncclResult_t result,
                          std::string_view what);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_COLLECTIVES_NCCL_LIBRARY_H_
