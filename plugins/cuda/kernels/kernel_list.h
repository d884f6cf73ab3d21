// How the cuda plugin's kernel families list their kernels.
//
// Each family file defines one function below, returning its kernels in
// registration order; cuda_plugin.cc registers the families in the order
// they are declared here. A family builds its list on first use into a
// function-local static (never from a static initializer), so strings and
// dtype arrays stay valid after registration.
//
// Priority: every cuda kernel registers with kCudaPriority. Kernels are
// keyed by device type, so they never compete with the cpu plugin's; the
// value only matters against another plugin adding kernels to `cuda`.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_LIST_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_LIST_H_

#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {

inline constexpr int32_t kCudaPriority = 10;

// ---- The families ---------------------------------------------------------
std::span<const plugin::KernelSpec> CreationKernels();       // fill copy cast
std::span<const plugin::KernelSpec> UnaryKernels();          // neg … gelu
std::span<const plugin::KernelSpec> BinaryKernels();         // add … minimum .Tensor
std::span<const plugin::KernelSpec> BinaryScalarKernels();   // add … minimum .Scalar
std::span<const plugin::KernelSpec> CompareKernels();        // eq … ge, where
std::span<const plugin::KernelSpec> ReductionKernels();      // sum … argmax
std::span<const plugin::KernelSpec> NormKernels();           // softmax … rms_norm
std::span<const plugin::KernelSpec> LayoutKernels();         // concat embedding
// GEMMs register themselves with variants (sy_kernel_desc_t directly):
sy_error_t* RegisterGemmKernels(const sy_host_api_t* host,
                                sy_host_context_t* context);
// The plugin's own ops (cuda::linear_gelu): schemas, then kernels.
sy_error_t* RegisterFusedOps(const sy_host_api_t* host,
                             sy_host_context_t* context);

// ---- Building a list --------------------------------------------------------
// The SDK's (plugin/kernels.hpp), at kCudaPriority.
using plugin::DtypeList;
using plugin::KernelName;

class KernelList : public plugin::KernelList {
 public:
  KernelList() : plugin::KernelList(kCudaPriority) {}
};

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_LIST_H_
