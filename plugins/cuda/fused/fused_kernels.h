// The cuda plugin's fusion hooks (sy_fusion_extension_t): generate CUDA C
// (cuda_codegen.h), compile it with NVRTC (nvrtc_compiler.h) for the
// device's architecture, load the CUBIN with cudaLibraryLoadData, and
// launch its entry points with cudaLaunchKernel on the call's stream. The
// CUBIN goes back to the host as the kernel's binary, so the host's disk
// cache can hand it to load_fused in a later process without NVRTC.
//
// Thread-safety: every hook may be called from any thread; a compiled
// kernel is immutable.
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_FUSED_KERNELS_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_FUSED_KERNELS_H_

#include "switchyard/plugin.h"

namespace sy::cuda::fusion {

sy_error_t* CompileFused(void* self, sy_fused_compile_args_t* args);
sy_error_t* LoadFused(void* self, sy_fused_load_args_t* args);
sy_error_t* LaunchFused(void* self, const sy_fused_launch_args_t* args);
void ReleaseFused(void* self, const sy_fused_release_args_t* args);
// The row kernels' launch configurations (Note [Row kernel shapes];
// LaunchConfigs in cuda_codegen.h); compile_fused and load_fused take the
// index in their `config`.
sy_error_t* FusedConfigs(void* self, sy_fused_configs_args_t* args);

// "nvrtc 13.0", or "nvrtc (absent)": the extension's compiler name.
const char* CompilerName();

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_FUSED_KERNELS_H_
