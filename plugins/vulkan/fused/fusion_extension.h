// Hangs the vulkan plugin's fusion hooks (fused_kernels.h) on its device
// table's extension chain (sy_fusion_extension_t, SY_EXTENSION_FUSION).
//
// The extension's dtypes are what the generated code handles on every
// device of the probe (`caps`, the common capabilities): f32 always; f16
// with 16-bit storage; bool, i8 and u8 with 8-bit storage; i32 with
// shaderFloat64 (its values compute in double); i64 with shaderFloat64 and
// shaderInt64. Never f64 or bf16: the plugin holds no such tensors. The
// environment variable SWITCHYARD_VULKAN_FUSION_DTYPES ("f32,f16"; read
// with secure_getenv) narrows the list further, to rule a dtype's fused
// code out or to test how a refused dtype is reported.
//
// Thread-safety: the first call builds the table; later calls return it.
#ifndef SWITCHYARD_PLUGINS_VULKAN_FUSED_FUSION_EXTENSION_H_
#define SWITCHYARD_PLUGINS_VULKAN_FUSED_FUSION_EXTENSION_H_

#include "switchyard/plugin.h"
#include "vk_context.h"

namespace sy::vulkan {

// `device` with the fusion extension in front of its own chain. Static:
// lives as long as the library.
const sy_device_api_t& WithFusionHooks(const sy_device_api_t& device, const Caps& caps);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_FUSED_FUSION_EXTENSION_H_
