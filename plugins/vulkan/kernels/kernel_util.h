// Host-side checks, argument readers and the kernel list of the vulkan
// plugin's kernels.
//
// Every kernel validates its call before it records anything: a bad call
// gets INVALID_ARGUMENT with "vulkan plugin: <op>: <what>; <what to do>".
// Kernel entry points are sy_kernel_fn: thread-safe (they lock the call's
// stream while recording) and asynchronous (they record into the stream's
// batch and return; vk_stream.h). Only embedding waits, to report an index
// out of range.
//
// Priority: every kernel registers with kVulkanPriority; kernels are keyed
// by device type, so the value only matters against another plugin adding
// kernels to `vulkan`.
#ifndef SWITCHYARD_PLUGINS_VULKAN_KERNELS_KERNEL_UTIL_H_
#define SWITCHYARD_PLUGINS_VULKAN_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"
#include "vk_context.h"
#include "vk_stream.h"

namespace sy::vulkan {

inline constexpr int32_t kVulkanPriority = 10;

// INVALID_ARGUMENT "vulkan plugin: <op>: <what>".
sy_error_t* OpError(std::string_view op, std::string_view what);
// INTERNAL "vulkan plugin: <op>: <what>" for a failing Vulkan call.
sy_error_t* DeviceError(std::string_view op, std::string_view what);

// Checks what every kernel reads of the call (struct_size, counts: < 0 is
// any) and that its stream is a live stream of this plugin.
sy_error_t* BeginCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs,
                      Stream** out_stream);

// Checks one view: rank, shape/strides present, no negative dims, `dtype`
// (SY_DTYPE_NONE: any), on the stream's device, data present if not empty.
sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype,
                      const Stream& stream);

struct ScalarValue {
  bool is_float = false;
  double f = 0;
  int64_t i = 0;
  double AsDouble() const { return is_float ? f : static_cast<double>(i); }
};
sy_error_t* ReadScalar(const sy_kernel_call_t* call, int index,
                       std::string_view op, std::string_view name,
                       ScalarValue& out);
sy_error_t* ReadInt(const sy_kernel_call_t* call, int index,
                    std::string_view op, std::string_view name, int64_t& out,
                    bool* is_none = nullptr);
sy_error_t* ReadFloat(const sy_kernel_call_t* call, int index,
                      std::string_view op, std::string_view name, double& out);
sy_error_t* ReadBool(const sy_kernel_call_t* call, int index,
                     std::string_view op, std::string_view name, bool& out);
sy_error_t* ReadInts(const sy_kernel_call_t* call, int index,
                     std::string_view op, std::string_view name,
                     std::span<const int64_t>& out);
sy_error_t* ReadString(const sy_kernel_call_t* call, int index,
                       std::string_view op, std::string_view name,
                       std::string_view& out);
sy_error_t* ReadDtype(const sy_kernel_call_t* call, int index,
                      std::string_view op, std::string_view name,
                      sy_dtype_t& out);
sy_error_t* WrapDim(int64_t dim, int rank, std::string_view op,
                    std::string_view name, int& out);

// The device address of a view's element (0, …, 0).
inline uint64_t Address(const sy_tensor_view_t& v) {
  return reinterpret_cast<uintptr_t>(v.data) + v.byte_offset;
}

// Whether the device can hold tensors of `dtype` (16- and 8-bit storage).
bool DeviceHolds(const Caps& caps, sy_dtype_t dtype);

// "f32", "i64", … as the shader variants are named.
std::string_view ShaderDtype(sy_dtype_t dtype);

// An append-only list of kernels owning their names ("add.Tensor.f32.f32").
class KernelList {
 public:
  void Add(std::string_view op, std::span<const sy_dtype_t> dtypes,
           sy_kernel_fn fn);
  std::span<const plugin::KernelSpec> specs() const { return specs_; }

 private:
  std::deque<std::string> names_;
  std::deque<std::vector<sy_dtype_t>> dtypes_;
  std::vector<plugin::KernelSpec> specs_;
};

// ---- The families (each file fills the list for what `caps` allows) ----
// Registration is per device capability set: every device of the probe
// must hold the dtypes of a kernel for it to be registered (plugin.cc
// takes the capabilities common to all devices).
void AddCreationKernels(const Caps& caps, KernelList& list);    // fill copy cast
void AddUnaryKernels(const Caps& caps, KernelList& list);       // neg … gelu
void AddBinaryKernels(const Caps& caps, KernelList& list);      // add … minimum
void AddCompareKernels(const Caps& caps, KernelList& list);     // eq … ge, where
void AddReductionKernels(const Caps& caps, KernelList& list);   // sum … argmax
void AddNormKernels(const Caps& caps, KernelList& list);        // softmax … rms_norm
void AddMatmulKernels(const Caps& caps, KernelList& list);      // matmul
void AddLayoutKernels(const Caps& caps, KernelList& list);      // concat embedding

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_KERNELS_KERNEL_UTIL_H_
