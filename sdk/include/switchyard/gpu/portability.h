// The thin CUDA/HIP portability layer under the SDK's shared GPU kernels
// (sdk/gpu, docs/gpu-kernels.md). Everything the shared sources need from a
// GPU runtime is named here once, in namespace sy::gpu, and maps onto the
// CUDA runtime or onto HIP:
//   - runtime calls: Error, NativeStream, kSuccess, GetDevice, SetDevice,
//     GetLastError, ErrorName, ErrorString, MultiProcessorCount,
//     StreamSynchronize, HostAllocMapped, HostDevicePointer, FreeHost;
//   - 16-bit storage types `half` and `bfloat16`, and their conversions
//     (round to nearest even on the way in, exact on the way out);
//   - on the device: kWarpSize, ShflXor.
//
// Which runtime: HIP when the file is compiled by hipcc / clang -x hip
// (__HIPCC__) or with __HIP_PLATFORM_AMD__ defined (host-only sources of a
// HIP plugin: hip/hip_runtime_api.h needs it too); CUDA otherwise. Exactly
// one of SY_GPU_CUDA and SY_GPU_HIP is defined to 1 afterwards.
//
// Why a header and not a build-time hipify: the kernels stay one text that
// both compilers read, nothing is generated, and Debian has no hipify.
// The names below are the whole difference; a kernel that needs anything
// else adds it here, for both runtimes at once.
//
// Host-only translation units (compiled by g++/clang++ without CUDA or HIP
// language mode) may include this header: the device parts are compiled
// only under nvcc or hipcc.
#ifndef SWITCHYARD_GPU_PORTABILITY_H_
#define SWITCHYARD_GPU_PORTABILITY_H_

#include <cstddef>
#include <cstdint>

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#define SY_GPU_HIP 1
#define SY_GPU_CUDA 0
#else
#define SY_GPU_HIP 0
#define SY_GPU_CUDA 1
#endif

// True while compiling for the GPU or for both sides of a .cu/.hip file
// (__host__/__device__ annotations are understood).
#if defined(__CUDACC__) || defined(__HIPCC__)
#define SY_GPU_LANGUAGE 1
#else
#define SY_GPU_LANGUAGE 0
#endif

#if SY_GPU_HIP
#include <hip/hip_runtime_api.h>
#if SY_GPU_LANGUAGE
#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include "switchyard/gpu/scalar_rounding.h"
#endif
#else
#include <cuda_runtime_api.h>
#if SY_GPU_LANGUAGE
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#endif
#endif

namespace sy::gpu {

// ---- Runtime calls (host) ----------------------------------------------
// Each is the runtime's function of the same meaning; see its
// documentation. Thread-safety and errors are the runtime's.

#if SY_GPU_HIP
using Error = hipError_t;
using NativeStream = hipStream_t;
inline constexpr Error kSuccess = hipSuccess;

inline Error GetDevice(int* device) { return hipGetDevice(device); }
inline Error SetDevice(int device) { return hipSetDevice(device); }
inline Error GetLastError() { return hipGetLastError(); }
inline const char* ErrorName(Error e) { return hipGetErrorName(e); }
inline const char* ErrorString(Error e) { return hipGetErrorString(e); }
inline Error MultiProcessorCount(int device, int* out) {
  return hipDeviceGetAttribute(out, hipDeviceAttributeMultiprocessorCount,
                               device);
}
inline Error StreamSynchronize(NativeStream stream) {
  return hipStreamSynchronize(stream);
}
inline Error HostAllocMapped(void** ptr, size_t size) {
  return hipHostMalloc(ptr, size, hipHostMallocMapped);
}
inline Error HostDevicePointer(void** device_ptr, void* host_ptr) {
  return hipHostGetDevicePointer(device_ptr, host_ptr, 0);
}
inline Error FreeHost(void* ptr) { return hipHostFree(ptr); }
#else
using Error = cudaError_t;
using NativeStream = cudaStream_t;
inline constexpr Error kSuccess = cudaSuccess;

inline Error GetDevice(int* device) { return cudaGetDevice(device); }
inline Error SetDevice(int device) { return cudaSetDevice(device); }
inline Error GetLastError() { return cudaGetLastError(); }
inline const char* ErrorName(Error e) { return cudaGetErrorName(e); }
inline const char* ErrorString(Error e) { return cudaGetErrorString(e); }
inline Error MultiProcessorCount(int device, int* out) {
  return cudaDeviceGetAttribute(out, cudaDevAttrMultiProcessorCount, device);
}
inline Error StreamSynchronize(NativeStream stream) {
  return cudaStreamSynchronize(stream);
}
inline Error HostAllocMapped(void** ptr, size_t size) {
  return cudaHostAlloc(ptr, size, cudaHostAllocMapped);
}
inline Error HostDevicePointer(void** device_ptr, void* host_ptr) {
  return cudaHostGetDevicePointer(device_ptr, host_ptr, 0);
}
inline Error FreeHost(void* ptr) { return cudaFreeHost(ptr); }
#endif

// The widest warp (wavefront) of any device the runtime may run on: 32 on
// NVIDIA; 64 on AMD (CDNA is wave64, RDNA wave32 — host code is compiled
// once for both). Row kernels that combine across a warp launch blocks of
// at least this many threads, so that no warp is partly empty.
#if SY_GPU_HIP
inline constexpr int kMaxWarpSize = 64;
#else
inline constexpr int kMaxWarpSize = 32;
#endif

#if SY_GPU_LANGUAGE

// ---- 16-bit floating storage types -------------------------------------
// Compute in float and round once on the way out (docs/ops.md).
#if SY_GPU_HIP
using half = __half;
using bfloat16 = hip_bfloat16;

__host__ __device__ __forceinline__ float ToFloat(half v) {
  return __half2float(v);
}
__host__ __device__ __forceinline__ float ToFloat(bfloat16 v) {
  return static_cast<float>(v);
}
// Round to nearest even; NaN stays NaN, overflow becomes infinity.
// (_Float16 conversion and hip_bfloat16's constructor both round so.)
__device__ __forceinline__ half HalfFromFloat(float v) {
  return __float2half_rn(v);
}
__device__ __forceinline__ bfloat16 Bfloat16FromFloat(float v) {
  return bfloat16(v);
}
// Host only: a double rounded once (not through float) to the nearest
// half / bfloat16 (scalar_rounding.h).
inline half HalfFromDouble(double v) {
  __half_raw raw;
  raw.x = HalfBitsFromDouble(v);
  return half(raw);
}
inline bfloat16 Bfloat16FromDouble(double v) {
  bfloat16 out;
  out.data = Bfloat16BitsFromDouble(v);
  return out;
}
#else
using half = __half;
using bfloat16 = __nv_bfloat16;

__host__ __device__ __forceinline__ float ToFloat(half v) {
  return __half2float(v);
}
__host__ __device__ __forceinline__ float ToFloat(bfloat16 v) {
  return __bfloat162float(v);
}
__device__ __forceinline__ half HalfFromFloat(float v) {
  return __float2half_rn(v);
}
__device__ __forceinline__ bfloat16 Bfloat16FromFloat(float v) {
  return __float2bfloat16_rn(v);
}
inline half HalfFromDouble(double v) { return __double2half(v); }
inline bfloat16 Bfloat16FromDouble(double v) { return __double2bfloat16(v); }
#endif

// ---- Warps (device) ----------------------------------------------------

// Threads of one warp (wavefront) on the device being compiled for: 32 on
// NVIDIA and on RDNA (gfx10/11, wave32), 64 on CDNA (gfx9). Device code
// only; the host uses kMaxWarpSize. Never let a kernel's template
// arguments depend on it: HIP compiles the host side once for all targets.
#if SY_GPU_HIP
#if defined(__HIP_DEVICE_COMPILE__)
inline constexpr int kWarpSize = __AMDGCN_WAVEFRONT_SIZE;
#else
inline constexpr int kWarpSize = 64;  // the host pass never runs device code
#endif
#else
inline constexpr int kWarpSize = 32;
#endif

// v from the lane whose index is this lane's xor `mask`, across the whole
// warp; every lane of the warp must call it.
template <class T>
__device__ __forceinline__ T ShflXor(T v, int mask) {
#if SY_GPU_HIP
  return __shfl_xor(v, mask);
#else
  return __shfl_xor_sync(0xffffffffu, v, mask);
#endif
}

#endif  // SY_GPU_LANGUAGE

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_PORTABILITY_H_
