// Op throughput of the cpu plugin beside libtorch's CPU ops, on the same
// shapes and f32 data, outputs preallocated on both sides:
//   add, mul, gelu, sum (all dims), softmax (last dim), rms_norm (last dim)
//   on 16M elements ([4096, 4096]); matmul 512² and 1024².
// Both use every CPU this process may run on (Switchyard: the affinity mask
// or SWITCHYARD_NUM_THREADS; libtorch: at::get_num_threads()), reported as
// the `threads` counter. libtorch 1.13 has no rms_norm op; its row is the
// composite x·rsqrt(mean(x²) + eps)·w that PyTorch 1.13 models wrote.
// Run: build/release/bin/bench_ops --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/loading/plugin_loader.h"
#include "dispatcher/runtime/runtime.h"

#ifdef SWITCHYARD_HAVE_TORCH
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#endif

namespace {

constexpr int64_t kRows = 4096, kCols = 4096;  // 16M elements

std::vector<float> RandomData(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> data(static_cast<size_t>(n));
  for (float& x : data) x = dist(gen);
  return data;
}

class Switchyard {
 public:
  static Switchyard& Get() {
    static Switchyard* const instance = new Switchyard;
    return *instance;
  }

  sy::core::Tensor Random(std::vector<int64_t> shape, uint32_t seed) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const std::vector<float> data = RandomData(n, seed);
    return runtime_
        ->FromHost(*cpu_, SY_DTYPE_F32, shape, data.data(), data.size() * 4)
        .value();
  }
  sy::core::Tensor Empty(std::vector<int64_t> shape) {
    return runtime_->Empty(*cpu_, SY_DTYPE_F32, shape).value();
  }
  sy::core::OpHandle Op(const char* name) { return runtime_->FindOp(name).value(); }
  sy::core::Runtime& runtime() { return *runtime_; }
  int threads() const { return cpu_->properties().compute_units; }

 private:
  Switchyard() {
    sy::core::RuntimeOptions options;
    options.loader.use_environment = false;
    // The cpu plugin alone: the figures are its own, whatever else is built.
    options.loader.use_default_path = false;
    options.loader.search_paths = {sy::core::DefaultPluginDirectory() + "/cpu.json"};
    runtime_ = sy::core::Runtime::Create(options).value();
    cpu_ = runtime_->GetDevice("cpu").value();
  }
  std::unique_ptr<sy::core::Runtime> runtime_;
  sy::core::Device* cpu_ = nullptr;
};

// Times `op` on `inputs` into a preallocated `out` of `out_shape`.
void RunSwitchyard(benchmark::State& state, const char* op,
                   const std::vector<sy::core::Tensor>& inputs,
                   const std::vector<sy::core::Attr>& attrs,
                   std::vector<int64_t> out_shape, int64_t items) {
  Switchyard& sy = Switchyard::Get();
  const sy::core::OpHandle handle = sy.Op(op);
  const sy::core::Tensor outputs[1] = {sy.Empty(std::move(out_shape))};
  for (auto _ : state) {
    absl::Status status = sy.runtime().CallOut(handle, inputs, attrs, outputs);
    if (!status.ok()) {
      state.SkipWithError(std::string(status.message()).c_str());
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * items);
  state.counters["threads"] = sy.threads();
}

constexpr int64_t kElements = kRows * kCols;

void BM_Switchyard_add(benchmark::State& state) {
  Switchyard& sy = Switchyard::Get();
  RunSwitchyard(state, "add.Tensor",
                {sy.Random({kRows, kCols}, 1), sy.Random({kRows, kCols}, 2)},
                {}, {kRows, kCols}, kElements);
}
void BM_Switchyard_mul(benchmark::State& state) {
  Switchyard& sy = Switchyard::Get();
  RunSwitchyard(state, "mul.Tensor",
                {sy.Random({kRows, kCols}, 1), sy.Random({kRows, kCols}, 2)},
                {}, {kRows, kCols}, kElements);
}
void BM_Switchyard_gelu(benchmark::State& state) {
  Switchyard& sy = Switchyard::Get();
  RunSwitchyard(state, "gelu", {sy.Random({kRows, kCols}, 1)},
                {sy::core::Attr("none")}, {kRows, kCols}, kElements);
}
void BM_Switchyard_sum(benchmark::State& state) {
  Switchyard& sy = Switchyard::Get();
  RunSwitchyard(state, "sum", {sy.Random({kRows, kCols}, 1)}, {}, {},
                kElements);
}
void BM_Switchyard_softmax(benchmark::State& state) {
  Switchyard& sy = Switchyard::Get();
  RunSwitchyard(state, "softmax", {sy.Random({kRows, kCols}, 1)},
                {sy::core::Attr(-1)}, {kRows, kCols}, kElements);
}
void BM_Switchyard_rms_norm(benchmark::State& state) {
  Switchyard& sy = Switchyard::Get();
  RunSwitchyard(state, "rms_norm",
                {sy.Random({kRows, kCols}, 1), sy.Random({kCols}, 2)},
                {sy::core::Attr(1e-6)}, {kRows, kCols}, kElements);
}
void BM_Switchyard_matmul(benchmark::State& state) {
  Switchyard& sy = Switchyard::Get();
  const int64_t n = state.range(0);
  RunSwitchyard(state, "matmul", {sy.Random({n, n}, 1), sy.Random({n, n}, 2)},
                {}, {n, n}, 2 * n * n * n);  // items = flops
}

BENCHMARK(BM_Switchyard_add)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Switchyard_mul)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Switchyard_gelu)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Switchyard_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Switchyard_softmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Switchyard_rms_norm)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Switchyard_matmul)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

#ifdef SWITCHYARD_HAVE_TORCH

at::Tensor TorchRandom(std::vector<int64_t> shape, uint32_t seed) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  const std::vector<float> data = RandomData(n, seed);
  return at::from_blob(const_cast<float*>(data.data()), shape, at::kFloat)
      .clone();
}

template <class Body>
void RunTorch(benchmark::State& state, int64_t items, Body body) {
  // Give libtorch as many threads as the cpu plugin uses (its default may
  // be fewer).
  at::set_num_threads(Switchyard::Get().threads());
  for (auto _ : state) body();
  state.SetItemsProcessed(state.iterations() * items);
  state.counters["threads"] = at::get_num_threads();
}

void BM_Torch_add(benchmark::State& state) {
  at::Tensor a = TorchRandom({kRows, kCols}, 1), b = TorchRandom({kRows, kCols}, 2);
  at::Tensor out = at::empty({kRows, kCols});
  RunTorch(state, kElements, [&] { at::add_out(out, a, b); });
}
void BM_Torch_mul(benchmark::State& state) {
  at::Tensor a = TorchRandom({kRows, kCols}, 1), b = TorchRandom({kRows, kCols}, 2);
  at::Tensor out = at::empty({kRows, kCols});
  RunTorch(state, kElements, [&] { at::mul_out(out, a, b); });
}
void BM_Torch_gelu(benchmark::State& state) {
  at::Tensor x = TorchRandom({kRows, kCols}, 1);
  at::Tensor out = at::empty({kRows, kCols});
  RunTorch(state, kElements, [&] { at::gelu_out(out, x); });
}
void BM_Torch_sum(benchmark::State& state) {
  at::Tensor x = TorchRandom({kRows, kCols}, 1);
  at::Tensor out = at::empty({});
  RunTorch(state, kElements, [&] { at::sum_out(out, x, at::IntArrayRef{0, 1}); });
}
void BM_Torch_softmax(benchmark::State& state) {
  at::Tensor x = TorchRandom({kRows, kCols}, 1);
  at::Tensor out = at::empty({kRows, kCols});
  RunTorch(state, kElements, [&] { at::_softmax_out(out, x, -1, false); });
}
void BM_Torch_rms_norm(benchmark::State& state) {
  at::Tensor x = TorchRandom({kRows, kCols}, 1), w = TorchRandom({kCols}, 2);
  at::Tensor out = at::empty({kRows, kCols});
  RunTorch(state, kElements, [&] {
    at::mul_out(out, x, at::rsqrt(x.square().mean(-1, true) + 1e-6));
    out.mul_(w);
  });
}
void BM_Torch_matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  at::Tensor a = TorchRandom({n, n}, 1), b = TorchRandom({n, n}, 2);
  at::Tensor out = at::empty({n, n});
  RunTorch(state, 2 * n * n * n, [&] { at::mm_out(out, a, b); });
}

BENCHMARK(BM_Torch_add)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_mul)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_gelu)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_softmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_rms_norm)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_matmul)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

#endif  // SWITCHYARD_HAVE_TORCH

}  // namespace

BENCHMARK_MAIN();
