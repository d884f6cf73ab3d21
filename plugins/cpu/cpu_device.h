// The `cpu` device type: the host's memory and a synchronous stream.
//
// One device (index 0). Memory comes from the C heap, 64-byte aligned; work
// runs on the calling thread at enqueue time, so a stream is always idle and
// synchronizing is free. Streams, events and allocations are tracked, so a
// stale, foreign or doubly freed handle is an error rather than a crash.
#ifndef SWITCHYARD_PLUGINS_CPU_CPU_DEVICE_H_
#define SWITCHYARD_PLUGINS_CPU_CPU_DEVICE_H_

#include <cstddef>
#include <cstdint>

#include "switchyard/plugin.h"

namespace sy::cpu {

// DLPack's kDLCPU.
inline constexpr int32_t kDlpackCpu = 1;

// Alignment of every allocation unless a larger power of two is asked for:
// one cache line, and enough for any vector load.
inline constexpr size_t kCpuAlignment = 64;

// The device table that `load` registers. Static: valid for as long as the
// library is loaded. Every slot is thread-safe.
const sy_device_api_t& CpuDeviceApi();

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_CPU_DEVICE_H_
