// Finding the plugins' fusion hooks and pattern kernels: the entries of
// type SY_EXTENSION_FUSION and SY_EXTENSION_PATTERNS on the extension
// chains of the device tables plugins registered and of the plugins' own
// tables (plugin.h, Note [Extension chain]).
//
// An entry whose struct_size is too small for what it must hold, or whose
// required hooks are NULL, is skipped, and the reason kept in
// Backends::notes (graph descriptions show them).
//
// Thread-safety: FindBackends reads the runtime's device types under its
// lock; the result is a snapshot, valid while the plugins stay loaded.
#ifndef SWITCHYARD_FUSION_BACKEND_BACKENDS_H_
#define SWITCHYARD_FUSION_BACKEND_BACKENDS_H_

#include <string>
#include <vector>

#include "dispatcher/memory/device.h"
#include "dispatcher/base/plugin_instance.h"
#include "dispatcher/registry/runtime_state.h"
#include "switchyard/plugin.h"

namespace sy::fusion {

// One device type's fused-kernel compiler.
struct FusionBackend {
  const sy_fusion_extension_t* ext = nullptr;
  const core::DeviceType* device_type = nullptr;
  core::PluginInstance* plugin = nullptr;  // whose hooks these are
  std::string plugin_name;
  std::string plugin_version;
  std::string compiler;  // sy_fusion_extension_t.compiler
  std::vector<sy_dtype_t> dtypes;
  bool row_reductions = false;
  int32_t max_instrs = 0;  // 0: no limit
  int32_t max_inputs = 0;
  int32_t max_outputs = 0;
  int64_t max_row_length = 0;
  // The plugin lists launch configurations (fused_configs, since 1.3).
  bool has_configs = false;

  bool Accepts(sy_dtype_t dtype) const;
  // "cpu plugin (cpu evaluator 1)".
  std::string Describe() const;
};

// One pattern a plugin registered.
struct PatternEntry {
  const sy_pattern_t* pattern = nullptr;
  core::PluginInstance* plugin = nullptr;
  std::string device_type;
};

struct Backends {
  std::vector<FusionBackend> fusion;
  std::vector<PatternEntry> patterns;
  std::vector<std::string> notes;

  // The compiler for a device type, or null.
  const FusionBackend* For(const core::DeviceType& type) const;
};

Backends FindBackends(core::RuntimeState& state);

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_BACKEND_BACKENDS_H_
