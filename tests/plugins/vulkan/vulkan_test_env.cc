#include "vulkan_test_env.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "dispatcher/base/log.h"

namespace sy::vulkan_test {
using namespace ::sy::core;  // NOLINT: the suite drives the core directly

std::string CpuManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json";
}
std::string VulkanManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/vulkan.json";
}

VulkanEnv& Env() {
  static VulkanEnv* const env = [] {
    auto* e = new VulkanEnv;
    // Capture the log while the plugins load (the vulkan plugin says there
    // why it has no devices), then give stderr back.
    auto lines = std::make_shared<std::vector<std::string>>();
    auto mu = std::make_shared<std::mutex>();
    // The plugin says it at info level: lower the threshold meanwhile.
    const LogLevel previous_level = GetLogLevel();
    SetLogLevel(LogLevel::kInfo);
    SetLogSink([lines, mu](LogLevel, absl::string_view message) {
      std::lock_guard<std::mutex> lock(*mu);
      lines->emplace_back(message);
    });
    RuntimeOptions options;
    options.loader.use_environment = false;
    options.loader.use_default_path = false;
    options.loader.search_paths = {CpuManifest(), VulkanManifest()};
    absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
    SetLogSink(nullptr);
    SetLogLevel(previous_level);
    e->load_log = *lines;
    if (!runtime.ok()) {
      std::fprintf(stderr, "vulkan tests: the runtime failed to start: %s\n",
                   std::string(runtime.status().message()).c_str());
      std::abort();
    }
    e->runtime = std::move(*runtime);
    e->cpu = e->runtime->GetDevice("cpu").value_or(nullptr);
    absl::StatusOr<Device*> vulkan = e->runtime->GetDevice("vulkan:0");
    if (vulkan.ok()) {
      e->vulkan = *vulkan;
    } else {
      e->skip_reason = "no Vulkan device: ";
      for (const std::string& line : e->load_log) {
        const size_t at = line.find("no Vulkan device: ");
        if (at != std::string::npos) {
          e->skip_reason = line.substr(at);
          break;
        }
      }
      if (e->skip_reason == "no Vulkan device: ") {
        e->skip_reason += std::string(vulkan.status().message());
      }
    }
    return e;
  }();
  return *env;
}

std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo, float hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> out(n);
  for (float& v : out) v = dist(gen);
  return out;
}

}  // namespace sy::vulkan_test
