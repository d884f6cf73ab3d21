// dlopen of cuDNN 9 and the handle pool (cudnn_library.h). The library is
// opened once and never closed: kernels and cached handles point into it
// for the life of the process. Handles are deliberately never destroyed:
// at process exit the CUDA context may already be gone, and destroying a
// handle then can crash; the driver frees them with the context.
#include "kernels/cudnn_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

constexpr const char* kDefaultLibrary = "libcudnn.so.9";

struct Loaded {
  CudnnLibrary lib;
  bool ok = false;
  std::string why_not;
};

Loaded LoadOnce() {
  Loaded out;
  const char* env = secure_getenv("SWITCHYARD_CUDNN_LIBRARY");
  const std::string path = env != nullptr && env[0] != '\0' ? env : kDefaultLibrary;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* err = dlerror();
    out.why_not = StrCat("cuDNN not found (", path, ": ",
                         err != nullptr ? err : "dlopen failed", ")");
    return out;
  }
  CudnnLibrary& lib = out.lib;
  lib.path = path;
  std::string missing;
#define SY_CUDNN_RESOLVE(name)                                              \
  lib.name = reinterpret_cast<decltype(lib.name)>(dlsym(handle, #name));   \
  if (lib.name == nullptr && missing.empty()) missing = #name
  SY_CUDNN_RESOLVE(cudnnGetVersion);
  SY_CUDNN_RESOLVE(cudnnGetErrorString);
  SY_CUDNN_RESOLVE(cudnnCreate);
  SY_CUDNN_RESOLVE(cudnnDestroy);
  SY_CUDNN_RESOLVE(cudnnSetStream);
  SY_CUDNN_RESOLVE(cudnnBackendCreateDescriptor);
  SY_CUDNN_RESOLVE(cudnnBackendDestroyDescriptor);
  SY_CUDNN_RESOLVE(cudnnBackendSetAttribute);
  SY_CUDNN_RESOLVE(cudnnBackendGetAttribute);
  SY_CUDNN_RESOLVE(cudnnBackendFinalize);
  SY_CUDNN_RESOLVE(cudnnBackendExecute);
#undef SY_CUDNN_RESOLVE
  lib.cudnnGetLastErrorString = reinterpret_cast<decltype(lib.cudnnGetLastErrorString)>(
      dlsym(handle, "cudnnGetLastErrorString"));
  if (lib.cudnnGetVersion != nullptr) lib.version = lib.cudnnGetVersion();
  if (lib.version != 0 && lib.version < kMinCudnnVersion) {
    out.why_not = StrCat("cuDNN ", CudnnVersionString(lib.version), " (", path,
                         ") is too old; cuDNN 9 or newer is needed");
    return out;  // the library stays open: harmless, and dlclose is risky
  }
  if (!missing.empty()) {
    out.why_not = StrCat("cuDNN at ", path, " lacks ", missing,
                         " (not a cuDNN 9 library?)");
    return out;
  }
  out.ok = true;
  return out;
}

// One handle per device, created on first use and never destroyed (see
// the file comment), each with its lock.
constexpr int kMaxDevices = 64;
struct Pool {
  std::mutex mu[kMaxDevices];
  cudnnHandle_t handle[kMaxDevices] = {};
  // The stream each handle was last bound to: cudnnSetStream asks the
  // runtime for the stream's priority and the device's range, about 1 µs
  // a call, so a lease binds only when the stream changes.
  cudaStream_t stream[kMaxDevices] = {};
  bool bound[kMaxDevices] = {};
};

Pool& ThePool() {
  static Pool* pool = new Pool;  // leaked on purpose: outlives static dtors
  return *pool;
}

}  // namespace

std::string CudnnVersionString(size_t version) {
  // cuDNN 9 encodes major*10000 + minor*100 + patch.
  return StrCat(version / 10000, ".", (version / 100) % 100, ".", version % 100);
}

const CudnnLibrary* CudnnLibrary::Get(std::string* why_not) {
  static const Loaded loaded = LoadOnce();
  if (!loaded.ok) {
    if (why_not != nullptr) *why_not = loaded.why_not;
    return nullptr;
  }
  return &loaded.lib;
}

std::string CudnnErrorText(const CudnnLibrary& lib, cudnnStatus_t status,
                           std::string_view op, std::string_view what,
                           sy_status_code_t* out_code) {
  sy_status_code_t code = SY_STATUS_INTERNAL;
  std::string advice = "report it with the shapes and dtypes";
  // cuDNN 9 statuses carry sub-codes; the category is the thousands.
  const int category = static_cast<int>(status) / 1000 * 1000;
  if (category == CUDNN_STATUS_NOT_SUPPORTED) {
    code = SY_STATUS_UNIMPLEMENTED;
    advice = StrCat("cuDNN cannot run this configuration; run ", op,
                    " on cpu");
  } else if (category == CUDNN_STATUS_BAD_PARAM) {
    code = SY_STATUS_INVALID_ARGUMENT;
    advice = "check the shapes, strides and attributes";
  } else if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
             status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
    code = SY_STATUS_RESOURCE_EXHAUSTED;
    advice = "free device memory or use a smaller batch";
  }
  std::string detail;
  if (lib.cudnnGetLastErrorString != nullptr) {
    char text[512] = {};
    lib.cudnnGetLastErrorString(text, sizeof text);
    if (text[0] != '\0') detail = StrCat("; ", text);
  }
  if (out_code != nullptr) *out_code = code;
  return StrCat("cuda plugin: ", op, ": ", what, " (cuDNN: ",
                lib.cudnnGetErrorString(status), detail, "); ", advice);
}

sy_error_t* CudnnError(const CudnnLibrary& lib, cudnnStatus_t status,
                       std::string_view op, std::string_view what) {
  if (status == CUDNN_STATUS_SUCCESS) return nullptr;
  sy_status_code_t code = SY_STATUS_INTERNAL;
  const std::string text = CudnnErrorText(lib, status, op, what, &code);
  return MakeError(code, text);
}

CudnnHandleLease::~CudnnHandleLease() {
  if (mu_ != nullptr) mu_->unlock();
}

sy_error_t* CudnnHandleLease::Acquire(const CudnnLibrary& lib,
                                      const gpu::Stream& stream,
                                      std::string_view op) {
  if (mu_ == nullptr) {
    const int device = stream.device;
    if (device < 0 || device >= kMaxDevices) {
      return MakeError(SY_STATUS_UNIMPLEMENTED,
                       StrCat("cuda plugin: ", op, ": device ", device,
                              " is beyond the ", kMaxDevices,
                              " devices the cuDNN kernels support"));
    }
    device_ = device;
    mu_ = &ThePool().mu[device];
    mu_->lock();
  }
  cudnnHandle_t& h = ThePool().handle[device_];
  if (h == nullptr) {
    // The stream's device is current (BeginCall): the handle belongs to it.
    SY_PLUGIN_RETURN_IF_ERROR(
        CudnnError(lib, lib.cudnnCreate(&h), op, "cudnnCreate failed"));
  }
  handle_ = h;
  return Bind(lib, stream.stream, op);
}

sy_error_t* CudnnHandleLease::Bind(const CudnnLibrary& lib, cudaStream_t stream,
                                   std::string_view op) {
  bool& bound = ThePool().bound[device_];
  cudaStream_t& bound_stream = ThePool().stream[device_];
  if (bound && bound_stream == stream) return nullptr;
  bound = false;
  SY_PLUGIN_RETURN_IF_ERROR(CudnnError(lib, lib.cudnnSetStream(handle_, stream), op,
                                       "cudnnSetStream failed"));
  bound = true;
  bound_stream = stream;
  return nullptr;
}

}  // namespace sy::cuda
