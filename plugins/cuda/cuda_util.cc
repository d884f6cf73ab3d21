#include "cuda_util.h"

#include "switchyard/plugin.hpp"

namespace sy::cuda {

using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

sy_error_t* InvalidArgument(std::string_view where, std::string_view what) {
  return MakeError(SY_STATUS_INVALID_ARGUMENT,
                   StrCat("cuda plugin: ", where, ": ", what));
}

sy_error_t* CudaError(cudaError_t status, std::string_view where,
                      std::string_view what) {
  if (status == cudaSuccess) return nullptr;
  // Reading the error resets a non-sticky one, so the next call on this
  // thread does not report it again.
  (void)cudaGetLastError();
  sy_status_code_t code = SY_STATUS_INTERNAL;
  std::string_view advice =
      "this is a CUDA failure; check the device with nvidia-smi and run "
      "under compute-sanitizer to find the cause";
  switch (status) {
    case cudaErrorMemoryAllocation:
      code = SY_STATUS_RESOURCE_EXHAUSTED;
      advice = "free device memory (drop tensors) or use smaller tensors";
      break;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidResourceHandle:
      code = SY_STATUS_INVALID_ARGUMENT;
      advice = "pass memory, streams and events of this device";
      break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
      code = SY_STATUS_UNAVAILABLE;
      advice = "check that a CUDA GPU and a driver for CUDA 13 are installed";
      break;
    default:
      break;
  }
  return MakeError(code, StrCat("cuda plugin: ", where, ": ", what, " (",
                                cudaGetErrorName(status), ": ",
                                cudaGetErrorString(status), "); ", advice));
}

}  // namespace sy::cuda
