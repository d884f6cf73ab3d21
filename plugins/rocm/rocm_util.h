// Turning HIP runtime results into plugin errors (the shared GPU kernels
// reach HipError through gpu::RuntimeError, gpu_target.cc). Making a
// device current and checking launches are the SDK's
// (switchyard/gpu/kernel_util.h: UseDevice, CheckLaunched).
//
// Every message has the form "<where>: <what> (<HIP's name and text>);
// <what to do>", where `where` names the plugin and the op or device slot
// ("rocm plugin: softmax", "rocm device: allocate"), so a user sees which
// one failed and why, never a crash. The helpers return NULL on success.
#ifndef SWITCHYARD_PLUGINS_ROCM_ROCM_UTIL_H_
#define SWITCHYARD_PLUGINS_ROCM_ROCM_UTIL_H_

#include <hip/hip_runtime_api.h>

#include <string_view>

#include "switchyard/plugin.h"

namespace sy::rocm {

// NULL for hipSuccess; otherwise an error naming `where` and `what` was
// being done, with HIP's error name and string. Out-of-memory becomes
// RESOURCE_EXHAUSTED, an invalid value or handle INVALID_ARGUMENT, a
// missing device, driver or code object for the GPU UNAVAILABLE, anything
// else INTERNAL. Clears HIP's last-error state (hipGetLastError).
sy_error_t* HipError(hipError_t status, std::string_view where,
                     std::string_view what);

}  // namespace sy::rocm

#endif  // SWITCHYARD_PLUGINS_ROCM_ROCM_UTIL_H_
