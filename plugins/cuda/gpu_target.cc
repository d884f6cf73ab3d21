// What the SDK's shared GPU kernels (sdk/gpu, switchyard/gpu/target.h)
// need from the cuda plugin: who they run for, and CUDA's errors in words.
#include "cuda_device.h"
#include "cuda_util.h"
#include "switchyard/gpu/target.h"

namespace sy::gpu {

const Target& ThisTarget() {
  static constexpr Target kTarget = {
      .plugin = "cuda",
      .label = "cuda plugin",
      .device_type = "cuda",
      .runtime = "CUDA",
      .dlpack_device_type = cuda::kDlpackCuda,
      .priority = 10,
  };
  return kTarget;
}

sy_error_t* RuntimeError(Error status, std::string_view where,
                         std::string_view what) {
  return cuda::CudaError(status, where, what);
}

}  // namespace sy::gpu
