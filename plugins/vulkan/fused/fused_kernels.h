// The vulkan plugin's fusion hooks (sy_fusion_extension_t): generate GLSL
// (glsl_codegen.h) for the device's capabilities, compile it to SPIR-V
// with shaderc (spirv_compiler.h), and make one compute pipeline per
// kernel; launch_fused records it on the call's stream like the plugin's
// own kernels (an address table through the stream's params buffer, one
// push constant, a dispatch; Note [Batched submission], vk_stream.h). The
// SPIR-V goes back to the host as the kernel's binary, so the host's disk
// cache hands it to load_fused in a later process, which skips shaderc.
//
// Thread-safety: every hook may be called from any thread; a compiled
// kernel is immutable until release_fused.
#ifndef SWITCHYARD_PLUGINS_VULKAN_FUSED_FUSED_KERNELS_H_
#define SWITCHYARD_PLUGINS_VULKAN_FUSED_FUSED_KERNELS_H_

#include "switchyard/plugin.h"

namespace sy::vulkan::fusion {

sy_error_t* CompileFused(void* self, sy_fused_compile_args_t* args);
sy_error_t* LoadFused(void* self, sy_fused_load_args_t* args);
sy_error_t* LaunchFused(void* self, const sy_fused_launch_args_t* args);
void ReleaseFused(void* self, const sy_fused_release_args_t* args);

}  // namespace sy::vulkan::fusion

#endif  // SWITCHYARD_PLUGINS_VULKAN_FUSED_FUSED_KERNELS_H_
