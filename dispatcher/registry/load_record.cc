#include "dispatcher/registry/load_record.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace sy::core {

const char* LoadOutcomeName(LoadOutcome outcome) {
  switch (outcome) {
    case LoadOutcome::kLoaded: return "loaded";
    case LoadOutcome::kFailed: return "failed";
    case LoadOutcome::kSkipped: return "skipped";
    case LoadOutcome::kLoadedNoDevices: return "loaded, no devices";
  }
  return "unknown";
}

const char* LoadStageName(LoadStage stage) {
  switch (stage) {
    case LoadStage::kDiscovery: return "discovery";
    case LoadStage::kProbe: return "probe";
    case LoadStage::kManifest: return "manifest";
    case LoadStage::kPolicy: return "policy";
    case LoadStage::kVersion: return "version";
    case LoadStage::kChecksum: return "checksum";
    case LoadStage::kOpen: return "open";
    case LoadStage::kSymbol: return "symbol";
    case LoadStage::kInit: return "init";
    case LoadStage::kOptions: return "options";
    case LoadStage::kRegister: return "register";
    case LoadStage::kDone: return "done";
  }
  return "unknown";
}

namespace {

nlohmann::json OptionsJson(const std::vector<LoadRecordOption>& options) {
  nlohmann::json out = nlohmann::json::array();
  for (const LoadRecordOption& o : options) {
    out.push_back({{"name", o.name},
                   {"type", o.type},
                   {"value", o.value},
                   {"source", o.source},
                   {"help", o.help}});
  }
  return out;
}

}  // namespace

nlohmann::json LoadRecordToJson(const LoadRecord& r) {
  return {
      {"name", r.name},
      {"manifest", r.manifest_path},
      {"library", r.library_path},
      {"requested", r.requested},
      {"outcome", LoadOutcomeName(r.outcome)},
      {"stage", LoadStageName(r.stage)},
      {"reason", r.reason},
      {"host_abi", absl::StrCat(r.host_abi_major, ".", r.host_abi_minor)},
      {"manifest_abi",
       absl::StrCat(r.manifest_abi_major, ".", r.manifest_abi_minor)},
      {"plugin_abi", absl::StrCat(r.plugin_abi_major, ".", r.plugin_abi_minor)},
      {"plugin_version", r.plugin_version},
      {"devices", r.num_devices},
      {"schemas", r.num_schemas},
      {"kernels", r.num_kernels},
      {"load_ms", r.load_ms},
      {"notes", r.notes},
      {"options", OptionsJson(r.options)},
  };
}

std::string DescribeLoadRecord(const LoadRecord& r) {
  std::string who = absl::StrCat("plugin '", r.name, "'");
  if (!r.manifest_path.empty()) absl::StrAppend(&who, " (", r.manifest_path, ")");
  switch (r.outcome) {
    case LoadOutcome::kLoaded:
    case LoadOutcome::kLoadedNoDevices:
      return absl::StrFormat(
          "%s: %s, version %s, plugin ABI %u.%u on host ABI %u.%u; "
          "%d device type(s), %d schema(s), %d kernel(s) in %.1f ms%s",
          who, LoadOutcomeName(r.outcome),
          r.plugin_version.empty() ? "?" : r.plugin_version,
          r.plugin_abi_major, r.plugin_abi_minor, r.host_abi_major,
          r.host_abi_minor, r.num_devices, r.num_schemas, r.num_kernels,
          r.load_ms,
          r.notes.empty() ? "" : absl::StrCat(" — ", absl::StrJoin(r.notes, "; ")));
    case LoadOutcome::kSkipped:
      return absl::StrCat(who, ": skipped — ", r.reason);
    case LoadOutcome::kFailed:
      return absl::StrCat(who, ": failed at the ", LoadStageName(r.stage),
                          " step — ", r.reason);
  }
  return who;
}

}  // namespace sy::core
