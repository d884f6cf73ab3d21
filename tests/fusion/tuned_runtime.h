// A cpu runtime with a tuner whose autotune cache lives in a test's folder,
// and launch tuning with a small budget: for the fusion compiler's choices
// that go through the autotuner (launch configurations, a lone composite's
// own kernel or fused one).
#ifndef SWITCHYARD_TESTS_FUSION_TUNED_RUNTIME_H_
#define SWITCHYARD_TESTS_FUSION_TUNED_RUNTIME_H_

#include <memory>
#include <string>

#include "autotune/tuner.h"
#include "fusion/backend/launch_tuning.h"
#include "fusion_test_util.h"

namespace sy::fusion::testing {

// A runtime with the cpu plugin and a tuner whose cache is in `dir`.
inline std::unique_ptr<Runtime> TunedRuntime(const std::string& dir, core::AutotuneMode mode) {
  core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths.push_back(CpuManifest());
  options.cpu_fallback = false;
  autotune::TunerOptions tuner;
  tuner.cache_dir = dir;
  options.tuner_factory = autotune::MakeTunerFactory(tuner);
  options.autotune = mode;
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return runtime.ok() ? *std::move(runtime) : nullptr;
}

// `rt`'s tuner, measuring within a few ms a kernel.
inline LaunchTuning QuickTuning(Runtime& rt) {
  LaunchTuning tuning;
  tuning.tuner = static_cast<autotune::Tuner*>(rt.tuner());
  tuning.measure.budget_ms = 20;
  tuning.measure.min_rounds = 3;
  tuning.measure.warmup_ms = 0.5;
  tuning.measure.sample_target_us = 200;
  return tuning;
}

// A compiler of graphs on `rt` with QuickTuning and no disk cache.
inline std::unique_ptr<Compiler> QuickTunedCompiler(Runtime& rt) {
  CompilerOptions options;
  options.disk_cache = false;
  options.launch = QuickTuning(rt);
  return std::make_unique<Compiler>(rt, options);
}

}  // namespace sy::fusion::testing

#endif  // SWITCHYARD_TESTS_FUSION_TUNED_RUNTIME_H_
