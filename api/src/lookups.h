// Handle lookups shared by several entry-point files.
#ifndef SWITCHYARD_API_SRC_LOOKUPS_H_
#define SWITCHYARD_API_SRC_LOOKUPS_H_

#include <memory>

#include "api/src/status.h"
#include "absl/status/statusor.h"
#include "api/src/context_state.h"
#include "switchyard/switchyard.h"

namespace sy::capi {

// The live device behind a device handle (FailedPrecondition when its
// plugin was unloaded); sets *context to the handle's context.
absl::StatusOr<Device*> LiveDeviceOf(sy_device_handle_t handle,
                                     std::shared_ptr<ContextState>* context);

// Registers `tensor` under a new handle of `context`.
absl::StatusOr<sy_tensor_t> NewTensorHandle(
    const std::shared_ptr<ContextState>& context, const Tensor& tensor);

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_LOOKUPS_H_
