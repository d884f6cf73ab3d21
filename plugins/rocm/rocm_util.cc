#include "rocm_util.h"

#include "switchyard/plugin.hpp"

namespace sy::rocm {

using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

sy_error_t* HipError(hipError_t status, std::string_view where,
                     std::string_view what) {
  if (status == hipSuccess) return nullptr;
  // Reading the error resets it, so the next call on this thread does not
  // report it again.
  (void)hipGetLastError();
  sy_status_code_t code = SY_STATUS_INTERNAL;
  std::string_view advice =
      "this is a HIP failure; check the device with rocm-smi and rerun with "
      "AMD_LOG_LEVEL=3 to see the runtime's log";
  switch (status) {
    case hipErrorOutOfMemory:
      code = SY_STATUS_RESOURCE_EXHAUSTED;
      advice = "free device memory (drop tensors) or use smaller tensors";
      break;
    case hipErrorInvalidValue:
    case hipErrorInvalidDevicePointer:
    case hipErrorInvalidHandle:
      code = SY_STATUS_INVALID_ARGUMENT;
      advice = "pass memory, streams and events of this device";
      break;
    case hipErrorNoDevice:
    case hipErrorInsufficientDriver:
    case hipErrorInvalidDevice:
      code = SY_STATUS_UNAVAILABLE;
      advice = "check that an AMD GPU, the amdgpu kernel driver and ROCm 5.2 "
               "or newer are installed (rocminfo lists the GPU)";
      break;
    case hipErrorNoBinaryForGpu:
    case hipErrorInvalidDeviceFunction:
      code = SY_STATUS_UNAVAILABLE;
      advice = "the plugin has no code object for this GPU's architecture; "
               "rebuild it with -DSWITCHYARD_ROCM_ARCHITECTURES listing the "
               "GPU's gfx name (rocminfo shows it)";
      break;
    default:
      break;
  }
  return MakeError(code, StrCat(where, ": ", what, " (",
                                hipGetErrorName(status), ": ",
                                hipGetErrorString(status), "); ", advice));
}

}  // namespace sy::rocm
