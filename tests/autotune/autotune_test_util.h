// Shared helpers for the autotuner's tests: runtimes with the cpu plugin and
// the planted test plugin (test_plugins/planted_plugin.cc) and a tuner, fast
// measurement settings, temporary cache folders, and captured warnings.
#ifndef SWITCHYARD_TESTS_AUTOTUNE_AUTOTUNE_TEST_UTIL_H_
#define SWITCHYARD_TESTS_AUTOTUNE_AUTOTUNE_TEST_UTIL_H_

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autotune/tuner.h"
#include "dispatcher/base/log.h"
#include "dispatcher/runtime/runtime.h"
#include "gtest/gtest.h"
#include "../temp_dir.h"

namespace sy::autotune::testing {

inline std::string CpuManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json";
}
// "planted" version 1.0.0 or 2.0.0.
inline std::string PlantedManifest(int version = 1) {
  return absl::StrCat(SWITCHYARD_AUTOTUNE_TEST_PLUGIN_DIR, "/v", version, "/planted.json");
}

// Quick measurements: the planted kernels differ by 40×, so a few short
// rounds are plenty.
inline MeasureOptions QuickMeasure() {
  MeasureOptions m;
  m.budget_ms = 20;
  m.min_rounds = 3;
  m.warmup_ms = 0.5;
  m.sample_target_us = 20;
  m.max_sets = 2;
  return m;
}

using ::sy::testing::TempDir;

struct RuntimeSpec {
  std::vector<std::string> manifests = {CpuManifest(), PlantedManifest(1)};
  core::AutotuneMode mode = core::AutotuneMode::kCached;
  std::string cache_dir;  // "" keeps the cache in memory
  MeasureOptions measure = QuickMeasure();
};

inline std::unique_ptr<core::Runtime> MakeRuntime(const RuntimeSpec& spec = {}) {
  core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = spec.manifests;
  options.autotune = spec.mode;
  TunerOptions tuner;
  tuner.in_memory = spec.cache_dir.empty();
  if (!spec.cache_dir.empty()) tuner.cache_dir = spec.cache_dir;
  tuner.measure = spec.measure;
  options.tuner_factory = MakeTunerFactory(tuner);
  absl::StatusOr<std::unique_ptr<core::Runtime>> runtime = core::Runtime::Create(options);
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return runtime.ok() ? *std::move(runtime) : nullptr;
}

inline Tuner& TunerOf(core::Runtime& runtime) {
  return *static_cast<Tuner*>(runtime.tuner());
}

inline std::vector<float> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return v;
}

inline core::Tensor F32(core::Runtime& runtime, const std::string& device,
                        std::vector<int64_t> shape, uint32_t seed) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  std::vector<float> data = Random(n, seed);
  core::Device* dev = runtime.GetDevice(device).value();
  return runtime.FromHost(*dev, SY_DTYPE_F32, shape, data.data(), n * 4).value();
}

inline std::vector<float> Read(core::Runtime& runtime, const core::Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.numel()));
  EXPECT_TRUE(runtime.ToHost(t, out.data(), out.size() * 4).ok());
  return out;
}

// CallArgs over `inputs` (which must outlive the args).
inline core::CallArgs ArgsOf(const std::vector<const core::Tensor*>& inputs) {
  core::CallArgs args;
  args.inputs = inputs;
  return args;
}

// Tunes a binary op of two random [shape] inputs on `device`.
inline absl::StatusOr<TuneReport> TuneBinary(core::Runtime& runtime, const std::string& op,
                                             const std::string& device,
                                             std::vector<int64_t> shape,
                                             TuneCallOptions options = {}) {
  core::Tensor a = F32(runtime, device, shape, 1);
  core::Tensor b = F32(runtime, device, shape, 2);
  std::vector<const core::Tensor*> inputs = {&a, &b};
  options.measure = QuickMeasure();
  return TunerOf(runtime).TuneCall(runtime.FindOp(op).value(), ArgsOf(inputs), options);
}

inline std::string ExplainBinary(core::Runtime& runtime, const std::string& op,
                                 const std::string& device, std::vector<int64_t> shape) {
  core::Tensor a = F32(runtime, device, shape, 1);
  core::Tensor b = F32(runtime, device, shape, 2);
  absl::StatusOr<std::string> text = runtime.Explain(runtime.FindOp(op).value(), {a, b});
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : "";
}

// Captures the log's warnings while it lives.
class CapturedLog {
 public:
  CapturedLog() {
    core::SetLogSink([this](core::LogLevel level, absl::string_view line) {
      if (level > core::LogLevel::kWarning) return;
      std::lock_guard<std::mutex> lock(mu_);
      lines_.emplace_back(line);
    });
  }
  ~CapturedLog() { core::SetLogSink(nullptr); }
  std::string Text() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string all;
    for (const std::string& l : lines_) absl::StrAppend(&all, l, "\n");
    return all;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

}  // namespace sy::autotune::testing

#endif  // SWITCHYARD_TESTS_AUTOTUNE_AUTOTUNE_TEST_UTIL_H_
