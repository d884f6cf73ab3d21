// Checks shared by the cpu plugin's kernels: the SDK's (plugin/kernels.hpp),
// with "cpu plugin" and the cpu device filled in.
//
// The host guarantees what these check (plugin.h, sy_kernel_call_t); the
// kernels still check, cheaply, because the plugin's own tests and other
// direct callers reach them too. A bad call gets INVALID_ARGUMENT "cpu
// plugin: <op>: <what>; <what to do>", never a crash. Each check returns
// NULL when it passes.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "cpu_device.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

// Kernel entry points are not declared here: each family file (kernels/)
// lists its kernels, templates instantiated per dtype, through its family
// function (kernel_list.h). Each is an sy_kernel_fn: thread-safe,
// stateless, runs to completion on the calling thread (the cpu stream is
// synchronous), never throws.

inline plugin::KernelSite Site(std::string_view op) { return {"cpu plugin", op}; }

// INVALID_ARGUMENT "cpu plugin: <op>: <what>".
inline sy_error_t* OpError(std::string_view op, std::string_view what) {
  return plugin::OpError(Site(op), what);
}

// plugin::CheckCall: exactly these numbers of inputs, outputs, attributes.
inline sy_error_t* CheckCall(const sy_kernel_call_t* call, std::string_view op,
                             int num_inputs, int num_outputs, int num_attrs) {
  return plugin::CheckCall(call, Site(op), num_inputs, num_outputs, num_attrs);
}

// plugin::CheckView on the cpu device. `arg` names the tensor in messages:
// "input 'a'", "output".
inline sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                             std::string_view arg, sy_dtype_t dtype) {
  return plugin::CheckView(view, Site(op), arg, dtype, kDlpackCpu);
}

// plugin::CheckShape.
inline sy_error_t* CheckShape(const sy_tensor_view_t& view,
                              std::span<const int64_t> expected,
                              std::string_view op, std::string_view arg,
                              std::string_view expected_what,
                              std::string_view advice) {
  return plugin::CheckShape(view, expected, Site(op), arg, expected_what, advice);
}

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_
