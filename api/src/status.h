// The C boundary's error convention: every entry point runs its body inside
// Guard, which turns an absl::Status (or any exception) into a
// sy_status_code_t and records the calling thread's last error.
#ifndef SWITCHYARD_API_SRC_STATUS_H_
#define SWITCHYARD_API_SRC_STATUS_H_

#include <exception>
#include <new>
#include <string>

#include "absl/status/status.h"
#include "api/src/epoch.h"
#include "switchyard/switchyard.h"

namespace sy::core {}  // declared by the core's headers

namespace sy::capi {

// The C API is a thin layer over the core; its code names core types
// (Tensor, OpDef, Runtime) unqualified.
using namespace ::sy::core;  // NOLINT(build/namespaces)

// Records `status` as this thread's last error — its message prefixed with
// "<function>: " — and returns its code. OK clears the message.
sy_status_code_t Finish(const char* function, const absl::Status& status);

// Keeps `text` in this thread's result slot (for functions that hand out a
// string valid until the thread's next call) and returns it.
const char* KeepThreadText(std::string text);

// InvalidArgument "<what> is NULL" unless `pointer` is set.
absl::Status CheckNotNull(const void* pointer, const char* what);

// A count with its array: the count must be >= 0 and the array non-NULL
// when the count is positive.
absl::Status CheckArray(const void* array, int64_t count, const char* what);

// An out-struct: non-NULL with struct_size at least `minimum` (the size of
// its 1.0 fields).
absl::Status CheckStructSize(size_t struct_size, size_t minimum,
                             const char* what, const char* type);
template <typename T>
absl::Status CheckOutStruct(const T* out, size_t minimum, const char* what,
                            const char* type) {
  if (out == nullptr) return CheckNotNull(out, what);
  return CheckStructSize(out->struct_size, minimum, what, type);
}

// Writes `full` into the caller's out-struct `out` (whose struct_size may
// be smaller or larger than ours): copies the fields the caller's size
// covers and keeps the caller's struct_size.
template <typename T>
void WriteOutStruct(T* out, T full) {
  const size_t caller_size = out->struct_size;
  full.struct_size = caller_size;
  const size_t n = caller_size < sizeof(T) ? caller_size : sizeof(T);
  __builtin_memcpy(static_cast<void*>(out), &full, n);
}

// Runs `body` (returning absl::Status) and finishes with its status. No
// exception escapes: a std::bad_alloc becomes RESOURCE_EXHAUSTED, anything
// else INTERNAL (a bug in Switchyard, and the message says so). The body
// runs pinned (EpochScope, Note [Epoch reclamation]): the objects behind
// the handles it looks up stay valid until it returns.
template <typename Body>
sy_status_code_t Guard(const char* function, Body&& body) noexcept {
  try {
    EpochScope pinned;
    return Finish(function, body());
  } catch (const std::bad_alloc&) {
    return Finish(function, absl::ResourceExhaustedError("out of host memory"));
  } catch (const std::exception& e) {
    try {
      return Finish(function,
                    absl::InternalError(std::string("unexpected exception (a "
                                                    "Switchyard bug; please "
                                                    "report it): ") +
                                        e.what()));
    } catch (...) {
    }
  } catch (...) {
  }
  return Finish(function, absl::InternalError("unexpected exception"));
}

}  // namespace sy::capi

#endif  // SWITCHYARD_API_SRC_STATUS_H_
