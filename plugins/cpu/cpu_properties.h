// What the cpu device reports through get_properties, read from the host.
#ifndef SWITCHYARD_PLUGINS_CPU_CPU_PROPERTIES_H_
#define SWITCHYARD_PLUGINS_CPU_CPU_PROPERTIES_H_

#include <cstdint>
#include <string>

namespace sy::cpu {

struct CpuProperties {
  std::string name;                 // "host CPU (<model name>)", or "host CPU"
  std::string vendor;               // /proc/cpuinfo vendor_id, or "unknown"
  std::string driver_version;       // the kernel release (uname -r)
  uint64_t total_memory_bytes = 0;  // physical pages × page size; 0 if unknown
  int32_t compute_units = 1;  // std::thread::hardware_concurrency, at least 1
};

// Read on the first call (from /proc/cpuinfo, uname and sysconf), then
// cached until the library is closed, so the strings can be handed to the
// host as plugin.h requires. Thread-safe.
const CpuProperties& GetCpuProperties();

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_CPU_PROPERTIES_H_
