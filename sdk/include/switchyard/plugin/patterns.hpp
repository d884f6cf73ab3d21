// Builders for a plugin's pattern kernels (SY_EXTENSION_PATTERNS,
// switchyard/plugin/fusion.h), so that the tables are data:
//
//   constexpr sy_pattern_node_t kMatmulAdd[] = {
//       {"matmul", {-1, -2, 0, 0}, 2, 0, nullptr},
//       {"add.Tensor", {0, -3, 0, 0}, 2, 0, nullptr},
//   };
//   constexpr sy_pattern_t kPatterns[] = {
//       plugin::Pattern("matmul_add", "cpu", kMatmulAdd, 3, "vendor::matmul_add")};
//   constexpr sy_patterns_extension_t kExtension = plugin::PatternsExtension(kPatterns);
//
// The pattern's node count and the extension's pattern count come from the
// arrays. The arrays and strings must live as long as the library (make
// them constexpr or static).
#ifndef SWITCHYARD_PLUGIN_PATTERNS_HPP_
#define SWITCHYARD_PLUGIN_PATTERNS_HPP_

#include <cstddef>
#include <cstdint>

#include "switchyard/plugin.h"

namespace sy::plugin {

// One pattern: `nodes` in order (the last one's output is the result), on
// devices of `device_type`, with `inputs` pattern inputs, replaced by a
// call of the plugin's op `replacement`.
template <size_t N>
constexpr sy_pattern_t Pattern(const char* name, const char* device_type,
                               const sy_pattern_node_t (&nodes)[N], int32_t inputs,
                               const char* replacement) noexcept {
  return {.struct_size = sizeof(sy_pattern_t),
          .extension = nullptr,
          .name = name,
          .device_type = device_type,
          .nodes = nodes,
          .num_nodes = static_cast<int32_t>(N),
          .num_inputs = inputs,
          .replacement = replacement};
}

// The extension carrying `patterns`, chained to `next`.
template <size_t N>
constexpr sy_patterns_extension_t PatternsExtension(const sy_pattern_t (&patterns)[N],
                                                    const sy_extension_t* next = nullptr) noexcept {
  return {.base = {.struct_size = sizeof(sy_patterns_extension_t),
                   .type = SY_EXTENSION_PATTERNS,
                   .reserved = 0,
                   .next = next},
          .patterns = patterns,
          .num_patterns = static_cast<int32_t>(N),
          .reserved = 0};
}

}  // namespace sy::plugin

#endif  // SWITCHYARD_PLUGIN_PATTERNS_HPP_
