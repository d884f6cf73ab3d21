#include "fused/fusion_extension.h"

#include <mutex>

#include "fused/fused_kernels.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {
namespace {

constexpr sy_dtype_t kDtypes[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16,
                                  SY_DTYPE_BF16, SY_DTYPE_I32, SY_DTYPE_I64,
                                  SY_DTYPE_I8,  SY_DTYPE_U8,  SY_DTYPE_BOOL};

constexpr sy_attr_t kTanh = {.kind = SY_ATTR_STRING,
                             .reserved = 0,
                             .value = {.str = {"tanh", 4}}};

// Matched longest first (the host sorts by node count).
constexpr sy_pattern_node_t kLinearBiasGelu[] = {
    {"linear", {-1, -2, -3, 0}, 3, 0, nullptr},
    {"gelu", {0, 0, 0, 0}, 1, 1, &kTanh},
};
constexpr sy_pattern_node_t kLinearGelu[] = {
    {"linear", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"gelu", {0, 0, 0, 0}, 1, 1, &kTanh},
};
constexpr sy_pattern_node_t kMatmulBiasGelu[] = {
    {"matmul", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"add.Tensor", {0, -3, 0, 0}, 2, 0, nullptr},
    {"gelu", {1, 0, 0, 0}, 1, 1, &kTanh},
};
constexpr sy_pattern_node_t kMatmulBias[] = {
    {"matmul", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"add.Tensor", {0, -3, 0, 0}, 2, 0, nullptr},
};
// conv2d's stride, padding, dilation and groups reach cuda::conv2d_relu by
// name (the pass carries attributes of the same name over).
constexpr sy_pattern_node_t kConv2dBiasRelu[] = {
    {"conv2d", {-1, -2, -3, 0}, 3, 0, nullptr},
    {"relu", {0, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_node_t kConv2dRelu[] = {
    {"conv2d", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"relu", {0, 0, 0, 0}, 1, 0, nullptr},
};

constexpr sy_pattern_t kPatterns[] = {
    plugin::Pattern("linear_bias_gelu_tanh", "cuda", kLinearBiasGelu, 3, "cuda::linear_gelu"),
    plugin::Pattern("linear_gelu_tanh", "cuda", kLinearGelu, 2, "cuda::linear_gelu"),
    plugin::Pattern("matmul_bias_gelu_tanh", "cuda", kMatmulBiasGelu, 3, "cuda::matmul_bias_gelu"),
    plugin::Pattern("matmul_bias", "cuda", kMatmulBias, 3, "cuda::matmul_bias"),
    plugin::Pattern("conv2d_bias_relu", "cuda", kConv2dBiasRelu, 3, "cuda::conv2d_relu"),
    plugin::Pattern("conv2d_relu", "cuda", kConv2dRelu, 2, "cuda::conv2d_relu"),
};

sy_patterns_extension_t g_patterns = plugin::PatternsExtension(kPatterns);

sy_fusion_extension_t g_fusion = {
    .base = {.struct_size = sizeof(sy_fusion_extension_t),
             .type = SY_EXTENSION_FUSION,
             .reserved = 0,
             .next = &g_patterns.base},
    .device_type = "cuda",
    .compiler = nullptr,  // set on first use: NVRTC's version
    .flags = SY_FUSION_FLAG_ROW_REDUCTIONS,
    .max_instrs = 2048,
    .max_inputs = 48,
    .max_outputs = 16,
    .max_row_length = 0,
    .dtypes = kDtypes,
    .num_dtypes = 9,
    .reserved = 0,
    .compile_fused = fusion::CompileFused,
    .load_fused = fusion::LoadFused,
    .launch_fused = fusion::LaunchFused,
    .release_fused = fusion::ReleaseFused,
    .self = nullptr,
    .fused_configs = fusion::FusedConfigs,
};

}  // namespace

const sy_device_api_t& WithFusionHooks(const sy_device_api_t& device) {
  static sy_device_api_t api;
  static std::once_flag once;
  std::call_once(once, [&] {
    g_fusion.compiler = fusion::CompilerName();
    g_patterns.base.next = device.extension;  // the table's own chain follows
    api = device;
    api.extension = &g_fusion.base;
  });
  return api;
}

}  // namespace sy::cuda
