// Checks that only the device can make (an embedding index out of range,
// an integer divisor of zero), reported without a round trip per call.
//
// Note [Deferred device checks]
// Some calls are wrong in a way only their data shows: an embedding index
// outside the weight's rows, an integer division by zero, an integer power
// with a negative exponent. The kernel finds it on the device, writes a
// harmless result (0) where there is none, and raises the stream's flag for
// that check. Reading the flag back in the call would synchronize the
// stream on every such call: the host would wait for all the GPU work
// queued before it, and a model that embeds each step would issue no faster
// than the GPU runs (measured: docs/performance.md, "Deferred device
// checks"). So, as PyTorch's device-side asserts do, the flag is read at
// the stream's next synchronization instead: stream_synchronize, and with
// it every copy to the host and every DLPack export, fails with
// INVALID_ARGUMENT naming the op and what was wrong, and clears the flag.
// The call itself returns success, and its output holds zeros where the
// check failed. SWITCHYARD_GPU_SYNC_CHECKS=1 (read once per process, with
// secure_getenv) restores the check at the call, with the call's own
// message: a debugging aid, like CUDA_LAUNCH_BLOCKING.
//
// The flags live in pinned host memory mapped into the device's address
// space: a kernel writes them only when a check fails, so a call that
// passes costs nothing, and the host reads them after synchronizing
// without a copy. One word per check, which every failing thread sets to 1
// (a benign race; no atomics on host memory, which some PCIe links lack).
//
// Thread-safety: a stream's flags are read and cleared by whoever
// synchronizes it; the host issues a stream's calls in order (plugin.h).
#ifndef SWITCHYARD_GPU_DEVICE_CHECKS_H_
#define SWITCHYARD_GPU_DEVICE_CHECKS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "switchyard/gpu/portability.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::gpu {

// What a kernel checks on the device. Values index DeviceChecks::raised.
enum class DeviceCheck : int {
  kEmbeddingIndex = 0,  // embedding: an index outside [0, rows of weight)
  kIntegerDivisor = 1,  // div.Tensor on integers: a divisor of 0
  kIntegerExponent = 2, // pow.Tensor on integers: a negative exponent
};
inline constexpr int kNumDeviceChecks = 3;

// A stream's flags: raised[c] != 0 when check c failed since the flags
// were last taken.
struct DeviceChecks {
  unsigned int raised[kNumDeviceChecks];
};

// The address a kernel on `stream` sets to 1 when `check` fails.
inline unsigned int* CheckFlag(const Stream& stream, DeviceCheck check) {
  return &stream.device_checks->raised[static_cast<int>(check)];
}

// Whether calls check at the call (SWITCHYARD_GPU_SYNC_CHECKS=1) rather
// than at the next synchronization.
bool ChecksAtCall();

// At the call: synchronizes `stream` (a failure names `op`); when
// `check`'s flag is raised, clears it and returns INVALID_ARGUMENT for `op`
// with `what_failed`.
sy_error_t* CheckAtCall(const Stream& stream, DeviceCheck check,
                        std::string_view op, std::string_view what_failed);

// For a kernel that launched work which may raise `check` on `stream`.
// Deferred (the default): NULL, and `what_failed` is not called. At the
// call: CheckAtCall with `what_failed()` (a std::string: the call's own
// message, "input 'indices' holds an index outside [0, 4) …").
template <class Message>
sy_error_t* FinishCheckedCall(const Stream& stream, DeviceCheck check,
                              std::string_view op, Message&& what_failed) {
  if (!ChecksAtCall()) return nullptr;
  return CheckAtCall(stream, check, op, what_failed());
}

// For the plugin's stream_synchronize, after the stream synchronized: NULL
// when no flag is raised; otherwise INVALID_ARGUMENT naming each failed
// check, its op and the device, and the flags are cleared.
sy_error_t* TakeRaisedChecks(const Stream& stream);

// For the plugin's stream_create and stream_destroy: the flags' memory
// (zeroed), set into stream->checks and stream->device_checks; and its
// release (a stream without flags is fine).
Error AllocateDeviceChecks(Stream* stream);
void FreeDeviceChecks(Stream* stream);

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_DEVICE_CHECKS_H_
