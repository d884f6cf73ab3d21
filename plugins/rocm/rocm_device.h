// The `rocm` device type: AMD GPUs through the HIP runtime (ROCm).
//
// Devices are those hipGetDeviceCount reports when the plugin loads
// (HIP_VISIBLE_DEVICES / ROCR_VISIBLE_DEVICES apply); without the HIP
// runtime library, a GPU or the amdgpu driver there are zero and the
// plugin says why in the host's log (ProbeRocm). Memory is raw hipMalloc
// (the core's caching allocator sits on top); every allocation is 256-byte
// aligned. A stream is a non-blocking hipStream_t plus a small ring of
// pinned staging buffers, through which short host-to-device copies from
// pageable memory go without blocking the host. Events time with
// hipEventElapsedTime. Streams, events and allocations are tracked, so a
// stale, foreign or doubly freed handle is an error rather than a crash.
// (The same design as the cuda plugin's device, slot for slot.)
//
// Thread-safety: every slot may be called from any thread; each first makes
// its device current on the calling thread.
#ifndef SWITCHYARD_PLUGINS_ROCM_ROCM_DEVICE_H_
#define SWITCHYARD_PLUGINS_ROCM_ROCM_DEVICE_H_

#include <hip/hip_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::rocm {

// DLPack's kDLROCM.
inline constexpr int32_t kDlpackRocm = 10;

// Alignment hipMalloc guarantees (at least); the largest the device type
// accepts.
inline constexpr size_t kRocmAlignment = 256;

// A stream of this plugin. The shared kernels read its gpu::Stream part
// (`device`, `stream`; switchyard/gpu/target.h): a sy_stream_t handle is
// the address of that part (ToHandle, FromHandle).
struct Stream : gpu::Stream {
  static constexpr size_t kStagingSlots = 4;
  static constexpr size_t kStagingBytes = size_t{1} << 20;  // per slot
  // Pinned host buffers for short pageable H2D copies; each slot's event
  // says when its last copy has left it. Guarded by the stream's user: the
  // host issues one stream's calls in order (plugin.h).
  std::array<void*, kStagingSlots> staging{};
  std::array<hipEvent_t, kStagingSlots> staging_done{};
  size_t next_slot = 0;
};

// The probe made once per process (in sy_plugin_init): load the HIP
// runtime (hip_library.h), count the devices, read their properties, and
// register the plugin's code objects; or why there are no devices.
struct RocmProbe {
  int device_count = 0;
  std::string reason;  // "no ROCm device: …" when device_count is 0
  std::string library;  // the HIP runtime's path, when it loaded
  int driver_version = 0;
  int runtime_version = 0;
  // Per device: its gfx architecture ("gfx90a", the part of gcnArchName
  // before any ':'), and whether the plugin was built for it.
  std::vector<std::string> arch;
  std::vector<bool> arch_built;
  // Per device: whether it has the matrix cores (MFMA) the GEMM's fast
  // kernel uses (gfx90a).
  std::vector<bool> mfma;
};
const RocmProbe& ProbeRocm();

// The device table that `load` registers. Static: valid for as long as the
// library is loaded.
const sy_device_api_t& RocmDeviceApi();

// The architectures the plugin's kernels were compiled for
// (SWITCHYARD_ROCM_ARCHITECTURES), e.g. {"gfx90a", "gfx1030"}.
std::span<const std::string_view> BuiltArchitectures();

// The live stream behind a handle, or NULL when it is not one of ours.
Stream* FindStream(sy_stream_t handle);

// A stream's handle, and back (no check: FindStream checks).
inline sy_stream_t ToHandle(Stream* stream) {
  return reinterpret_cast<sy_stream_t>(static_cast<gpu::Stream*>(stream));
}
inline Stream* FromHandle(sy_stream_t handle) {
  return static_cast<Stream*>(reinterpret_cast<gpu::Stream*>(handle));
}

}  // namespace sy::rocm

#endif  // SWITCHYARD_PLUGINS_ROCM_ROCM_DEVICE_H_
