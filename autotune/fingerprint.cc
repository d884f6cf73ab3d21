#include "autotune/fingerprint.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace sy::autotune {
namespace {

std::string Field(const std::string& text) {
  return absl::StrReplaceAll(text, {{"|", "/"}, {"\n", " "}});
}

// "sm_90" / "sm_100" anywhere in a driver text → "9.0" / "10.0"; "" if none.
std::string ComputeCapabilityIn(const std::string& driver) {
  for (size_t at = driver.find("sm_"); at != std::string::npos;
       at = driver.find("sm_", at + 1)) {
    size_t end = at + 3;
    while (end < driver.size() && std::isdigit(static_cast<unsigned char>(driver[end]))) {
      ++end;
    }
    const std::string digits = driver.substr(at + 3, end - at - 3);
    if (digits.size() >= 2) {
      return absl::StrCat(digits.substr(0, digits.size() - 1), ".",
                          digits.substr(digits.size() - 1));
    }
  }
  return "";
}

}  // namespace

std::string DeviceFingerprint::Text() const {
  return absl::StrCat(Field(device_type), "|", Field(name), "|", Field(vendor),
                      "|", Field(driver), "|cc ",
                      compute_capability.empty() ? "-" : compute_capability,
                      "|", compute_units, " units");
}

DeviceFingerprint FingerprintOf(const core::Device& device) {
  const core::DeviceProperties& p = device.properties();
  DeviceFingerprint f;
  f.device_type = device.type().name();
  f.name = p.name;
  f.vendor = p.vendor;
  // The cpu plugin reports the OS kernel's release as its driver: not
  // something that changes which kernel is fastest.
  if (f.device_type != "cpu") f.driver = p.driver_version;
  f.compute_capability = ComputeCapabilityIn(p.driver_version);
  f.compute_units = p.compute_units;
  return f;
}

}  // namespace sy::autotune
