#include "fusion/backend/backends.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "dispatcher/loading/plugin_library.h"

namespace sy::fusion {
namespace {

void AddFusion(Backends& out, const sy_extension_t* entry,
               const core::DeviceType* type, core::PluginInstance* plugin,
               core::DeviceManager& devices) {
  const char* who = plugin != nullptr ? plugin->name().c_str() : "?";
  if (entry->struct_size < SY_STRUCT_SIZE(sy_fusion_extension_t, self)) {
    out.notes.push_back(absl::StrCat(
        "plugin '", who, "': its fusion extension has struct_size ",
        entry->struct_size, ", smaller than ABI 1.1's; skipped"));
    return;
  }
  const auto* ext = reinterpret_cast<const sy_fusion_extension_t*>(entry);
  if (ext->compile_fused == nullptr || ext->launch_fused == nullptr ||
      ext->release_fused == nullptr) {
    out.notes.push_back(absl::StrCat(
        "plugin '", who, "': its fusion extension lacks compile_fused, "
        "launch_fused or release_fused; skipped"));
    return;
  }
  if (type == nullptr) {
    // On a plugin table: the entry names the device type it compiles for.
    if (ext->device_type == nullptr) {
      out.notes.push_back(absl::StrCat("plugin '", who,
                                       "': a fusion extension on the plugin "
                                       "table must name its device_type; skipped"));
      return;
    }
    type = devices.FindType(ext->device_type);
    if (type == nullptr) return;  // nobody provides that type here
  } else if (ext->device_type != nullptr && type->name() != ext->device_type) {
    out.notes.push_back(absl::StrCat(
        "plugin '", who, "': the fusion extension on device type '",
        type->name(), "' names device type '", ext->device_type, "'; skipped"));
    return;
  }
  for (const FusionBackend& b : out.fusion) {
    if (b.device_type == type) return;  // the first one found wins
  }
  FusionBackend b;
  b.ext = ext;
  b.device_type = type;
  b.plugin = plugin;
  b.plugin_name = who;
  b.plugin_version = plugin != nullptr ? plugin->version() : "";
  b.compiler = ext->compiler != nullptr ? ext->compiler : "";
  if (ext->dtypes != nullptr && ext->num_dtypes > 0) {
    b.dtypes.assign(ext->dtypes, ext->dtypes + ext->num_dtypes);
  }
  b.row_reductions = (ext->flags & SY_FUSION_FLAG_ROW_REDUCTIONS) != 0;
  b.max_instrs = std::max<int32_t>(ext->max_instrs, 0);
  b.max_inputs = std::max<int32_t>(ext->max_inputs, 0);
  b.max_outputs = std::max<int32_t>(ext->max_outputs, 0);
  b.max_row_length = std::max<int64_t>(ext->max_row_length, 0);
  b.has_configs = entry->struct_size >= SY_STRUCT_SIZE(sy_fusion_extension_t, fused_configs) &&
                  ext->fused_configs != nullptr;
  out.fusion.push_back(std::move(b));
}

void AddPatterns(Backends& out, const sy_extension_t* entry,
                 const core::DeviceType* type, core::PluginInstance* plugin) {
  const char* who = plugin != nullptr ? plugin->name().c_str() : "?";
  if (entry->struct_size < SY_STRUCT_SIZE(sy_patterns_extension_t, reserved)) {
    out.notes.push_back(absl::StrCat("plugin '", who,
                                     "': its patterns extension is too small; skipped"));
    return;
  }
  const auto* ext = reinterpret_cast<const sy_patterns_extension_t*>(entry);
  for (int32_t i = 0; i < ext->num_patterns && ext->patterns != nullptr; ++i) {
    const sy_pattern_t& p = ext->patterns[i];
    if (p.struct_size < SY_STRUCT_SIZE(sy_pattern_t, replacement) ||
        p.nodes == nullptr || p.num_nodes < 1 || p.replacement == nullptr ||
        p.num_inputs < 1 || p.num_inputs > 8) {
      out.notes.push_back(absl::StrCat("plugin '", who, "': pattern #", i,
                                       " is incomplete; skipped"));
      continue;
    }
    PatternEntry e;
    e.pattern = &p;
    e.plugin = plugin;
    e.device_type = p.device_type != nullptr ? p.device_type
                    : type != nullptr        ? type->name()
                                             : "";
    out.patterns.push_back(std::move(e));
  }
}

void Walk(Backends& out, const sy_extension_t* chain, const core::DeviceType* type,
          core::PluginInstance* plugin, core::DeviceManager& devices) {
  // A chain is a plugin's static data; a cycle would be a plugin bug, and
  // the bound keeps it from hanging the host.
  for (int guard = 0; chain != nullptr && guard < 64; chain = chain->next, ++guard) {
    if (chain->struct_size < sizeof(sy_extension_t)) break;
    if (chain->type == SY_EXTENSION_FUSION) {
      AddFusion(out, chain, type, plugin, devices);
    } else if (chain->type == SY_EXTENSION_PATTERNS) {
      AddPatterns(out, chain, type, plugin);
    }
  }
}

}  // namespace

bool FusionBackend::Accepts(sy_dtype_t dtype) const {
  return std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end();
}

std::string FusionBackend::Describe() const {
  return absl::StrCat("plugin '", plugin_name, "' (", compiler, ")");
}

const FusionBackend* Backends::For(const core::DeviceType& type) const {
  for (const FusionBackend& b : fusion) {
    if (b.device_type == &type) return &b;
  }
  return nullptr;
}

Backends FindBackends(core::RuntimeState& state) {
  Backends out;
  for (core::DeviceType* type : state.devices.Types()) {
    Walk(out, type->api().extension, type, type->plugin(), state.devices);
  }
  std::lock_guard<std::mutex> lock(state.plugins_mu);
  for (const auto& plugin : state.plugins) {
    if (plugin->library() == nullptr) continue;
    Walk(out, plugin->library()->table().extension, nullptr, plugin.get(),
         state.devices);
  }
  return out;
}

}  // namespace sy::fusion
