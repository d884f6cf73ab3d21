// cuDNN 9, loaded at run time: the plugin never links libcudnn, so it still
// loads (and runs every other kernel) where cuDNN is absent; conv2d is then
// simply not registered, and `load` says why.
//
// CudnnLibrary::Get() dlopens the library once per process
// (RTLD_NOW | RTLD_LOCAL; "libcudnn.so.9", or the file named by the
// environment variable SWITCHYARD_CUDNN_LIBRARY, read with secure_getenv)
// and resolves the legacy-API functions below with dlsym, typed from
// cudnn.h (headers only at build time). The library is never closed.
//
// Thread safety: Get() is safe from any thread (a function-local static).
// cuDNN handles are not safe to share between threads that call at the same
// time (cudnnSetStream + launch), so CudnnHandleLease takes a handle of the
// stream's device out of a mutex-guarded free list for the length of one
// call and returns it after; handles are created on demand (at most one per
// concurrently calling thread and device) and kept until the process exits.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_LIBRARY_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_LIBRARY_H_

#include <cudnn.h>

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
  SY_CUDNN_FN(cudnnCreateTensorDescriptor);
  SY_CUDNN_FN(cudnnDestroyTensorDescriptor);
  SY_CUDNN_FN(cudnnSetTensorNdDescriptor);
  SY_CUDNN_FN(cudnnCreateFilterDescriptor);
  SY_CUDNN_FN(cudnnDestroyFilterDescriptor);
  SY_CUDNN_FN(cudnnSetFilter4dDescriptor);
  SY_CUDNN_FN(cudnnCreateConvolutionDescriptor);
  SY_CUDNN_FN(cudnnDestroyConvolutionDescriptor);
  SY_CUDNN_FN(cudnnSetConvolution2dDescriptor);
  SY_CUDNN_FN(cudnnSetConvolutionGroupCount);
  SY_CUDNN_FN(cudnnSetConvolutionMathType);
  SY_CUDNN_FN(cudnnGetConvolutionForwardAlgorithmMaxCount);
  SY_CUDNN_FN(cudnnGetConvolutionForwardAlgorithm_v7);
  SY_CUDNN_FN(cudnnFindConvolutionForwardAlgorithmEx);
  SY_CUDNN_FN(cudnnGetConvolutionForwardWorkspaceSize);
  SY_CUDNN_FN(cudnnConvolutionForward);
  SY_CUDNN_FN(cudnnAddTensor);
  SY_CUDNN_FN(cudnnSetTensor);
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

// A cuDNN handle of `stream`'s device, bound to its stream, held for the
// length of one kernel call (see the thread-safety note above).
class CudnnHandleLease {
 public:
  CudnnHandleLease() = default;
  ~CudnnHandleLease();
  CudnnHandleLease(const CudnnHandleLease&) = delete;
  CudnnHandleLease& operator=(const CudnnHandleLease&) = delete;

  sy_error_t* Acquire(const CudnnLibrary& lib, const gpu::Stream& stream,
                      std::string_view op);
  cudnnHandle_t get() const { return handle_; }

 private:
  int device_ = -1;
  cudnnHandle_t handle_ = nullptr;
};

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CUDNN_LIBRARY_H_
