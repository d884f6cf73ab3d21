// Handle lookups shared by the entry-point files. Each needs the calling
// thread's EpochScope (Guard makes one): what it returns stays valid until
// that scope ends.
#ifndef SWITCHYARD_API_SRC_LOOKUPS_H_
#define SWITCHYARD_API_SRC_LOOKUPS_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "api/src/context_state.h"
#include "api/src/handle_table.h"
#include "api/src/status.h"
#include "switchyard/switchyard.h"

namespace sy::capi {

inline absl::StatusOr<ContextState*> ContextOf(sy_context_t handle) {
  absl::StatusOr<ContextObject*> object =
      HandleTable::Instance().Find<ContextObject>(Token(handle), "context");
  if (!object.ok()) return object.status();
  return (*object)->state.get();
}

inline absl::StatusOr<OpEntry*> OpOf(sy_op_t handle) {
  return HandleTable::Instance().Find<OpEntry>(Token(handle), "op");
}

inline absl::StatusOr<TensorObject*> TensorOf(sy_tensor_t handle,
                                              absl::string_view what = "tensor") {
  return HandleTable::Instance().Find<TensorObject>(Token(handle), what);
}

// FailedPrecondition for a symbolic tensor (a result of an op recorded by
// a graph capture): it has no memory to read, export or copy.
inline absl::Status CheckNotSymbolic(const Tensor& tensor) {
  if (!tensor.symbolic()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      "the tensor is a symbolic tensor of a graph capture and has no values; "
      "launch the captured graph (sy_graph_launch) and use its outputs");
}

// The live device behind a device handle (FailedPrecondition when its
// plugin was unloaded); sets *context to the handle's context.
absl::StatusOr<Device*> LiveDeviceOf(sy_device_handle_t handle,
                                     ContextState** context);

// The communicator behind the token an attribute of kind
// SY_ATTR_COMMUNICATOR carries (distributed.h), which must belong to
// `context`; `what` names the argument in the error.
absl::StatusOr<const sy_communicator_ref_t*> CommunicatorRefIn(
    const ContextState* context, int64_t token, absl::string_view what);
// Registers `tensor` under a new handle of `context`.
absl::StatusOr<sy_tensor_t> NewTensorHandle(ContextState& context, Tensor tensor);

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_LOOKUPS_H_
