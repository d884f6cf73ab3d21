// Asking a compute shader to keep denormals: a pure rewrite of SPIR-V
// words, applied when a shader module is created for a device
// (Context::CreateShaderModule), so one SPIR-V blob — glslc's at build
// time, shaderc's for fused kernels, a cached one from disk — serves every
// device. docs/vulkan.md, "Denormals", has the why.
//
// Vulkan leaves a shader's treatment of denormals to the implementation
// unless the module says otherwise; NVIDIA's driver flushes f32 denormals
// to zero, the op set keeps them. SPV_KHR_float_controls (core in SPIR-V
// 1.4 and Vulkan 1.2) lets a module ask for `DenormPreserve <width>` per
// entry point, where the device reports shaderDenormPreserveFloat<width>.
//
// Thread-safety: pure functions.
#ifndef SWITCHYARD_PLUGINS_VULKAN_SPIRV_DENORM_H_
#define SWITCHYARD_PLUGINS_VULKAN_SPIRV_DENORM_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sy::vulkan {

// What a device lets a shader ask of denormals: VkPhysicalDeviceVulkan12-
// Properties' shaderDenormPreserveFloat{16,32,64} and
// denormBehaviorIndependence.
struct DenormSupport {
  bool preserve16 = false;
  bool preserve32 = false;
  bool preserve64 = false;
  // VkShaderFloatControlsIndependence: which widths may have different
  // denormal modes in one entry point.
  enum class Independence {
    k32BitOnly,  // 32 on its own; 16 and 64 alike
    kAll,        // every width on its own
    kNone,       // every width alike
  };
  Independence independence = Independence::kAll;
};

// The widths among `declared` (the module's OpTypeFloat widths, each once)
// to ask DenormPreserve for on a device with `support`: each declared
// width the device preserves, less what denormBehaviorIndependence forbids
// mixing — under k32BitOnly 16 and 64 go together or not at all (both must
// be preserved when both are declared); under kNone every declared width
// or none. Widths the module does not declare are not constrained (they
// have no values to treat). Ascending.
std::vector<uint32_t> DenormPreserveWidths(const DenormSupport& support,
                                           std::span<const uint32_t> declared);

// Copies `spirv` (a SPIR-V module, host word order) to *out with, where
// DenormPreserveWidths picks any width and the module has an entry point:
//   OpCapability DenormPreserve                after the last capability,
//   OpExtension "SPV_KHR_float_controls"       after the last extension
//                                              (SPIR-V < 1.4 only),
//   OpExecutionMode %entry DenormPreserve <w>  for every entry point and
//                                              width, after the last entry
//                                              point or execution mode,
// each only where the module lacks it, so that patching twice equals
// patching once; a width some entry point already asks to flush
// (DenormFlushToZero) is left alone. Ids and the bound do not change.
// Otherwise *out is an exact copy.
// Errors: false with *error saying what is malformed ("not SPIR-V", an
// instruction running past the end, no OpCapability), *out untouched.
bool AddDenormPreserve(std::span<const uint32_t> spirv,
                       const DenormSupport& support,
                       std::vector<uint32_t>* out, std::string* error);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_SPIRV_DENORM_H_
