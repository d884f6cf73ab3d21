// The cpu plugin's fusion hooks (sy_fusion_extension_t, plugin.h): the
// tiled evaluator of fused_program.h behind compile_fused / launch_fused /
// release_fused, on the extension chain of the cpu device table.
//
// compile_fused builds a Program (microseconds: there is no code to
// generate), so there is no binary to cache on disk and no load_fused.
// Limits: row reductions yes; every dtype of the core set for loads and
// stores; no limits on size.
#ifndef SWITCHYARD_PLUGINS_CPU_FUSED_FUSION_EXTENSION_H_
#define SWITCHYARD_PLUGINS_CPU_FUSED_FUSION_EXTENSION_H_

#include "switchyard/plugin.h"

namespace sy::cpu {

// Static; lives as long as the library. Its address is a constant, so the
// cpu device table (cpu_device.cc) can point at it.
extern const sy_fusion_extension_t kCpuFusionExtension;

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_FUSED_FUSION_EXTENSION_H_
