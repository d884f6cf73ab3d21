// Checks shared by the cpu plugin's kernels.
//
// Every kernel validates its call before touching memory: a bad call gets
// INVALID_ARGUMENT with a message "cpu plugin: <op>: <what>; <what to do>",
// never a crash. Each check returns NULL when it passes.
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_

#include <cstdint>
#include <span>
#include <string_view>

#include "switchyard/plugin.h"

namespace sy::cpu {

// Kernel entry points are not declared here: each family file (kernels/)
// lists its kernels, templates instantiated per dtype, through its family
// function (kernel_list.h). Each is an sy_kernel_fn: thread-safe,
// stateless, runs to completion on the calling thread (the cpu stream is
// synchronous), never throws.

// ---- Checks ---------------------------------------------------------------

// INVALID_ARGUMENT "cpu plugin: <op>: <what>".
sy_error_t* OpError(std::string_view op, std::string_view what);

// Checks what every kernel reads of the call: non-NULL, a struct_size that
// covers ABI 1.0, and exactly the given numbers of inputs, outputs and
// attributes, with non-NULL arrays where the count is positive.
sy_error_t* CheckCall(const sy_kernel_call_t* call, std::string_view op,
                      int num_inputs, int num_outputs, int num_attrs);

// Checks one tensor view: rank 0..SY_MAX_RANK, shape and strides present,
// no negative dimension, an element count that fits int64, `dtype`, a cpu
// device, and data present when the tensor is not empty. `arg` names it in
// messages: "input 'a'", "output".
sy_error_t* CheckView(const sy_tensor_view_t& view, std::string_view op,
                      std::string_view arg, sy_dtype_t dtype);

// Checks that `view` has exactly `expected` as its shape; otherwise the
// error says "<arg> has shape [..] but <expected_what> [..]; <advice>".
sy_error_t* CheckShape(const sy_tensor_view_t& view,
                       std::span<const int64_t> expected, std::string_view op,
                       std::string_view arg, std::string_view expected_what,
                       std::string_view advice);

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_UTIL_H_
