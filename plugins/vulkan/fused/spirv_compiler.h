// GLSL → SPIR-V at run time with shaderc (Debian's libshaderc1, linked:
// docs/vulkan.md, "Fusion"), for the fused kernels glsl_codegen.h writes.
// `#include "common.glsl"` and `"math.glsl"` resolve to the plugin's own
// shader library, embedded in the library at build time (glsl_library.cc,
// generated from plugins/vulkan/shaders), so the fused kernels load,
// store and compute exactly as the plugin's prebuilt kernels do.
//
// Thread-safety: CompileGlsl may be called from any thread (each call
// has its own shaderc compiler object).
#ifndef SWITCHYARD_PLUGINS_VULKAN_FUSED_SPIRV_COMPILER_H_
#define SWITCHYARD_PLUGINS_VULKAN_FUSED_SPIRV_COMPILER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sy::vulkan::fusion {

// The embedded shader library file `name` ("common.glsl"), or null.
// Defined in the generated glsl_library.cc.
const char* FindGlslLibraryFile(std::string_view name);

// Compiles a compute shader for Vulkan 1.2 (optimized for performance);
// false with *error holding shaderc's messages for `name`.
bool CompileGlsl(const std::string& source, const std::string& name,
                 std::vector<uint32_t>* spirv, std::string* error);

// "shaderc (SPIR-V 1.6 rN)": the compiler part of the fusion extension's
// compiler name (the host's cache key).
std::string ShadercVersion();

}  // namespace sy::vulkan::fusion

#endif  // SWITCHYARD_PLUGINS_VULKAN_FUSED_SPIRV_COMPILER_H_
