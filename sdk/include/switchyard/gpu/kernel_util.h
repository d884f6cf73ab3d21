// Host-side checks and argument readers shared by the GPU kernels.
//
// Every kernel validates its call before it launches anything: a bad call
// gets INVALID_ARGUMENT with "<plugin> plugin: <op>: <what>; <what to do>",
// never a crash or a fault on the GPU. Each check returns NULL when it
// passes. Kernel entry points are sy_kernel_fn: thread-safe, stateless,
// and asynchronous: they enqueue on the call's stream and return.
// Messages name the plugin and device type through ThisTarget() (target.h).
#ifndef SWITCHYARD_GPU_KERNEL_UTIL_H_
#define SWITCHYARD_GPU_KERNEL_UTIL_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "switchyard/gpu/portability.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {

// Names a kernel of this plugin in the SDK's checks: "<plugin> plugin: <op>".
inline plugin::KernelSite Site(std::string_view op) {
  return {ThisTarget().label, op};
}

// INVALID_ARGUMENT "<plugin> plugin: <op>: <what>".
sy_error_t* OpError(std::string_view op, std::string_view what);

// "<plugin> plugin: <op>", the `where` of Guard and RuntimeError. Constant
// for a plugin, so kernels compute it once, into a function-local static,
// rather than on every call.
std::string Where(std::string_view op);

// Makes `device` current on the calling thread (every entry point that
// touches memory or launches work does so first: a thread's current device
// is whatever it last set, maybe for another runtime).
sy_error_t* UseDevice(int device, std::string_view where);

// Checks what every kernel reads of the call: non-NULL, a struct_size that
// covers ABI 1.0, the given numbers of inputs, outputs and attributes
// (num_inputs < 0: any), and a stream. Makes the stream's device current
// and stores the stream in *out_stream.
sy_error_t* BeginCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs,
                      Stream** out_stream);

// Checks one tensor view: rank 0..SY_MAX_RANK, shape and strides present,
// no negative dimension, `dtype` (SY_DTYPE_NONE: any), on the stream's
// device, and data present when it is not empty.
sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype,
                      const Stream& stream);

// Attribute readers: the SDK's (plugin/kernels.hpp), for this plugin.
using plugin::ScalarValue;
inline sy_error_t* ReadScalar(const sy_kernel_call_t* call, int index,
                              std::string_view op, std::string_view name,
                              ScalarValue& out) {
  return plugin::ReadScalar(call, index, Site(op), name, out);
}
inline sy_error_t* ReadInt(const sy_kernel_call_t* call, int index,
                           std::string_view op, std::string_view name,
                           int64_t& out, bool* is_none = nullptr) {
  return plugin::ReadInt(call, index, Site(op), name, out, is_none);
}
inline sy_error_t* ReadFloat(const sy_kernel_call_t* call, int index,
                             std::string_view op, std::string_view name,
                             double& out) {
  return plugin::ReadFloat(call, index, Site(op), name, out);
}
inline sy_error_t* ReadBool(const sy_kernel_call_t* call, int index,
                            std::string_view op, std::string_view name,
                            bool& out) {
  return plugin::ReadBool(call, index, Site(op), name, out);
}
inline sy_error_t* ReadInts(const sy_kernel_call_t* call, int index,
                            std::string_view op, std::string_view name,
                            std::span<const int64_t>& out) {
  return plugin::ReadInts(call, index, Site(op), name, out);
}
inline sy_error_t* ReadString(const sy_kernel_call_t* call, int index,
                              std::string_view op, std::string_view name,
                              std::string_view& out) {
  return plugin::ReadString(call, index, Site(op), name, out);
}
inline sy_error_t* WrapDim(int64_t dim, int rank, std::string_view op,
                           std::string_view name, int& out) {
  return plugin::WrapDim(dim, rank, Site(op), name, out);
}

// Checks the launch just made on this thread (the runtime's last error).
sy_error_t* CheckLaunched(std::string_view op);

// Number of multiprocessors (SMs, CUs) of `device` (cached), for sizing
// grids.
int SmCount(int device);

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_KERNEL_UTIL_H_
