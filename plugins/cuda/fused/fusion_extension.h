// The cuda plugin's extension chain for the `cuda` device type: its fusion
// hooks (fused_kernels.h) and its pattern kernels (epilogue_ops.cc), on the
// device table it registers (plugin.h: a plugin that provides a device type
// hangs its fusion hooks on that type's table).
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_FUSION_EXTENSION_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_FUSION_EXTENSION_H_

#include "switchyard/plugin.h"

namespace sy::cuda {

// `device` (the plugin's static device table) with the fusion and pattern
// extensions in front of its own chain. Static, built on first call; lives
// as long as the library. Thread-safe.
const sy_device_api_t& WithFusionHooks(const sy_device_api_t& device);

// Registers the plugin's pattern ops (cuda::matmul_bias, cuda::matmul_bias_gelu;
// defined in epilogue_ops.cc).
sy_error_t* RegisterPatternOps(const sy_host_api_t* host, sy_host_context_t* context);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_FUSION_EXTENSION_H_
