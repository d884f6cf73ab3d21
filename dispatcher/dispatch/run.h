// Run, the last step of a call (bind → resolve → run): executes a
// resolution — a view, a kernel (handing it scratch memory on request and
// moving on when it declines), a decomposition, or the cpu fallback — into
// outputs the caller gave (CallOut) or that run allocates (Call).
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_RUN_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_RUN_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/dispatch/resolve.h"
#include "dispatcher/trace/trace.h"

namespace sy::core {

class Dispatcher;

// Runs `resolution` of `bound`. Exactly one of `provided` (the caller's
// outputs, checked here: dtype, shape, device, no aliasing of an input, no
// self-overlap) and `produced` (non-null: new outputs are appended) is
// given. On error nothing is appended to `produced`.
absl::Status RunResolved(Dispatcher& dispatcher, const BoundCall& bound,
                         Resolution resolution,
                         absl::Span<const Tensor* const> provided,
                         TensorList* produced);

// While a trace is recorded (trace/trace.h), the kernel route stores the
// kernel's device time here, for the call's event; set by Execute around
// each call (thread-local, so nested calls keep their own).
trace::DeviceTime*& TracedDeviceTime();

// The dim order (outermost first, Tensor::Empty) in which the core lays
// out a kernel's output of `op` shaped `meta`, for a call on `inputs` (the
// call's tensor inputs in order, null for an omitted one): Note [Attention
// output layout], Note [Channels-last outputs], Note [Elementwise output
// layout] (ops/shape_context.h); empty: contiguous. One
// answer for NewKernelOutput and for a graph capture, which records the
// layout the kernel will write.
absl::Span<const int> KernelOutputOrder(const OpDef& op, const sy_tensor_meta_t& meta,
                                        absl::Span<const Tensor* const> inputs);

// The strides of that layout over `meta`'s shape (contiguous where the
// order is empty): what NewKernelOutput allocates, as a graph capture and
// the pattern pass need them.
void KernelOutputStrides(const OpDef& op, const sy_tensor_meta_t& meta,
                         absl::Span<const Tensor* const> inputs,
                         int64_t strides[SY_MAX_RANK]);

// Whether `op` may lay out an output of `meta` other than contiguously
// (KernelOutputOrder depends on more than the output's shape).
bool HasOwnOutputLayout(const OpDef& op, const sy_tensor_meta_t& meta);

// An output the core allocates for a kernel of `op`, laid out as the op
// asks (KernelOutputOrder).
absl::StatusOr<Tensor> NewKernelOutput(const OpDef& op, Device& device,
                                       const sy_tensor_meta_t& meta,
                                       absl::Span<const Tensor* const> inputs);

// The status of a kernel's failure (not a decline), naming op, kernel and
// device; takes `error`.
absl::Status KernelFailure(const OpDef& op, const KernelEntry& kernel,
                           const Device& device, sy_error_t* error);

// Checks a caller-provided output against what the op produces.
absl::Status CheckOutput(const BoundCall& bound, int index, const Tensor& out);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_RUN_H_
