#include "thresholds.h"

#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace sy::onednn {
namespace {

// One pair of values and the specs registered with it.
struct Registration {
  Thresholds thresholds;
  std::vector<KernelData> data;  // sized once, so the pointers stay put
  std::vector<plugin::KernelSpec> specs;
};

}  // namespace

std::span<const plugin::KernelSpec> SpecsWithThresholds(
    std::span<const plugin::KernelSpec> specs, const Thresholds& thresholds) {
  // Never destroyed (Note [Options per runtime]): kernels of a runtime that
  // outlives static destruction may still read their KernelData.
  static auto* const mu = new std::mutex;
  static auto* const registrations =
      new std::map<std::pair<int64_t, int64_t>, std::unique_ptr<Registration>>;
  std::lock_guard<std::mutex> lock(*mu);
  std::unique_ptr<Registration>& entry =
      (*registrations)[{thresholds.min_elements, thresholds.min_matmul_flops}];
  if (entry == nullptr) {
    // The kernel list is built once per process (onednn_plugin.cc), so one
    // pair's wrapped specs serve every later load with that pair.
    entry = std::make_unique<Registration>();
    entry->thresholds = thresholds;
    entry->data.reserve(specs.size());
    entry->specs.assign(specs.begin(), specs.end());
    for (plugin::KernelSpec& spec : entry->specs) {
      entry->data.push_back({spec.kernel_data, &entry->thresholds});
      spec.kernel_data = &entry->data.back();
    }
  }
  return entry->specs;
}

const Thresholds& ThresholdsOf(const sy_kernel_call_t* call) noexcept {
  static const Thresholds defaults;
  if (call == nullptr || call->kernel_data == nullptr) return defaults;
  return *static_cast<const KernelData*>(call->kernel_data)->thresholds;
}

}  // namespace sy::onednn
