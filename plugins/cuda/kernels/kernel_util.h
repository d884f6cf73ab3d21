// Host-side checks and argument readers shared by the cuda plugin's kernels.
//
// Every kernel validates its call before it launches anything: a bad call
// gets INVALID_ARGUMENT with "cuda plugin: <op>: <what>; <what to do>",
// never a crash or a fault on the GPU. Each check returns NULL when it
// passes. Kernel entry points are sy_kernel_fn: thread-safe, stateless
// (GEMM plans are cached; gemm.h), and asynchronous: they enqueue on the
// call's stream and return.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_UTIL_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_UTIL_H_

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "cuda_device.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {

// INVALID_ARGUMENT "cuda plugin: <op>: <what>".
sy_error_t* OpError(std::string_view op, std::string_view what);

// Checks what every kernel reads of the call: non-NULL, a struct_size that
// covers ABI 1.0, the given numbers of inputs, outputs and attributes
// (num_inputs < 0: any), and a stream of this plugin. Makes the stream's
// device current and stores the stream in *out_stream.
sy_error_t* BeginCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs,
                      Stream** out_stream);

// Checks one tensor view: rank 0..SY_MAX_RANK, shape and strides present,
// no negative dimension, `dtype` (SY_DTYPE_NONE: any), on the stream's
// cuda device, and data present when it is not empty.
sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype,
                      const Stream& stream);

// Attribute readers: the SDK's (plugin/kernels.hpp) with "cuda plugin".
using plugin::ScalarValue;
inline sy_error_t* ReadScalar(const sy_kernel_call_t* call, int index,
                              std::string_view op, std::string_view name,
                              ScalarValue& out) {
  return plugin::ReadScalar(call, index, {"cuda plugin", op}, name, out);
}
inline sy_error_t* ReadInt(const sy_kernel_call_t* call, int index,
                           std::string_view op, std::string_view name,
                           int64_t& out, bool* is_none = nullptr) {
  return plugin::ReadInt(call, index, {"cuda plugin", op}, name, out, is_none);
}
inline sy_error_t* ReadFloat(const sy_kernel_call_t* call, int index,
                             std::string_view op, std::string_view name,
                             double& out) {
  return plugin::ReadFloat(call, index, {"cuda plugin", op}, name, out);
}
inline sy_error_t* ReadBool(const sy_kernel_call_t* call, int index,
                            std::string_view op, std::string_view name,
                            bool& out) {
  return plugin::ReadBool(call, index, {"cuda plugin", op}, name, out);
}
inline sy_error_t* ReadInts(const sy_kernel_call_t* call, int index,
                            std::string_view op, std::string_view name,
                            std::span<const int64_t>& out) {
  return plugin::ReadInts(call, index, {"cuda plugin", op}, name, out);
}
inline sy_error_t* ReadString(const sy_kernel_call_t* call, int index,
                              std::string_view op, std::string_view name,
                              std::string_view& out) {
  return plugin::ReadString(call, index, {"cuda plugin", op}, name, out);
}
inline sy_error_t* WrapDim(int64_t dim, int rank, std::string_view op,
                           std::string_view name, int& out) {
  return plugin::WrapDim(dim, rank, {"cuda plugin", op}, name, out);
}

// The stream's launch checks after a kernel launch ("cuda plugin: <op>").
sy_error_t* CheckLaunched(std::string_view op);

// Number of SMs of `device` (cached), for sizing grids.
int SmCount(int device);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_UTIL_H_
