#include "fused/fusion_extension.h"

#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fused/fused_kernels.h"
#include "fused/spirv_compiler.h"
#include "kernels/kernel_util.h"

namespace sy::vulkan {
namespace {

const char* Env(const char* name) {
#ifdef __GLIBC__
  return secure_getenv(name);
#else
  return std::getenv(name);
#endif
}

// Whether `list` ("f32,f16") names `dtype`; an absent list names all.
bool Listed(const char* list, sy_dtype_t dtype) {
  if (list == nullptr) return true;
  const std::string_view want = ShaderDtype(dtype);
  std::string_view rest = list;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    if (rest.substr(0, comma) == want) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

std::vector<sy_dtype_t> FusedDtypes(const Caps& caps) {
  const char* only = Env("SWITCHYARD_VULKAN_FUSION_DTYPES");
  std::vector<sy_dtype_t> out;
  auto add = [&](sy_dtype_t d, bool ok) {
    if (ok && Listed(only, d)) out.push_back(d);
  };
  add(SY_DTYPE_F32, true);
  add(SY_DTYPE_F16, caps.storage16);
  add(SY_DTYPE_BOOL, caps.storage8);
  add(SY_DTYPE_I8, caps.storage8);
  add(SY_DTYPE_U8, caps.storage8);
  add(SY_DTYPE_I32, caps.float64);
  add(SY_DTYPE_I64, caps.float64 && caps.int64);
  return out;
}

std::vector<sy_dtype_t> g_dtypes;
std::string g_compiler;

sy_fusion_extension_t g_fusion = {
    .base = {.struct_size = sizeof(sy_fusion_extension_t),
             .type = SY_EXTENSION_FUSION,
             .reserved = 0,
             .next = nullptr},
    .device_type = "vulkan",
    .compiler = nullptr,  // set on first use: shaderc's version
    .flags = SY_FUSION_FLAG_ROW_REDUCTIONS,
    .max_instrs = 1024,
    .max_inputs = 32,
    .max_outputs = 16,
    .max_row_length = 0,
    .dtypes = nullptr,
    .num_dtypes = 0,
    .reserved = 0,
    .compile_fused = fusion::CompileFused,
    .load_fused = fusion::LoadFused,
    .launch_fused = fusion::LaunchFused,
    .release_fused = fusion::ReleaseFused,
    .self = nullptr,
    // One way to run each kernel (a workgroup of 256, one row per
    // workgroup): nothing for the autotuner to choose.
    .fused_configs = nullptr,
};

}  // namespace

const sy_device_api_t& WithFusionHooks(const sy_device_api_t& device, const Caps& caps) {
  static sy_device_api_t api;
  static std::once_flag once;
  std::call_once(once, [&] {
    g_dtypes = FusedDtypes(caps);
    // The generator's version goes with shaderc's into the host's cache key.
    g_compiler = fusion::ShadercVersion() + " glsl codegen 2";
    g_fusion.compiler = g_compiler.c_str();
    g_fusion.dtypes = g_dtypes.data();
    g_fusion.num_dtypes = static_cast<int32_t>(g_dtypes.size());
    g_fusion.base.next = device.extension;  // the table's own chain follows
    api = device;
    api.extension = &g_fusion.base;
  });
  return api;
}

}  // namespace sy::vulkan
