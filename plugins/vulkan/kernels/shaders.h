// SPIR-V embedded in the library: one ShaderCode per compiled variant,
// generated at build time from plugins/vulkan/shaders/*.comp by
// cmake/VulkanShaders.cmake (glslc). The variants' names are
// "<family>_<dtypes>"; shader_list.h (generated) declares them all as
// kShader_<name>.
#ifndef SWITCHYARD_PLUGINS_VULKAN_KERNELS_SHADERS_H_
#define SWITCHYARD_PLUGINS_VULKAN_KERNELS_SHADERS_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sy::vulkan {

struct ShaderCode {
  const char* name;
  const uint32_t* words;
  size_t num_words;
};

// The variant named `name` ("binary_f32"), or null. Defined in the
// generated shaders.cc.
const ShaderCode* FindShader(std::string_view name);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_KERNELS_SHADERS_H_
