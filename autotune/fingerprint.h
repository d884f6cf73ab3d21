// The device fingerprint: which machine a verdict was measured on. A
// verdict applies only where the fingerprint is the same, so it holds what
// changes a kernel's speed and nothing that does not (docs/autotune.md):
// the device type, the device's name and vendor, its driver and runtime
// versions (for cuda the plugin's text also names the compute capability,
// "sm_90", which is pulled out into its own field), and its compute units
// (cores for cpu, SMs for cuda). For cpu the "driver" the plugin reports is
// the kernel release; it is left out, so an OS update keeps the verdicts.
//
// Verdicts are kept per device type (the dispatch key has no device
// index); a runtime uses device 0's fingerprint for its type.
#ifndef SWITCHYARD_AUTOTUNE_FINGERPRINT_H_
#define SWITCHYARD_AUTOTUNE_FINGERPRINT_H_

#include <cstdint>
#include <string>

#include "dispatcher/memory/device.h"

namespace sy::autotune {

struct DeviceFingerprint {
  std::string device_type;         // "cpu", "cuda"
  std::string name;                // "NVIDIA H100 80GB HBM3"
  std::string vendor;
  std::string driver;              // "" for cpu
  std::string compute_capability;  // "9.0" when the driver text says sm_90
  int32_t compute_units = 0;

  // The canonical text stored with every verdict and compared on import:
  // "cuda|NVIDIA H100 80GB HBM3|NVIDIA|CUDA driver 12.4, runtime 12.4,
  // sm_90|cc 9.0|132 units". Fields never contain '|' (replaced by '/').
  std::string Text() const;
};

DeviceFingerprint FingerprintOf(const core::Device& device);

}  // namespace sy::autotune

#endif  // SWITCHYARD_AUTOTUNE_FINGERPRINT_H_
