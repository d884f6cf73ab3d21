// The shared GPU kernel families and how they list their kernels.
//
// Each family source (sdk/gpu/<family>.cu) defines one function below,
// returning its kernels in registration order; a plugin registers them for
// its device type (gpu::ThisTarget().device_type) with
// plugin::RegisterKernels, family by family, in the order declared here.
// A family builds its list on first use into a function-local static (never
// from a static initializer), so strings and dtype arrays stay valid after
// registration. Which dtypes each family covers: dtypes.h.
//
// Priority: every shared kernel registers with ThisTarget().priority.
// Kernels are keyed by device type, so they never compete with the cpu
// plugin's; the value only matters against another plugin adding kernels
// to the same device type.
#ifndef SWITCHYARD_GPU_KERNEL_LIST_H_
#define SWITCHYARD_GPU_KERNEL_LIST_H_

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::gpu {

// ---- The families ---------------------------------------------------------
std::span<const plugin::KernelSpec> CreationKernels();       // fill copy cast
std::span<const plugin::KernelSpec> UnaryKernels();          // neg … gelu
std::span<const plugin::KernelSpec> BinaryKernels();         // add … minimum .Tensor
std::span<const plugin::KernelSpec> BinaryScalarKernels();   // add … minimum .Scalar
std::span<const plugin::KernelSpec> CompareKernels();        // eq … ge, where
std::span<const plugin::KernelSpec> ReductionKernels();      // sum … argmax
std::span<const plugin::KernelSpec> NormKernels();           // softmax … rms_norm
std::span<const plugin::KernelSpec> LayoutKernels();         // concat embedding

// All of the above, in that order.
std::span<const std::span<const plugin::KernelSpec>> AllSharedKernels();

// ---- Building a list --------------------------------------------------------
// The SDK's (plugin/kernels.hpp), at ThisTarget().priority.
using plugin::DtypeList;
using plugin::KernelName;

class KernelList : public plugin::KernelList {
 public:
  KernelList();
};

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_KERNEL_LIST_H_
