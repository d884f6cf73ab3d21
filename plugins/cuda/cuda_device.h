// The `cuda` device type: NVIDIA GPUs through the CUDA runtime.
//
// Devices are those cudaGetDeviceCount reports when the plugin loads
// (CUDA_VISIBLE_DEVICES applies); with no GPU or no driver there are zero
// and the plugin says so in the host's log. Memory is raw cudaMalloc (the
// core's caching allocator sits on top); every allocation is 256-byte
// aligned. A stream is a non-blocking cudaStream_t plus a small ring of
// pinned staging buffers, through which short host-to-device copies from
// pageable memory go without blocking the host. Events time with
// cudaEventElapsedTime. Streams, events and allocations are tracked, so a
// stale, foreign or doubly freed handle is an error rather than a crash.
//
// Thread-safety: every slot may be called from any thread; each first makes
// its device current on the calling thread.
#ifndef SWITCHYARD_PLUGINS_CUDA_CUDA_DEVICE_H_
#define SWITCHYARD_PLUGINS_CUDA_CUDA_DEVICE_H_

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::cuda {

// DLPack's kDLCUDA.
inline constexpr int32_t kDlpackCuda = 2;

// Alignment cudaMalloc guarantees; the largest the device type accepts.
inline constexpr size_t kCudaAlignment = 256;

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
  std::array<cudaEvent_t, kStagingSlots> staging_done{};
  size_t next_slot = 0;
  // cuBLASLt's workspace for the stream's GEMMs (Note [GEMM plans],
  // kernels/gemm.cc): kGemmWorkspaceBytes, made by the first GEMM that
  // needs one and freed with the stream. Its GEMMs use it in stream order.
  void* gemm_workspace = nullptr;
};

// The workspace each stream offers cuBLASLt (its advice for Hopper).
inline constexpr size_t kGemmWorkspaceBytes = size_t{32} << 20;

// The probe made once per process (in sy_plugin_init): how many devices
// there are, or why there are none.
struct CudaProbe {
  int device_count = 0;
  std::string reason;  // empty when device_count > 0
  int driver_version = 0;
  int runtime_version = 0;
  // Host milliseconds of the probe: CUDA driver initialization (the first
  // runtime call, cudaGetDeviceCount, initializes the driver) and reading
  // the devices' properties. The load record reports them apart from the
  // plugin's own work (cuda_plugin.cc).
  double driver_init_ms = 0;
  double properties_ms = 0;
};
const CudaProbe& ProbeCuda();

// The device table that `load` registers. Static: valid for as long as the
// library is loaded.
const sy_device_api_t& CudaDeviceApi();

// The live stream behind a handle, or NULL when it is not one of ours.
Stream* FindStream(sy_stream_t handle);

// A stream's handle, and back (no check: FindStream checks).
inline sy_stream_t ToHandle(Stream* stream) {
  return reinterpret_cast<sy_stream_t>(static_cast<gpu::Stream*>(stream));
}
inline Stream* FromHandle(sy_stream_t handle) {
  return static_cast<Stream*>(reinterpret_cast<gpu::Stream*>(handle));
}

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_CUDA_DEVICE_H_
