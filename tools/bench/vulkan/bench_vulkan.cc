// bench_vulkan: what the vulkan plugin's ops cost, through the whole
// dispatcher (sy::core::Runtime::CallOut into preallocated outputs), with the
// default plugin set of the build (every manifest in its plugin folder).
// Each iteration is `inner` back-to-back calls timed with the device's own
// events (manual time), so batched submission is part of what is measured.
//
//   bench_vulkan [--benchmark_filter=…]         vulkan:0, 8192×8192, 4096³
//   SY_BENCH_DEVICE=cuda:0 bench_vulkan         the same rows on another device
//   SY_BENCH_N=1024 SY_BENCH_MM=256 bench_vulkan   smaller (lavapipe smoke runs)
//
// Rows: a device-to-device copy (the bandwidth ceiling, bytes read + written);
// add, gelu, softmax, rms_norm on N×N f32 as GB/s and as a fraction of that
// copy (counter frac_of_copy); matmul f32 and f16 at MM³ in TFLOP/s; the
// per-call cost of a tiny add, by the host clock over 2000 queued calls
// and a sync (dispatch latency with batching) and by device events.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/base/error.h"
#include "dispatcher/runtime/runtime.h"
#include "switchyard/plugin.hpp"

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_vulkan: %s\n", what.c_str());
  std::exit(1);
}
template <class T>
T Value(absl::StatusOr<T> s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + std::string(s.status().message()));
  return *std::move(s);
}
void Check(const absl::Status& s, const char* what) {
  if (!s.ok()) Die(std::string(what) + ": " + std::string(s.message()));
}
int64_t EnvInt(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoll(v) : fallback;
}

class Env {
 public:
  Env() {
    sy::core::RuntimeOptions options;
    options.loader.use_environment = false;
    options.loader.use_default_path = false;
    options.loader.search_paths = {SWITCHYARD_PLUGIN_DIR};  // the default set
    rt_ = Value(sy::core::Runtime::Create(options), "runtime");
    const char* device = std::getenv("SY_BENCH_DEVICE");
    dev_ = Value(rt_->GetDevice(device != nullptr ? device : "vulkan:0"), "device");
    api_ = &dev_->type().api();
    Check(sy::core::TakeError(api_->event_create(api_->device_data, dev_->index(), &start_), "event"), "event");
    Check(sy::core::TakeError(api_->event_create(api_->device_data, dev_->index(), &end_), "event"), "event");
  }
  sy::core::Runtime& rt() { return *rt_; }
  sy::core::Device& dev() { return *dev_; }

  sy::core::Tensor Random(sy_dtype_t dtype, std::vector<int64_t> shape, uint32_t seed,
                    float lo = -2, float hi = 2) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    if (dtype == SY_DTYPE_F32) {
      std::vector<float> v(n);
      for (float& x : v) x = dist(gen);
      return Value(rt_->FromHost(*dev_, dtype, shape, v.data(), n * 4), "upload");
    }
    std::vector<sy::plugin::Half> v(n);
    for (auto& x : v) x = sy::plugin::Half(dist(gen));
    return Value(rt_->FromHost(*dev_, dtype, shape, v.data(), n * 2), "upload");
  }
  sy::core::Tensor Empty(sy_dtype_t dtype, std::vector<int64_t> shape) {
    return Value(rt_->Empty(*dev_, dtype, shape), "empty");
  }

  // Device milliseconds of `inner` calls of fn.
  double DeviceMs(const std::function<void()>& fn, int inner) {
    Check(sy::core::TakeError(api_->event_record(api_->device_data, start_, dev_->stream()), "rec"), "rec");
    for (int i = 0; i < inner; ++i) fn();
    Check(sy::core::TakeError(api_->event_record(api_->device_data, end_, dev_->stream()), "rec"), "rec");
    Check(sy::core::TakeError(api_->event_synchronize(api_->device_data, end_), "sync"), "sync");
    float ms = 0;
    Check(sy::core::TakeError(api_->event_elapsed_ms(api_->device_data, start_, end_, &ms), "elapsed"), "elapsed");
    return ms;
  }
  void CopyD2D(void* dst, const void* src, size_t bytes) {
    Check(sy::core::TakeError(api_->memcpy_async(api_->device_data, dev_->stream(), dst, src,
                                           bytes, SY_COPY_DEVICE_TO_DEVICE), "copy"), "copy");
  }

 private:
  std::unique_ptr<sy::core::Runtime> rt_;
  sy::core::Device* dev_ = nullptr;
  const sy_device_api_t* api_ = nullptr;
  sy_event_t start_ = nullptr, end_ = nullptr;
};

Env& E() {
  static Env* env = new Env;
  return *env;
}

double g_copy_gbs = 0;  // measured in main, before the rows

// Runs fn `inner` times per iteration, timed by device events.
void DeviceTimed(benchmark::State& state, const std::function<void()>& fn, int inner) {
  fn();
  Check(E().rt().Synchronize(E().dev()), "sync");
  for (auto _ : state) state.SetIterationTime(E().DeviceMs(fn, inner) / 1e3 / inner);
}

void BM_Copy(benchmark::State& state) {
  const int64_t n = EnvInt("SY_BENCH_N", 8192);
  sy::core::Tensor a = E().Random(SY_DTYPE_F32, {n, n}, 3);
  sy::core::Tensor c = E().Empty(SY_DTYPE_F32, {n, n});
  const size_t bytes = static_cast<size_t>(n * n) * 4;
  DeviceTimed(state, [&] { E().CopyD2D(c.data(), a.data(), bytes); }, 10);
  state.SetBytesProcessed(2 * bytes * state.iterations());
  state.counters["GB/s"] = benchmark::Counter(2.0 * bytes * state.iterations() / 1e9,
                                              benchmark::Counter::kIsRate);
}

// Memory-bound ops: `passes` tensor-sized reads + writes.
void BM_Op(benchmark::State& state, const char* op_name, double passes) {
  const int64_t n = EnvInt("SY_BENCH_N", 8192);
  sy::core::Runtime& rt = E().rt();
  sy::core::Tensor x = E().Random(SY_DTYPE_F32, {n, n}, 4);
  sy::core::Tensor y = E().Random(SY_DTYPE_F32, {n, n}, 5);
  sy::core::Tensor w = E().Random(SY_DTYPE_F32, {n}, 6, 0.5f, 1.5f);
  sy::core::Tensor out = E().Empty(SY_DTYPE_F32, {n, n});
  const std::string name = op_name;
  std::vector<sy::core::Tensor> in = {x};
  if (name == "add") in.push_back(y);
  if (name == "rms_norm") in.push_back(w);
  const sy::core::OpHandle op = Value(rt.FindOp(op_name), op_name);
  const sy::core::Tensor outs[1] = {out};
  DeviceTimed(state, [&] { Check(rt.CallOut(op, in, {}, outs), op_name); }, 10);
  const double bytes = passes * static_cast<double>(n * n) * 4;
  state.counters["GB/s"] =
      benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
  state.counters["frac_of_copy"] = benchmark::Counter(
      g_copy_gbs > 0 ? bytes * state.iterations() / 1e9 / g_copy_gbs : 0,
      benchmark::Counter::kIsRate);
}

void BM_Matmul(benchmark::State& state, sy_dtype_t dtype) {
  const int64_t n = EnvInt("SY_BENCH_MM", 4096);
  sy::core::Runtime& rt = E().rt();
  sy::core::Tensor a = E().Random(dtype, {n, n}, 8);
  sy::core::Tensor b = E().Random(dtype, {n, n}, 9);
  sy::core::Tensor out = E().Empty(dtype, {n, n});
  const sy::core::Tensor outs[1] = {out};
  const std::vector<sy::core::Tensor> in = {a, b};
  const sy::core::OpHandle mm = Value(rt.FindOp("matmul"), "matmul");
  DeviceTimed(state, [&] { Check(rt.CallOut(mm, in, {}, outs), "matmul"); }, 3);
  state.counters["TFLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * state.iterations() / 1e12, benchmark::Counter::kIsRate);
}

// A tiny add's cost per call: 2000 calls queued, then one sync, by the host
// clock (what a caller waits for; batching amortizes the submits).
void BM_SmallOpDispatch(benchmark::State& state) {
  sy::core::Runtime& rt = E().rt();
  sy::core::Tensor x = E().Random(SY_DTYPE_F32, {16}, 1);
  sy::core::Tensor y = E().Random(SY_DTYPE_F32, {16}, 2);
  sy::core::Tensor out = E().Empty(SY_DTYPE_F32, {16});
  const sy::core::OpHandle add = Value(rt.FindOp("add"), "add");
  const sy::core::Tensor outs[1] = {out};
  const std::vector<sy::core::Tensor> in = {x, y};
  constexpr int kCalls = 2000;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) Check(rt.CallOut(add, in, {}, outs), "add");
    Check(rt.Synchronize(E().dev()), "sync");
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count() / kCalls);
  }
}

// The same calls, by device events: the device-side cost of a small op.
void BM_SmallOpDevice(benchmark::State& state) {
  sy::core::Runtime& rt = E().rt();
  sy::core::Tensor x = E().Random(SY_DTYPE_F32, {16}, 1);
  sy::core::Tensor y = E().Random(SY_DTYPE_F32, {16}, 2);
  sy::core::Tensor out = E().Empty(SY_DTYPE_F32, {16});
  const sy::core::OpHandle add = Value(rt.FindOp("add"), "add");
  const sy::core::Tensor outs[1] = {out};
  const std::vector<sy::core::Tensor> in = {x, y};
  DeviceTimed(state, [&] { Check(rt.CallOut(add, in, {}, outs), "add"); }, 1000);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const sy::core::DeviceProperties& p = E().dev().properties();
  std::printf("device: %s (%s)\n", p.name.c_str(), p.driver_version.c_str());
  {  // The copy bandwidth that frac_of_copy divides by.
    const int64_t n = EnvInt("SY_BENCH_N", 8192);
    sy::core::Tensor a = E().Random(SY_DTYPE_F32, {n, n}, 3);
    sy::core::Tensor c = E().Empty(SY_DTYPE_F32, {n, n});
    const size_t bytes = static_cast<size_t>(n * n) * 4;
    auto copy = [&] { E().CopyD2D(c.data(), a.data(), bytes); };
    copy();
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) ms.push_back(E().DeviceMs(copy, 10) / 10);
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
  benchmark::RegisterBenchmark("BM_SmallOpDevice/device_events", BM_SmallOpDevice)
      ->UseManualTime()
      ->Iterations(10);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
