// The device part of conformance: a provided device's table exercised
// through the runtime's device layer (dispatcher/device.h) — memory,
// copies in every direction, memset, streams and events — with random
// bytes that must come back unchanged.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_DEVICE_CHECKS_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_DEVICE_CHECKS_H_

#include <cstdint>

#include "dispatcher/runtime/runtime.h"
#include "sdk/conformance/tool/report.h"

namespace sy::conformance {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only

// Adds one check per area to `report`, in section "device <label>":
// properties; alloc/free (sizes from 1 byte to 1 MiB, alignments 64 and 256,
// and zero-size tensors through the runtime); host→device, device→device
// and device→host copies, whole and at odd offsets; memset, whole and of a
// middle range; a second stream (create, copy on it, synchronize, destroy);
// events (record, synchronize, elapsed time ≥ 0, a stream waiting on one,
// elapsed time of unrecorded events refused with FAILED_PRECONDITION).
// Every object made is released again, also after a failure. `seed` picks
// the random bytes.
void CheckDevice(Runtime& runtime, Device& device, uint64_t seed,
                 Report& report);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_DEVICE_CHECKS_H_
