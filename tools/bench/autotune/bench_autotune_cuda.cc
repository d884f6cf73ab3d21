// bench_autotune_cuda: matmul on the GPU with the cuda plugin's cuBLASLt
// variants (Note [GEMM variants] in plugins/cuda/kernels/gemm.h: variant k
// is the k-th algorithm cuBLASLt's heuristic returns), f32 (full FP32) and
// bf16 over 32 shapes: square, LLM projections (M = 1 … 2048 against
// 4096×4096 and 4096×11008), and odd sizes. Public API only
// (switchyard.hpp).
//
// For each key: a cold tune (sy_op_tune into a fresh SWITCHYARD_CACHE_DIR,
// default budget), then an exhaustive re-measurement of every variant that
// passed the tuner's check (exhaustive.h: each run by name, samples of ~1 ms
// of back-to-back calls closed by a device synchronize, at least 15 rounds
// and 500 ms). Columns: the heuristic's first choice (variant 0: what runs
// untuned), the tuned choice, the best variant, all in µs per call from the
// exhaustive run, and the tuned choice's speed-up over the first choice.
// tools/bench/autotune/bench_autotune_torch.py prints torch.matmul's times
// for the same shapes, run in the same session by device_run.sh.
//
//   bench_autotune_cuda [--only=f32|bf16]
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "exhaustive.h"
#include "nlohmann/json.hpp"
#include "switchyard/switchyard.hpp"

namespace {

using sy::bench::Must;

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

// A random operand on the GPU in `dtype` (bf16 by the cast op, on the GPU).
sy::Tensor Operand(const sy::Context& context, const sy::Device& gpu, sy_dtype_t dtype,
                   std::vector<int64_t> shape, uint32_t seed) {
  sy::Tensor f32 = sy::bench::RandomF32(gpu, shape, seed, -1.0f, 1.0f);
  if (dtype == SY_DTYPE_F32) return f32;
  const sy::Op cast = Must(context.op("cast"), "cast");
  return Must(cast.call1({f32}, {sy::Attr::DType(dtype)}), "cast");
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--only=", 0) == 0) only = arg.substr(7);
  }
  sy::bench::UseFreshCache("bench_autotune_cuda");
  const sy::Context context = sy::bench::ContextWith({"cpu", "cuda"});
  const sy::Device gpu = Must(context.device("cuda:0"), "cuda:0");
  const sy::DeviceInfo info = Must(gpu.info(), "device info");
  const sy::Op matmul = Must(context.op("matmul"), "matmul");
  std::printf("device: %s (%s)\n\n", info.name.c_str(), info.driver_version.c_str());

  sy::bench::ExhaustiveOptions exhaustive;
  exhaustive.min_rounds = 15;
  exhaustive.budget_ms = 500;
  exhaustive.sample_ns = 1e6;  // a synchronize per sample: amortize it

  std::printf("| dtype | M×K×N | first choice (µs) | tuned (µs) | best (µs) | tuned variant | "
              "speed-up | tuned TFLOP/s | cold tune (ms) |\n"
              "|---|---|---|---|---|---|---|---|---|\n");
  int rows = 0, faster = 0, worse = 0;
  uint32_t seed = 1;
  for (const char* dtype : {"f32", "bf16"}) {
    if (!only.empty() && only != dtype) continue;
    const sy_dtype_t type = Must(sy::DTypeFromName(dtype), dtype);
    for (const Shape& s : kShapes) {
      const std::string label = std::to_string(s.m) + "×" + std::to_string(s.k) + "×" +
                                std::to_string(s.n);
      const std::vector<sy::Tensor> inputs = {
          Operand(context, gpu, type, {s.m, s.k}, seed++),
          Operand(context, gpu, type, {s.k, s.n}, seed++)};
      sy::Result<std::string> text = matmul.tune(inputs);
      if (!text.ok()) {
        std::printf("| %s | %s | error: %s | | | | | | |\n", dtype, label.c_str(),
                    text.status().message().c_str());
        continue;
      }
      const nlohmann::json report = nlohmann::json::parse(*text);
      const std::string tuned_label = sy::bench::WinnerLabel(report);
      std::vector<sy::bench::Candidate> candidates =
          sy::bench::PassedCandidates(matmul, report);
      sy::bench::Exhaustive(matmul, gpu, inputs, {}, candidates, exhaustive);
      double first = 0, chosen = 0, best = 1e300;
      for (const sy::bench::Candidate& c : candidates) {
        const double us = c.Median() / 1e3;
        if (c.variant == 0) first = us;  // the heuristic's first
        if (c.label == tuned_label) chosen = us;
        best = std::min(best, us);
      }
      const double flops = 2.0 * s.m * s.k * s.n;
      const std::string variant = report["winner"]["variant_name"].get<std::string>();
      const bool measured = report["measured"].get<bool>();
      ++rows;
      faster += chosen < first * 0.97;
      worse += chosen > first * 1.03;
      std::printf("| %s | %s | %.1f | %.1f | %.1f | %s | %.2f× | %.1f | %.0f%s |\n", dtype,
                  label.c_str(), first, chosen, best, variant.empty() ? "-" : variant.c_str(),
                  chosen > 0 ? first / chosen : 0, chosen > 0 ? flops / (chosen * 1e6) : 0,
                  report.value("elapsed_ms", 0.0), measured ? "" : " (bucket cached)");
      std::fflush(stdout);
    }
  }
  std::printf("\n%d keys: the tuned choice is > 3 %% faster than the heuristic's first in "
              "%d, > 3 %% slower in %d\n", rows, faster, worse);
  return 0;
}
