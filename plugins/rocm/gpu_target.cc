// What the SDK's shared GPU kernels (sdk/gpu, switchyard/gpu/target.h)
// need from the rocm plugin: who they run for, and HIP's errors in words.
#include "rocm_device.h"
#include "rocm_util.h"
#include "switchyard/gpu/target.h"

namespace sy::gpu {

const Target& ThisTarget() {
  static constexpr Target kTarget = {
      .plugin = "rocm",
      .label = "rocm plugin",
      .device_type = "rocm",
      .runtime = "ROCm",
      .dlpack_device_type = rocm::kDlpackRocm,
      .priority = 10,
  };
  return kTarget;
}

sy_error_t* RuntimeError(Error status, std::string_view where,
                         std::string_view what) {
  return rocm::HipError(status, where, what);
}

}  // namespace sy::gpu
