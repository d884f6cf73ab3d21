#include "patterns.h"

#include "switchyard/plugin.hpp"

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

constexpr sy_pattern_t kPatterns[] = {
    plugin::Pattern("matmul_add_gelu", "cpu", kMatmulAddGelu, 3, "onednn::matmul_add_gelu"),
    plugin::Pattern("matmul_add", "cpu", kMatmulAdd, 3, "onednn::matmul_add"),
    plugin::Pattern("linear_bias_gelu", "cpu", kLinearBiasGelu, 3, "onednn::linear_gelu"),
    plugin::Pattern("linear_gelu", "cpu", kLinearGelu, 2, "onednn::linear_gelu"),
};

constexpr sy_patterns_extension_t kExtension = plugin::PatternsExtension(kPatterns);

}  // namespace

const sy_extension_t* PatternsExtension() { return &kExtension.base; }

}  // namespace sy::onednn
