// Turning CUDA runtime results into plugin errors (the shared GPU kernels
// reach CudaError through gpu::RuntimeError, gpu_target.cc). Making a
// device current and checking launches are the SDK's
// (switchyard/gpu/kernel_util.h: UseDevice, CheckLaunched).
//
// Every message has the form "cuda plugin: <where>: <what> (<CUDA's name
// and text>); <what to do>", so a user sees which op or device slot failed
// and why, never a crash. The helpers return NULL on success.
#ifndef SWITCHYARD_PLUGINS_CUDA_CUDA_UTIL_H_
#define SWITCHYARD_PLUGINS_CUDA_CUDA_UTIL_H_

#include <cuda_runtime_api.h>

#include <string_view>

#include "switchyard/plugin.h"

namespace sy::cuda {

// INVALID_ARGUMENT "cuda plugin: <where>: <what>".
sy_error_t* InvalidArgument(std::string_view where, std::string_view what);

// NULL for cudaSuccess; otherwise an error naming `where` and `what` was
// being done, with CUDA's error name and string. Out-of-memory becomes
// RESOURCE_EXHAUSTED, an invalid value INVALID_ARGUMENT, a missing device or
// driver UNAVAILABLE, anything else INTERNAL. Clears CUDA's sticky
// last-error state for non-sticky errors (cudaGetLastError).
sy_error_t* CudaError(cudaError_t status, std::string_view where,
                      std::string_view what);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_CUDA_UTIL_H_
