// The device part of conformance: each device table the plugin provides,
// exercised directly — memory, copies in every direction, memset, streams
// and events — with random bytes that must come back unchanged.
//
// The table is reached through a bare host (bare_host.h) in a child process
// of this tool (`switchyard-conformance <kDeviceChecksCommand> LIBRARY
// SEED`): the tool itself sees the core only through the public API, and a
// device table that crashes or hangs fails its check instead of taking the
// tool down.
#ifndef SWITCHYARD_SDK_CONFORMANCE_TOOL_DEVICE_CHECKS_H_
#define SWITCHYARD_SDK_CONFORMANCE_TOOL_DEVICE_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sdk/conformance/tool/report.h"
#include "switchyard/switchyard.hpp"

namespace sy::conformance {

// The hidden first argument that makes this program the child.
inline constexpr const char* kDeviceChecksCommand = "--device-checks-child";

// Runs the checks on every device of every type the plugin library at
// `library` registers and adds them to `report`, one section "device
// <label>" per device: properties; alloc/free (1 byte to 1 MiB, alignments
// 64 and 256); host→device, device→device and device→host copies, whole and
// at odd offsets; memset, whole and of a middle range; a second stream;
// events (record, synchronize, elapsed time ≥ 0, a stream waiting on one,
// elapsed time of unrecorded events refused with FAILED_PRECONDITION).
// Every object made is released again, also after a failure. `seed` picks
// the random bytes. Returns the labels of the devices checked.
std::vector<std::string> RunDeviceChecks(const std::string& library, uint64_t seed,
                                         Report& report);

// The child's side: prints its checks as one JSON line; returns 0.
int DeviceChecksChild(const std::string& library, uint64_t seed);

// In this process, through the public API: zero-size tensors on `device`
// (made, uploaded, read back), which the core never hands a device table.
void CheckZeroSizeTensors(const sy::Device& device, Report& report);

}  // namespace sy::conformance

#endif  // SWITCHYARD_SDK_CONFORMANCE_TOOL_DEVICE_CHECKS_H_
