// `switchyard info` and `switchyard ops`: the load report, plugin options,
// devices and op coverage, from the context's info JSON and load records.
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "cli_util.h"
#include "commands.h"
#include "nlohmann/json.hpp"

namespace sy::cli {
namespace {

// The context's info document, or why not (printed, exit 1).
bool ReadInfo(const sy::Context& context, nlohmann::json* info) {
  sy::Result<std::string> text = context.info_json();
  if (!text.ok()) {
    std::fprintf(stderr, "switchyard: %s\n", Message(text.status()).c_str());
    return false;
  }
  *info = nlohmann::json::parse(*text);
  return true;
}

// ", flushes f32 subnormals" for a device whose float_flags say so; "" for
// one that keeps them (switchyard/common.h, SY_FLOAT_FLUSHES_*).
std::string FlushedWidths(uint32_t flags) {
  std::vector<std::string> widths;
  if (flags & SY_FLOAT_FLUSHES_F16_SUBNORMALS) widths.push_back("f16");
  if (flags & SY_FLOAT_FLUSHES_F32_SUBNORMALS) widths.push_back("f32/bf16");
  if (flags & SY_FLOAT_FLUSHES_F64_SUBNORMALS) widths.push_back("f64");
  if (widths.empty()) return "";
  return ", flushes " + absl::StrJoin(widths, " and ") + " subnormals";
}

void PrintOptions(const std::vector<sy::LoadRecord>& records) {
  bool any = false;
  for (const sy::LoadRecord& record : records) any |= !record.options.empty();
  if (!any) return;
  std::printf("\nPlugin options (set in the manifest, SWITCHYARD_PLUGIN_OPTIONS="
              "\"plugin.option=value,…\" or the context's options):\n");
  for (const sy::LoadRecord& record : records) {
    for (const sy::PluginOption& o : record.options) {
      const std::string setting = record.name + "." + o.name + " = " +
                                  (o.value.empty() ? "\"\"" : o.value);
      std::printf("  %-36s %-8s (%s) %s\n", setting.c_str(), o.type.c_str(),
                  o.source.c_str(), o.help.c_str());
    }
  }
}

}  // namespace

int RunInfo(const sy::Context& context, bool json) {
  nlohmann::json info;
  if (!ReadInfo(context, &info)) return 1;
  if (json) {
    std::printf("%s\n", info.dump(2).c_str());
    return 0;
  }
  const sy::Versions v = sy::GetVersions();
  std::printf("Switchyard %s, C API %u.%u, plugin ABI %u.%u\n\n", v.library.c_str(),
              v.api_major, v.api_minor, v.plugin_abi_major, v.plugin_abi_minor);
  sy::Result<std::vector<sy::LoadRecord>> records = context.load_records();
  if (!records.ok()) {
    std::fprintf(stderr, "switchyard: %s\n", Message(records.status()).c_str());
    return 1;
  }
  std::printf("Plugins:\n");
  for (const sy::LoadRecord& record : *records) {
    std::printf("  %s\n", record.description.c_str());
  }
  if (records->empty()) std::printf("  none found (set SWITCHYARD_PLUGIN_PATH)\n");
  PrintOptions(*records);
  std::printf("\nDevices:\n");
  for (const auto& d : info["devices"]) {
    std::printf("  %-10s %s (%s), %d compute units, %.1f GiB, plugin %s%s\n",
                d["label"].get<std::string>().c_str(),
                d["name"].get<std::string>().c_str(),
                d["vendor"].get<std::string>().c_str(),
                d["compute_units"].get<int>(),
                d["total_memory_bytes"].get<double>() / (1 << 30),
                d["plugin"].get<std::string>().c_str(),
                FlushedWidths(d.value("float_flags", 0u)).c_str());
  }
  if (info["devices"].empty()) std::printf("  none\n");
  // Coverage: for each op, the device types with kernels (and how).
  std::set<std::string> types;
  for (const auto& op : info["ops"]) {
    for (const auto& k : op["kernels"]) types.insert(k["device_type"].get<std::string>());
  }
  std::printf("\nOp coverage (K = kernel, D = decomposition, V = view, . = none):\n");
  std::printf("  %-34s %s\n", "op", absl::StrJoin(types, "  ").c_str());
  for (const auto& op : info["ops"]) {
    std::string row;
    for (const std::string& type : types) {
      bool kernel = false;
      for (const auto& k : op["kernels"]) {
        kernel |= k["device_type"].get<std::string>() == type;
      }
      char mark = kernel ? 'K'
                  : op["view"].get<bool>() ? 'V'
                  : op["decomposition"].get<bool>() ? 'D' : '.';
      row += std::string(type.size() / 2, ' ') + mark +
             std::string(type.size() - type.size() / 2 + 1, ' ');
    }
    std::printf("  %-34s %s\n", op["name"].get<std::string>().c_str(), row.c_str());
  }
  return 0;
}

int RunOps(const sy::Context& context, bool json) {
  nlohmann::json info;
  if (!ReadInfo(context, &info)) return 1;
  if (json) {
    std::printf("%s\n", info["ops"].dump(2).c_str());
    return 0;
  }
  for (const auto& op : info["ops"]) {
    std::printf("%s\n", op["schema"].get<std::string>().c_str());
  }
  return 0;
}

}  // namespace sy::cli
