// One call's arguments held by the tuner: the tensors (flattened, as
// BoundCall::tensors) and what Dispatcher::Execute takes (CallArgs). The
// tuner measures on copies of a call's inputs (rotated, so no candidate is
// flattered by inputs left in cache) and computes the reference from them.
#ifndef SWITCHYARD_AUTOTUNE_CALL_INPUTS_H_
#define SWITCHYARD_AUTOTUNE_CALL_INPUTS_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/dispatcher.h"
#include "dispatcher/memory/tensor.h"

namespace sy::autotune {

class CallInputs {
 public:
  CallInputs() = default;
  // Movable, not copyable: per-argument pointers point into `tensors_`.
  CallInputs(CallInputs&&) = default;
  CallInputs& operator=(CallInputs&&) = default;
  CallInputs(const CallInputs&) = delete;
  CallInputs& operator=(const CallInputs&) = delete;

  // The arguments of `bound`, sharing its tensors. The attributes are
  // borrowed: string and list attributes point at the caller's memory, so
  // the result must not outlive the call `bound` came from.
  static CallInputs Of(const core::BoundCall& bound);

  // A copy whose tensors are new storage with the same values and the same
  // layout (shape, strides, so the same shape bucket), on the same device.
  absl::StatusOr<CallInputs> CopyOnDevice() const;

  // The same values on `device` (contiguous), for a reference computed there.
  absl::StatusOr<CallInputs> CopyTo(core::Dispatcher& dispatcher,
                                    core::Device& device) const;

  // What Execute takes; valid while this object lives and is not moved.
  core::CallArgs Args() const;

  const std::vector<core::Tensor>& tensors() const { return tensors_; }
  // Bytes the copy of one set takes (the extent each layout reaches).
  size_t bytes() const;

 private:
  void Rebuild();  // per_arg_ from tensors_ and the argument structure

  const core::OpDef* op_ = nullptr;
  std::vector<core::Tensor> tensors_;
  std::vector<int32_t> offsets_;  // BoundCall::offsets
  std::vector<const core::Tensor*> per_arg_;
  std::vector<int32_t> list_sizes_;
  std::vector<sy_attr_t> attrs_;
};

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_CALL_INPUTS_H_
