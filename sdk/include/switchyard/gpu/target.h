// What a GPU plugin provides to the SDK's shared kernels (sdk/gpu,
// docs/gpu-kernels.md). The shared sources are compiled into each plugin
// that uses them (cuda, rocm, a vendor's), and call back into that plugin
// through exactly the declarations below, which the plugin defines once
// (plugins/cuda/gpu_target.cc, plugins/rocm/gpu_target.cc).
//
// Streams: every sy_stream_t the host passes to a shared kernel must be the
// address of a gpu::Stream, which the plugin's own stream object derives
// from (convert with static_cast to gpu::Stream* before making the handle,
// and back). The shared kernels read only its fields.
#ifndef SWITCHYARD_GPU_TARGET_H_
#define SWITCHYARD_GPU_TARGET_H_

#include <cstdint>
#include <string_view>

#include "switchyard/gpu/portability.h"
#include "switchyard/plugin.h"

namespace sy::gpu {

struct DeviceChecks;  // device_checks.h

// The part of a plugin's stream that kernels use.
struct Stream {
  int32_t device = 0;
  NativeStream stream = nullptr;
  // The stream's device-check flags (Note [Deferred device checks],
  // device_checks.h): one block of pinned host memory mapped into the
  // device's address space, made by the plugin's stream_create with
  // AllocateDeviceChecks. `checks` is the host's address of it,
  // `device_checks` the kernels'.
  DeviceChecks* checks = nullptr;
  DeviceChecks* device_checks = nullptr;
};

// Who the shared kernels run for. All fields are constants of the plugin.
struct Target {
  // The plugin's name: every message starts "<plugin> plugin: <op>: ".
  std::string_view plugin;
  // "<plugin> plugin", the first part of every message.
  std::string_view label;
  // The device type the kernels are for, as registered ("cuda", "rocm"):
  // messages name devices "<device_type>:<index>".
  std::string_view device_type;
  // The runtime's name in messages ("no CUDA kernel for …").
  std::string_view runtime;
  // The DLPack device code of the device type (kDLCUDA 2, kDLROCM 10):
  // views on any other device are refused.
  int32_t dlpack_device_type = 0;
  // The priority every shared kernel registers with.
  int32_t priority = 0;
};

// ---- Defined by the plugin ------------------------------------------------

// The plugin's Target. Returns the same object every time. Thread-safe.
const Target& ThisTarget();

// NULL when `status` is success; otherwise a new error for the host that
// names `where` and `what` was being done, with the runtime's error name
// and text, a status code that fits (out of memory: RESOURCE_EXHAUSTED…)
// and what to do. Resets the runtime's non-sticky last error. Thread-safe.
sy_error_t* RuntimeError(Error status, std::string_view where,
                         std::string_view what);

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_TARGET_H_
