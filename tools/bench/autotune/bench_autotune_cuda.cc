// bench_autotune_cuda: matmul on the GPU with the cuda plugin's cuBLASLt
// variants (Note [GEMM variants] in plugins/cuda/kernels/gemm.h: variant k
// is the k-th algorithm cuBLASLt's heuristic returns), f32 (full FP32) and
// bf16 over 32 shapes: square, LLM projections (M = 1 … 2048 against
// 4096×4096 and 4096×11008), and odd sizes.
//
// For each key: a cold tune (empty cache, default budget), then an
// exhaustive re-measurement of every variant (device events, long budget).
// Columns: the heuristic's first choice (what runs untuned), the tuned
// choice, the best variant, all in µs per call from the exhaustive run, and
// the tuned choice's speed-up over the first choice. tools/bench/autotune/
// bench_autotune_torch.py prints torch.matmul's times for the same shapes,
// run in the same session by device_run.sh.
//
//   bench_autotune_cuda [--only=f32|bf16]
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autotune/tune_cases.h"
#include "autotune/tuner.h"
#include "dispatcher/runtime/runtime.h"

namespace {

struct Shape {
  int64_t m, k, n;
};

// 16 shapes × 2 dtypes = 32 keys. bench_autotune_torch.py has the same list.
constexpr Shape kShapes[] = {
    {256, 256, 256},   {512, 512, 512},     {1024, 1024, 1024}, {2048, 2048, 2048},
    {4096, 4096, 4096}, {1, 4096, 4096},    {16, 4096, 4096},   {128, 4096, 4096},
    {2048, 4096, 4096}, {1, 4096, 11008},   {16, 4096, 11008},  {128, 4096, 11008},
    {2048, 4096, 11008}, {2048, 11008, 4096}, {1000, 1000, 1000}, {777, 1531, 2049},
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_autotune_cuda: %s\n", what.c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--only=", 0) == 0) only = arg.substr(7);
  }
  sy::core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json",
                                 std::string(SWITCHYARD_PLUGIN_DIR) + "/cuda.json"};
  sy::autotune::TunerOptions tuner_options;
  tuner_options.in_memory = true;
  options.tuner_factory = sy::autotune::MakeTunerFactory(tuner_options);
  options.autotune = sy::core::AutotuneMode::kCached;
  absl::StatusOr<std::unique_ptr<sy::core::Runtime>> created = sy::core::Runtime::Create(options);
  if (!created.ok()) Die(std::string(created.status().message()));
  sy::core::Runtime& rt = **created;
  absl::StatusOr<sy::core::Device*> gpu = rt.GetDevice("cuda:0");
  if (!gpu.ok()) Die(std::string(gpu.status().message()));
  auto& tuner = *static_cast<sy::autotune::Tuner*>(rt.tuner());
  std::printf("device: %s (%s)\n\n", (*gpu)->properties().name.c_str(),
              (*gpu)->properties().driver_version.c_str());

  sy::autotune::TuneCallOptions cold;
  sy::autotune::TuneCallOptions exhaustive;
  exhaustive.force = true;
  exhaustive.measure.budget_ms = 500;
  exhaustive.measure.min_rounds = 15;
  exhaustive.measure.early_stop_factor = 1e9;
  exhaustive.measure.band = 0;

  std::printf("| dtype | M×K×N | first choice (µs) | tuned (µs) | best (µs) | tuned variant | "
              "speed-up | tuned TFLOP/s | cold tune (ms) |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  int rows = 0, faster = 0, worse = 0;
  for (const char* dtype : {"f32", "bf16"}) {
    if (!only.empty() && only != dtype) continue;
    for (const Shape& s : kShapes) {
      absl::StatusOr<sy::autotune::TuneCase> c = sy::autotune::TuneCaseFromFlags(
          "matmul", "cuda:0", dtype, absl::StrCat(s.m, "x", s.k, ",", s.k, "x", s.n), "");
      if (!c.ok()) Die(std::string(c.status().message()));
      const std::vector<sy::autotune::TuneCase> one = {*c};
      std::vector<sy::autotune::TuneRow> t = RunTuneCases(rt, tuner, one, cold);
      std::vector<sy::autotune::TuneRow> f = RunTuneCases(rt, tuner, one, exhaustive);
      const std::string label = absl::StrCat(s.m, "×", s.k, "×", s.n);
      if (!t[0].status.ok() || !f[0].status.ok()) {
        std::printf("| %s | %s | error: %s | | | | | | |\n", dtype, label.c_str(),
                    std::string((!t[0].status.ok() ? t[0].status : f[0].status).message())
                        .c_str());
        continue;
      }
      const sy::autotune::TuneReport& tuned = t[0].report;
      const sy::autotune::TuneReport& full = f[0].report;
      double first = 0, chosen = 0, best = 1e300;
      for (size_t i = 0; i < full.candidates.size(); ++i) {
        const sy::autotune::CandidateResult& r = full.measurement->results[i];
        if (r.outcome != sy::autotune::Outcome::kMeasured) continue;
        const double us = r.median_ns / 1e3;
        if (full.candidates[i].variant == 0) first = us;  // the heuristic's first
        if (full.candidates[i].variant == tuned.verdict.variant &&
            full.candidates[i].kernel_name == tuned.verdict.kernel) {
          chosen = us;
        }
        best = std::min(best, us);
      }
      const double flops = 2.0 * s.m * s.k * s.n;
      ++rows;
      faster += chosen < first * 0.97;
      worse += chosen > first * 1.03;
      std::printf("| %s | %s | %.1f | %.1f | %.1f | %s | %.2f× | %.1f | %.0f%s |\n", dtype,
                  label.c_str(), first, chosen, best,
                  tuned.verdict.variant_name.empty() ? "-" : tuned.verdict.variant_name.c_str(),
                  chosen > 0 ? first / chosen : 0, chosen > 0 ? flops / (chosen * 1e6) : 0,
                  tuned.measurement.has_value() ? tuned.measurement->elapsed_ms : 0,
                  tuned.measurement.has_value() ? "" : " (bucket cached)");
      std::fflush(stdout);
    }
  }
  std::printf("\n%d keys: the tuned choice is > 3 %% faster than the heuristic's first in "
              "%d, > 3 %% slower in %d\n", rows, faster, worse);
  return 0;
}
