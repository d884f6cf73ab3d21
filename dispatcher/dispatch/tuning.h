// The seam the autotuner (autotune/) hooks into. The dispatcher defines the
// interface and never names an implementation, so the dependency points
// down, as with graph capture (capture.h).
//
// While a hook is installed (RuntimeState::tuning) and tuning is active
// (KernelRegistry::SetTuningActive), every dispatch slot with more than one
// choice — several kernels, or a kernel with variants — reads its bucket
// table (Note [Bucket tables] in registry/kernel_table.h). A call whose
// bucket has no entry is handed to the hook before it runs the slot's
// current choice; the hook may measure the candidates (on this thread or
// another) and publish a verdict with KernelRegistry::SetTunedChoice, which
// later calls of the bucket then read. A slot with one choice never calls
// the hook, and a published verdict costs a call one hash lookup.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_TUNING_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_TUNING_H_

#include "dispatcher/registry/kernel_table.h"

namespace sy::core {

struct BoundCall;  // bind.h

class TuningHook {
 public:
  virtual ~TuningHook() = default;

  // A call of (op, key, bucket) that has no verdict yet. `slot` is the
  // call's dispatch slot (its choices are the candidates, best first by the
  // static order). Called on the calling thread, before the call runs; may
  // block while it measures, but must not call back into this call's
  // outputs. Thread-safe: calls of many threads arrive at once (the hook
  // decides which thread tunes a bucket while the others run the current
  // choice). Errors are the hook's to log; the call runs regardless.
  virtual void OnUntunedCall(const BoundCall& bound,
                             const DispatchSlot& slot) = 0;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_TUNING_H_
