// bench_vulkan: what the vulkan plugin's ops cost, through the whole
// dispatcher and the public API (sy::Op::call_out into preallocated
// outputs), with the default plugin set of the build (every manifest in its
// plugin folder). Each iteration is `inner` back-to-back calls and a
// device synchronize timed by the host clock (manual time; the public API
// has no events), so batched submission is part of what is measured.
//
//   bench_vulkan [--benchmark_filter=…]         vulkan:0, 8192×8192, 4096³
//   SY_BENCH_DEVICE=cuda:0 bench_vulkan         the same rows on another device
//   SY_BENCH_N=1024 SY_BENCH_MM=256 bench_vulkan   smaller (lavapipe smoke runs)
//
// Rows: a device-to-device copy (the `copy` op: the bandwidth ceiling, bytes
// read + written); add, gelu, softmax, rms_norm on N×N f32 as GB/s and as a
// fraction of that copy (counter frac_of_copy); matmul f32 and f16 at MM³
// in TFLOP/s; the per-call cost of a tiny add over 2000 queued calls and a
// sync (dispatch latency with batching).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "switchyard/plugin.hpp"
#include "switchyard/switchyard.hpp"

namespace {

using sy::bench::Must;

int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoll(v) : fallback;
}

class Env {
 public:
  Env() : context_(Context()), dev_(Device(context_)) {}
  const sy::Device& dev() const { return dev_; }
  sy::Op Op(const char* name) const { return Must(context_.op(name), name); }

  sy::Tensor Random(sy_dtype_t dtype, std::vector<int64_t> shape, uint32_t seed,
                    float lo = -2, float hi = 2) {
    const int64_t n = sy::bench::Numel(shape);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    if (dtype == SY_DTYPE_F32) {
      std::vector<float> v(n);
      for (float& x : v) x = dist(gen);
      return Must(sy::Tensor::FromHost(dev_, dtype, shape, v.data(), n * 4), "upload");
    }
    std::vector<sy::plugin::Half> v(n);
    for (auto& x : v) x = sy::plugin::Half(dist(gen));
    return Must(sy::Tensor::FromHost(dev_, dtype, shape, v.data(), n * 2), "upload");
  }
  sy::Tensor Empty(sy_dtype_t dtype, std::vector<int64_t> shape) {
    return Must(sy::Tensor::Empty(dev_, dtype, shape), "empty");
  }

  // Milliseconds of `inner` calls of fn and a synchronize.
  double Ms(const std::function<void()>& fn, int inner) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) fn();
    Must(dev_.synchronize(), "sync");
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
        .count();
  }

 private:
  static sy::Context Context() {
    sy::ContextOptions options;
    options.use_environment = false;
    options.use_default_path = false;
    options.plugin_paths = {SWITCHYARD_PLUGIN_DIR};  // the default set
    return Must(sy::Context::Create(options), "context");
  }
  static sy::Device Device(const sy::Context& context) {
    const char* device = std::getenv("SY_BENCH_DEVICE");
    return Must(context.device(device != nullptr ? device : "vulkan:0"), "device");
  }
  sy::Context context_;
  sy::Device dev_;
};

Env& E() {
  static Env* env = new Env;
  return *env;
}

double g_copy_gbs = 0;  // measured in main, before the rows

// Runs fn `inner` times per iteration (and a synchronize), host-timed.
void Timed(benchmark::State& state, const std::function<void()>& fn, int inner) {
  fn();
  Must(E().dev().synchronize(), "sync");
  for (auto _ : state) state.SetIterationTime(E().Ms(fn, inner) / 1e3 / inner);
}

std::function<void()> Call(const sy::Op& op, std::vector<sy::Tensor> in, sy::Tensor out,
                           const char* what) {
  return [op, in = std::move(in), out = std::move(out), what] {
    const sy::Tensor outs[1] = {out};
    Must(op.call_out(in, {}, outs), what);
  };
}

void BM_Copy(benchmark::State& state) {
  const int64_t n = EnvInt("SY_BENCH_N", 8192);
  sy::Tensor a = E().Random(SY_DTYPE_F32, {n, n}, 3);
  sy::Tensor c = E().Empty(SY_DTYPE_F32, {n, n});
  const size_t bytes = static_cast<size_t>(n * n) * 4;
  Timed(state, Call(E().Op("copy"), {a}, c, "copy"), 10);
  state.SetBytesProcessed(2 * bytes * state.iterations());
  state.counters["GB/s"] = benchmark::Counter(2.0 * bytes * state.iterations() / 1e9,
                                              benchmark::Counter::kIsRate);
}

// Memory-bound ops: `passes` tensor-sized reads + writes.
void BM_Op(benchmark::State& state, const char* op_name, double passes) {
  const int64_t n = EnvInt("SY_BENCH_N", 8192);
  sy::Tensor x = E().Random(SY_DTYPE_F32, {n, n}, 4);
  sy::Tensor y = E().Random(SY_DTYPE_F32, {n, n}, 5);
  sy::Tensor w = E().Random(SY_DTYPE_F32, {n}, 6, 0.5f, 1.5f);
  sy::Tensor out = E().Empty(SY_DTYPE_F32, {n, n});
  const std::string name = op_name;
  std::vector<sy::Tensor> in = {x};
  if (name == "add") in.push_back(y);
  if (name == "rms_norm") in.push_back(w);
  Timed(state, Call(E().Op(op_name), in, out, op_name), 10);
  const double bytes = passes * static_cast<double>(n * n) * 4;
  state.counters["GB/s"] =
      benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["frac_of_copy"] = benchmark::Counter(
      g_copy_gbs > 0 ? bytes * state.iterations() / 1e9 / g_copy_gbs : 0,
      benchmark::Counter::kIsRate);
}

void BM_Matmul(benchmark::State& state, sy_dtype_t dtype) {
  const int64_t n = EnvInt("SY_BENCH_MM", 4096);
  sy::Tensor a = E().Random(dtype, {n, n}, 8);
  sy::Tensor b = E().Random(dtype, {n, n}, 9);
  sy::Tensor out = E().Empty(dtype, {n, n});
  Timed(state, Call(E().Op("matmul"), {a, b}, out, "matmul"), 3);
  state.counters["TFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * state.iterations() / 1e12, benchmark::Counter::kIsRate);
}

// A tiny add's cost per call: 2000 calls queued, then one sync, by the host
// clock (what a caller waits for; batching amortizes the submits).
void BM_SmallOpDispatch(benchmark::State& state) {
  sy::Tensor x = E().Random(SY_DTYPE_F32, {16}, 1);
  sy::Tensor y = E().Random(SY_DTYPE_F32, {16}, 2);
  sy::Tensor out = E().Empty(SY_DTYPE_F32, {16});
  Timed(state, Call(E().Op("add"), {x, y}, out, "add"), 2000);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const sy::DeviceInfo p = Must(E().dev().info(), "device");
  std::printf("device: %s (%s)\n", p.name.c_str(), p.driver_version.c_str());
  {  // The copy bandwidth that frac_of_copy divides by.
    const int64_t n = EnvInt("SY_BENCH_N", 8192);
    sy::Tensor a = E().Random(SY_DTYPE_F32, {n, n}, 3);
    sy::Tensor c = E().Empty(SY_DTYPE_F32, {n, n});
    const size_t bytes = static_cast<size_t>(n * n) * 4;
    auto copy = Call(E().Op("copy"), {a}, c, "copy");
    copy();
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) ms.push_back(E().Ms(copy, 10) / 10);
    std::sort(ms.begin(), ms.end());
    g_copy_gbs = 2.0 * bytes / (ms[2] * 1e-3) / 1e9;
    std::printf("D2D copy: %.1f GB/s (read + write), the frac_of_copy base\n", g_copy_gbs);
  }
  benchmark::RegisterBenchmark("BM_Copy/f32", BM_Copy)->UseManualTime()->Iterations(10);
  for (auto [name, passes] : {std::pair{"add", 3.0}, std::pair{"gelu", 2.0},
                              std::pair{"softmax", 2.0}, std::pair{"rms_norm", 2.0}}) {
    benchmark::RegisterBenchmark((std::string("BM_Op/") + name + "/f32").c_str(),
                                 [name = name, passes = passes](benchmark::State& s) {
                                   BM_Op(s, name, passes);
                                 })
        ->UseManualTime()
        ->Iterations(10);
  }
  benchmark::RegisterBenchmark("BM_Matmul/f32", [](benchmark::State& s) {
    BM_Matmul(s, SY_DTYPE_F32);
  })->UseManualTime()->Iterations(5);
  benchmark::RegisterBenchmark("BM_Matmul/f16", [](benchmark::State& s) {
    BM_Matmul(s, SY_DTYPE_F16);
  })->UseManualTime()->Iterations(5);
  benchmark::RegisterBenchmark("BM_SmallOpDispatch/host_clock", BM_SmallOpDispatch)
      ->UseManualTime()
      ->Iterations(10);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
