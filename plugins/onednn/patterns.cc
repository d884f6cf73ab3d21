#include "patterns.h"

#include <iterator>

namespace sy::onednn {
namespace {

// Matched longest first (the host sorts by node count); a node's inputs
// are earlier nodes (>= 0) or pattern inputs -(k+1).
constexpr sy_pattern_node_t kMatmulAddGelu[] = {
    {"matmul", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"add.Tensor", {0, -3, 0, 0}, 2, 0, nullptr},
    {"gelu", {1, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_node_t kLinearBiasGelu[] = {
    {"linear", {-1, -2, -3, 0}, 3, 0, nullptr},
    {"gelu", {0, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_node_t kLinearGelu[] = {
    {"linear", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"gelu", {0, 0, 0, 0}, 1, 0, nullptr},
};
constexpr sy_pattern_node_t kMatmulAdd[] = {
    {"matmul", {-1, -2, 0, 0}, 2, 0, nullptr},
    {"add.Tensor", {0, -3, 0, 0}, 2, 0, nullptr},
};

constexpr sy_pattern_t Pattern(const char* name, const sy_pattern_node_t* nodes,
                               int32_t count, int32_t inputs, const char* replacement) {
  return {.struct_size = sizeof(sy_pattern_t),
          .extension = nullptr,
          .name = name,
          .device_type = "cpu",
          .nodes = nodes,
          .num_nodes = count,
          .num_inputs = inputs,
          .replacement = replacement};
}

constexpr sy_pattern_t kPatterns[] = {
    Pattern("matmul_add_gelu", kMatmulAddGelu, 3, 3, "onednn::matmul_add_gelu"),
    Pattern("matmul_add", kMatmulAdd, 2, 3, "onednn::matmul_add"),
    Pattern("linear_bias_gelu", kLinearBiasGelu, 2, 3, "onednn::linear_gelu"),
    Pattern("linear_gelu", kLinearGelu, 2, 2, "onednn::linear_gelu"),
};

constexpr sy_patterns_extension_t kExtension = {
    .base = {.struct_size = sizeof(sy_patterns_extension_t),
             .type = SY_EXTENSION_PATTERNS,
             .reserved = 0,
             .next = nullptr},
    .patterns = kPatterns,
    .num_patterns = static_cast<int32_t>(std::size(kPatterns)),
    .reserved = 0,
};

}  // namespace

const sy_extension_t* PatternsExtension() { return &kExtension.base; }

}  // namespace sy::onednn
