// The seam a graph capture hooks into. A call is bound, then resolved; if
// the calling thread has an active CallInterceptor, the call is handed to it
// instead of being run, and what it returns — symbolic tensors (Note
// [Symbolic tensors] in memory/tensor.h) — goes back to the caller as the
// call's outputs. The dispatcher defines this interface and never names an
// implementation; the fusion pass (fusion/) implements it, so the
// dependency points down.
//
// Thread-safety: an interception is per thread. Calls on other threads run
// as usual while one thread captures.
#ifndef SWITCHYARD_DISPATCHER_DISPATCH_CAPTURE_H_
#define SWITCHYARD_DISPATCHER_DISPATCH_CAPTURE_H_

#include <atomic>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "dispatcher/memory/tensor.h"

namespace sy::core {

struct BoundCall;   // bind.h
struct Resolution;  // resolve.h

using TensorList = absl::InlinedVector<Tensor, 2>;

class CallInterceptor {
 public:
  virtual ~CallInterceptor() = default;

  // Called instead of running a bound, resolved call. `provided` are the
  // caller's outputs (CallOut), else empty. Returns the call's outputs: one
  // tensor per bound.outputs entry (usually Tensor::Symbolic of those
  // metas), or nothing when `provided` is not empty. An error is returned
  // to the caller as the call's error; the interceptor decides whether it
  // ends its capture.
  virtual absl::StatusOr<TensorList> Record(
      const BoundCall& bound, const Resolution& resolution,
      absl::Span<const Tensor* const> provided) = 0;
};

// Makes `interceptor` (not owned; outlives this object) the calling
// thread's interceptor until this object is destroyed, which restores the
// one before (interceptions nest).
class ScopedInterception {
 public:
  explicit ScopedInterception(CallInterceptor* interceptor);
  ~ScopedInterception();
  ScopedInterception(const ScopedInterception&) = delete;
  ScopedInterception& operator=(const ScopedInterception&) = delete;

 private:
  CallInterceptor* previous_;
};

// The calling thread's interceptor, or null. One thread-local load.
CallInterceptor* ActiveInterceptor();

namespace capture_internal {
// Interceptions active on any thread. A thread sees its own changes in
// program order, so zero means the calling thread captures nothing, and
// the common case pays one relaxed load instead of a thread-local lookup.
inline std::atomic<int> active_anywhere{0};
}  // namespace capture_internal

inline bool CaptureActive() {
  return capture_internal::active_anywhere.load(std::memory_order_relaxed) != 0 &&
         ActiveInterceptor() != nullptr;
}

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_DISPATCH_CAPTURE_H_
