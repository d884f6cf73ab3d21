#include "cpu_properties.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <string_view>
#include <thread>

#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

// The value of the first "key<blanks>: value" line of /proc/cpuinfo, or "".
// x86 kernels write "model name" and "vendor_id"; others may write neither,
// which leaves the fallbacks.
std::string CpuInfoField(std::string_view key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (line.find_first_not_of(" \t", key.size()) != colon) continue;
    const size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

CpuProperties ReadProperties() {
  CpuProperties p;
  const std::string model = CpuInfoField("model name");
  p.name =
      model.empty() ? "host CPU" : plugin::StrCat("host CPU (", model, ")");
  p.vendor = CpuInfoField("vendor_id");
  if (p.vendor.empty()) p.vendor = "unknown";
  utsname uts{};
  p.driver_version = uname(&uts) == 0 ? uts.release : "unknown";
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    p.total_memory_bytes =
        static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
  }
  const unsigned threads = std::thread::hardware_concurrency();
  p.compute_units = threads == 0 ? 1 : static_cast<int32_t>(threads);
  return p;
}

}  // namespace

const CpuProperties& GetCpuProperties() {
  static const CpuProperties properties = ReadProperties();
  return properties;
}

}  // namespace sy::cpu
