// How the cpu plugin's kernel families list their kernels.
//
// Each family file (kernels/*.cc) defines one function from the list below,
// returning its kernels in registration order; cpu_plugin.cc registers the
// families in the order they are declared here. A family builds its list on
// first use (never from a static initializer) into a function-local static
// object, so the strings and dtype arrays stay valid after registration and
// are freed when the library closes (a heap object whose only pointer lives
// in an unloaded library would leak).
#ifndef SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_LIST_H_
#define SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_LIST_H_

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

// ---- The families ---------------------------------------------------------
std::span<const plugin::KernelSpec> CreationKernels();   // fill copy cast
std::span<const plugin::KernelSpec> UnaryKernels();      // neg … gelu
std::span<const plugin::KernelSpec> BinaryKernels();     // add … where
std::span<const plugin::KernelSpec> ReductionKernels();  // sum … argmax
std::span<const plugin::KernelSpec> NormKernels();       // softmax … rms_norm
std::span<const plugin::KernelSpec> LinalgKernels();     // matmul conv2d
std::span<const plugin::KernelSpec> LayoutKernels();     // concat embedding

// ---- Building a list --------------------------------------------------------
// The SDK's (plugin/kernels.hpp): priority 0, names KernelName(op, dtypes).
using plugin::DtypeList;
using plugin::KernelList;
using plugin::KernelName;

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_KERNELS_KERNEL_LIST_H_
