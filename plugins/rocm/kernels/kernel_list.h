// The rocm plugin's own kernel registrations. Everything else it registers
// is the SDK's shared GPU kernel families (switchyard/gpu/kernel_list.h),
// compiled from sdk/gpu into this plugin with hipcc; rocm_plugin.cc
// registers those first, then these. Priority: gpu::ThisTarget().priority
// (10, gpu_target.cc), as every rocm kernel.
#ifndef SWITCHYARD_PLUGINS_ROCM_KERNELS_KERNEL_LIST_H_
#define SWITCHYARD_PLUGINS_ROCM_KERNELS_KERNEL_LIST_H_

#include "switchyard/plugin.h"

namespace sy::rocm {

// matmul and linear for f32 f16 bf16 on the plugin's own GEMM (gemm.h),
// each with its variants.
sy_error_t* RegisterGemmKernels(const sy_host_api_t* host,
                                sy_host_context_t* context);

}  // namespace sy::rocm

#endif  // SWITCHYARD_PLUGINS_ROCM_KERNELS_KERNEL_LIST_H_
