// cuDNN 9, loaded at run time: the plugin never links libcudnn, so it still
// loads (and runs every other kernel) where cuDNN is absent; conv2d is then
// simply not registered, and `load` says why.
//
// CudnnLibrary::Get() dlopens the library once per process
// (RTLD_NOW | RTLD_LOCAL; "libcudnn.so.9", or the file named by the
// environment variable SWITCHYARD_CUDNN_LIBRARY, read with secure_getenv)
// and resolves the graph-API functions below with dlsym, typed from
// cudnn.h (headers only at build time). The library is never closed.
//
// Thread safety: Get() is safe from any thread (a function-local static).
// Execution plans are built for one handle per device, and a handle is not
// safe to share between threads that call at the same time (cudnnSetStream
// + execute), so CudnnHandleLease holds the device's one handle, under its
// mutex, for the length of one call; handles are created on first use and
// kept until the process exits. Calls on one device share its one stream
// anyway, so the lock serializes only host work.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_LIBRARY_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_LIBRARY_H_

#include <cudnn.h>

#include <mutex>
#include <string>
#include <string_view>

#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::cuda {

// The oldest cuDNN the plugin accepts (cudnnGetVersion()): 9.0.0.
inline constexpr size_t kMinCudnnVersion = 90000;

struct CudnnLibrary {
#define SY_CUDNN_FN(name) decltype(&::name) name = nullptr
  SY_CUDNN_FN(cudnnGetVersion);
  SY_CUDNN_FN(cudnnGetErrorString);
  SY_CUDNN_FN(cudnnCreate);
  SY_CUDNN_FN(cudnnDestroy);
  SY_CUDNN_FN(cudnnSetStream);
  // The graph (backend) API: conv2d and attention (cudnn_graph.h).
  SY_CUDNN_FN(cudnnBackendCreateDescriptor);
  SY_CUDNN_FN(cudnnBackendDestroyDescriptor);
  SY_CUDNN_FN(cudnnBackendSetAttribute);
  SY_CUDNN_FN(cudnnBackendGetAttribute);
  SY_CUDNN_FN(cudnnBackendFinalize);
  SY_CUDNN_FN(cudnnBackendExecute);
  // Optional (NULL when absent): the last error's details, for messages.
  SY_CUDNN_FN(cudnnGetLastErrorString);
#undef SY_CUDNN_FN
  size_t version = 0;   // cudnnGetVersion(), e.g. 91900
  std::string path;     // what was dlopened

  // The loaded library, or NULL with *why_not set to a plain sentence
  // ("cuDNN not found (libcudnn.so.9: <dlerror>)", "cuDNN 8.9.7 at … is
  // too old", "… lacks cudnnXxx"). Loads once per process.
  static const CudnnLibrary* Get(std::string* why_not);
};

// cudnnGetVersion()'s number as "9.19.0".
std::string CudnnVersionString(size_t version);

// NULL for CUDNN_STATUS_SUCCESS; otherwise "cuda plugin: <op>: <what>
// (cuDNN: <cudnnGetErrorString>); <advice>". NOT_SUPPORTED becomes
// UNIMPLEMENTED, BAD_PARAM INVALID_ARGUMENT, allocation failures
// RESOURCE_EXHAUSTED, anything else INTERNAL.
sy_error_t* CudnnError(const CudnnLibrary& lib, cudnnStatus_t status,
                       std::string_view op, std::string_view what);
// The same message as text (for failures kept in a cache, which cannot keep
// an error object), with its code in *out_code (may be NULL).
std::string CudnnErrorText(const CudnnLibrary& lib, cudnnStatus_t status,
                           std::string_view op, std::string_view what,
                           sy_status_code_t* out_code);

// The cuDNN handle of `stream`'s device, bound to its stream, held (with
// the device's lock) from Acquire to the lease's end (one kernel call).
class CudnnHandleLease {
 public:
  CudnnHandleLease() = default;
  ~CudnnHandleLease();
  CudnnHandleLease(const CudnnHandleLease&) = delete;
  CudnnHandleLease& operator=(const CudnnHandleLease&) = delete;

  // Takes the device's handle (creating it the first time) and binds it to
  // `stream`. Again in the same lease: binds it to `stream` again (a call
  // acquires only when it needs cuDNN; a captured graph's replay does not).
  sy_error_t* Acquire(const CudnnLibrary& lib, const gpu::Stream& stream,
                      std::string_view op);
  // Binds the acquired handle to `stream` (a capture's private stream),
  // cudnnSetStream only when the binding changes.
  sy_error_t* Bind(const CudnnLibrary& lib, cudaStream_t stream, std::string_view op);
  cudnnHandle_t get() const { return handle_; }

 private:
  std::mutex* mu_ = nullptr;
  int device_ = 0;
  cudnnHandle_t handle_ = nullptr;
};

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_LIBRARY_H_
