#include "switchyard/gpu/device_checks.h"

#include <stdlib.h>  // secure_getenv

#include <atomic>
#include <cstring>
#include <string>

#include "switchyard/gpu/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {
namespace {

using ::sy::plugin::StrCat;

// The flag as the host sees it. The kernels that set it have finished when
// the host looks (it synchronized first), so an atomic_ref read is only
// there to keep the compiler from caching the word.
unsigned int TakeFlag(const Stream& stream, DeviceCheck check) {
  std::atomic_ref<unsigned int> flag(
      stream.checks->raised[static_cast<int>(check)]);
  return flag.exchange(0, std::memory_order_acq_rel);
}

// What each check says when it is reported at a synchronization: the call
// is not known any more, so the message names the op and the stream.
struct DeferredText {
  std::string_view op;
  std::string_view what;
  std::string_view remedy;
};
constexpr DeferredText kDeferred[kNumDeviceChecks] = {
    {"embedding",
     "input 'indices' held an index out of range (outside [0, rows of input "
     "'weight')); the rows of those indices were written as zeros",
     "pass indices in range"},
    {"div.Tensor",
     "an integer input 'b' held a zero element, and integer division by 0 "
     "has no result; those elements were written as 0",
     "divide by nonzero values, or cast the inputs to a floating dtype"},
    {"pow.Tensor",
     "an integer input 'b' held a negative element, and an integer cannot be "
     "raised to a negative power; those elements were written as 0",
     "use nonnegative exponents, or cast 'a' to a floating dtype first"},
};

}  // namespace

bool ChecksAtCall() {
  static const bool at_call = [] {
    const char* v = secure_getenv("SWITCHYARD_GPU_SYNC_CHECKS");
    return v != nullptr && std::strcmp(v, "1") == 0;
  }();
  return at_call;
}

sy_error_t* CheckAtCall(const Stream& stream, DeviceCheck check,
                        std::string_view op, std::string_view what_failed) {
  SY_PLUGIN_RETURN_IF_ERROR(RuntimeError(StreamSynchronize(stream.stream),
                                         Where(op), "running the kernel failed"));
  if (TakeFlag(stream, check) == 0) return nullptr;
  return OpError(op, what_failed);
}

sy_error_t* TakeRaisedChecks(const Stream& stream) {
  if (stream.checks == nullptr) return nullptr;
  std::string failed;
  for (int c = 0; c < kNumDeviceChecks; ++c) {
    if (TakeFlag(stream, static_cast<DeviceCheck>(c)) == 0) continue;
    const DeferredText& t = kDeferred[c];
    if (!failed.empty()) failed += "; and ";
    failed += StrCat(t.op, ": ", t.what, "; ", t.remedy);
  }
  if (failed.empty()) return nullptr;
  return plugin::MakeError(
      SY_STATUS_INVALID_ARGUMENT,
      StrCat(ThisTarget().label, ": a call on ", ThisTarget().device_type, ":",
             stream.device, " since the stream's last synchronization failed "
             "its check on the device: ", failed,
             ". (Checks on the device are reported at the next "
             "synchronization; set SWITCHYARD_GPU_SYNC_CHECKS=1 to have the "
             "call itself fail.)"));
}

Error AllocateDeviceChecks(Stream* stream) {
  void* host = nullptr;
  Error status = HostAllocMapped(&host, sizeof(DeviceChecks));
  if (status != kSuccess) return status;
  std::memset(host, 0, sizeof(DeviceChecks));
  void* device = nullptr;
  status = HostDevicePointer(&device, host);
  if (status != kSuccess) {
    (void)FreeHost(host);
    return status;
  }
  stream->checks = static_cast<DeviceChecks*>(host);
  stream->device_checks = static_cast<DeviceChecks*>(device);
  return kSuccess;
}

void FreeDeviceChecks(Stream* stream) {
  if (stream->checks != nullptr) (void)FreeHost(stream->checks);
  stream->checks = nullptr;
  stream->device_checks = nullptr;
}

}  // namespace sy::gpu
