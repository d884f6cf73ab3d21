#include "rocm_test_env.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "dispatcher/base/log.h"

namespace sy::rocm_test {
using namespace ::sy::core;  // NOLINT: the suite drives the core directly

std::string CpuManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json";
}
std::string RocmManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/rocm.json";
}

RocmEnv& Env() {
  static RocmEnv* const env = [] {
    auto* e = new RocmEnv;
    // Capture the log while the plugins load (the rocm plugin says there
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
    options.loader.search_paths = {CpuManifest(), RocmManifest()};
    absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
    SetLogSink(nullptr);
    SetLogLevel(previous_level);
    e->load_log = *lines;
    if (!runtime.ok()) {
      std::fprintf(stderr, "rocm tests: the runtime failed to start: %s\n",
                   std::string(runtime.status().message()).c_str());
      std::abort();
    }
    e->runtime = std::move(*runtime);
    e->cpu = e->runtime->GetDevice("cpu").value_or(nullptr);
    absl::StatusOr<Device*> rocm = e->runtime->GetDevice("rocm:0");
    int kernels = 0;
    for (const LoadRecord& r : e->runtime->LoadRecords()) {
      if (r.name == "rocm") kernels = r.num_kernels;
    }
    if (rocm.ok() && kernels == 0) {
      // A GPU the plugin was not built for: the load record says so.
      e->skip_reason = "no rocm kernels were registered";
      for (const std::string& line : e->load_log) {
        const size_t at = line.find("no rocm kernels were registered");
        if (at != std::string::npos) e->skip_reason = line.substr(at);
      }
    } else if (rocm.ok()) {
      e->rocm = *rocm;
    } else {
      e->skip_reason = "no ROCm device: ";
      for (const std::string& line : e->load_log) {
        const size_t at = line.find("no ROCm device: ");
        if (at != std::string::npos) {
          e->skip_reason = line.substr(at);
          break;
        }
      }
      if (e->skip_reason == "no ROCm device: ") {
        e->skip_reason += std::string(rocm.status().message());
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

}  // namespace sy::rocm_test
