// The cuda plugin's own kernel registrations. Everything else it registers
// is the SDK's shared GPU kernel families (switchyard/gpu/kernel_list.h),
// compiled from sdk/gpu into this plugin; cuda_plugin.cc registers those
// first, then these.
//
// Priority: every cuda kernel registers with gpu::ThisTarget().priority
// (10, gpu_target.cc). Kernels are keyed by device type, so they never
// compete with the cpu plugin's; the value only matters against another
// plugin adding kernels to `cuda`.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_LIST_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_LIST_H_

#include "switchyard/plugin.h"

namespace sy::cuda {

// GEMMs register themselves with variants (sy_kernel_desc_t directly):
// matmul, linear.
sy_error_t* RegisterGemmKernels(const sy_host_api_t* host,
                                sy_host_context_t* context);
// The plugin's own ops (cuda::linear_gelu): schemas, then kernels.
sy_error_t* RegisterFusedOps(const sy_host_api_t* host,
                             sy_host_context_t* context);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_KERNEL_LIST_H_
