#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_join.h"
#include "commands.h"
#include "nlohmann/json.hpp"

namespace sy::cli {

int RunInfo(Runtime& runtime, bool json) {
  nlohmann::json info = runtime.Info();
  if (json) {
    std::printf("%s\n", info.dump(2).c_str());
    return 0;
  }
  std::printf("Switchyard %s, plugin ABI %s\n\n",
              info["version"].get<std::string>().c_str(),
              info["abi"].get<std::string>().c_str());
  std::printf("Plugins:\n");
  for (const LoadRecord& record : runtime.LoadRecords()) {
    std::printf("  %s\n", DescribeLoadRecord(record).c_str());
  }
  if (runtime.LoadRecords().empty()) {
    std::printf("  none found (set SWITCHYARD_PLUGIN_PATH)\n");
  }
  std::printf("\nDevices:\n");
  for (const auto& d : info["devices"]) {
    std::printf("  %-10s %s (%s), %d compute units, %.1f GiB, plugin %s\n",
                d["label"].get<std::string>().c_str(),
                d["name"].get<std::string>().c_str(),
                d["vendor"].get<std::string>().c_str(),
                d["compute_units"].get<int>(),
                d["total_memory_bytes"].get<double>() / (1 << 30),
                d["plugin"].get<std::string>().c_str());
  }
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
      for (const auto& k : op["kernels"]) kernel |= k["device_type"] == type;
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

int RunOps(Runtime& runtime, bool json) {
  nlohmann::json info = runtime.Info();
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
