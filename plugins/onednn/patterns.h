// The patterns the fusion pass may replace by the plugin's fused ops
// (kernels/fused_ops.cc), on the plugin table's extension chain
// (SY_EXTENSION_PATTERNS, switchyard/plugin/fusion.h):
//
//   matmul → add.Tensor → gelu  → onednn::matmul_add_gelu
//   matmul → add.Tensor         → onednn::matmul_add
//   linear (→ bias) → gelu      → onednn::linear_gelu
//
// gelu's `approximate` is carried over by name. The pass decomposes a
// small `linear` (one the plugin's kernels decline) into matmul and add
// before it looks for patterns, and keeps a large one whole: both forms
// are covered. Nothing fuses a relu: oneDNN's relu post-op maps NaN to 0,
// where the core's relu keeps it, so the replacement would change what a
// graph computes (onednn::linear_relu stays callable by name).
#ifndef SWITCHYARD_PLUGINS_ONEDNN_PATTERNS_H_
#define SWITCHYARD_PLUGINS_ONEDNN_PATTERNS_H_

#include "switchyard/plugin.h"

namespace sy::onednn {

// Static; lives as long as the library.
const sy_extension_t* PatternsExtension();

}  // namespace sy::onednn

#endif  // SWITCHYARD_PLUGINS_ONEDNN_PATTERNS_H_
