// The onednn plugin beside the cpu plugin alone and libtorch's CPU ops, on
// the same shapes and f32 data, outputs preallocated where the API allows:
//   matmul n×n for n = 256, 512, 1024, 2048;
//   conv2d on four ResNet-50 shapes at batch 1 (NCHW);
//   softmax and layer_norm over the last dim of [4096, 4096].
// Three runtimes' rows per shape: Torch_*, CpuOnly_* (the cpu plugin's
// reference kernels) and Onednn_* (cpu + onednn; onednn's kernels win).
// Every side uses the same number of threads: the cpu device's compute
// units (the process's affinity mask); libtorch gets at::set_num_threads
// with it, oneDNN's OpenMP runtime uses as many by default (OMP_NUM_THREADS
// overrides). The `threads` counter shows what each side used.
// Run: build/release/bin/bench_onednn --benchmark_repetitions=5
//        --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "switchyard/switchyard.hpp"

#ifdef SWITCHYARD_HAVE_TORCH
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#endif

namespace {

using sy::bench::Must;
using sy::bench::Numel;
using sy::bench::RandomData;

// One context over a fixed set of plugins from the default plugin folder.
class Backend {
 public:
  static Backend& CpuOnly() {
    static Backend* const b = new Backend({"cpu"});
    return *b;
  }
  static Backend& Onednn() {
    static Backend* const b = new Backend({"cpu", "onednn"});
    return *b;
  }

  sy::Tensor Random(const std::vector<int64_t>& shape, uint32_t seed) {
    return sy::bench::RandomF32(cpu_, shape, seed, -1.0f, 1.0f);
  }
  sy::Tensor Empty(const std::vector<int64_t>& shape) { return sy::bench::EmptyF32(cpu_, shape); }
  sy::Op Op(const char* name) { return Must(context_.op(name), name); }
  int threads() const { return sy::bench::Threads(cpu_); }

 private:
  explicit Backend(const std::vector<std::string>& plugins)
      : context_(sy::bench::ContextWith(plugins)),
        cpu_(Must(context_.device("cpu"), "cpu")) {}
  sy::Context context_;
  sy::Device cpu_;
};

// Times `op` into a preallocated output; the first call (primitive
// creation, JIT) happens before timing.
void Run(benchmark::State& state, Backend& b, const char* op,
         const std::vector<sy::Tensor>& inputs, const std::vector<sy::Attr>& attrs,
         const std::vector<int64_t>& out_shape, int64_t items) {
  const sy::Op handle = b.Op(op);
  const sy::Tensor outputs[1] = {b.Empty(out_shape)};
  sy::Status status = handle.call_out(inputs, attrs, outputs);
  if (!status.ok()) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  const sy::Result<std::string> how = handle.explain(inputs, attrs);
  state.SetLabel(how.ok() ? *how : "?");
  for (auto _ : state) {
    status = handle.call_out(inputs, attrs, outputs);
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      return;
    }
  }
  state.SetItemsProcessed(state.iterations() * items);
  state.counters["threads"] = b.threads();
}

// ---- Shapes ------------------------------------------------------------------

struct ConvShape {
  int64_t c, hw, k, oc, pad;
};
// ResNet-50 at batch 1: conv2_x 3×3, conv2_x 1×1 reduce, conv3_x 3×3,
// conv5_x 3×3.
constexpr ConvShape kConvShapes[] = {
    {64, 56, 3, 64, 1}, {256, 56, 1, 64, 0}, {128, 28, 3, 128, 1}, {512, 7, 3, 512, 1}};

constexpr int64_t kRows = 4096, kCols = 4096;

int64_t ConvFlops(const ConvShape& s) {
  return 2 * s.oc * s.hw * s.hw * s.c * s.k * s.k;
}

void Matmul(benchmark::State& state, Backend& b) {
  const int64_t n = state.range(0);
  Run(state, b, "matmul", {b.Random({n, n}, 1), b.Random({n, n}, 2)}, {}, {n, n},
      2 * n * n * n);
}
void Conv(benchmark::State& state, Backend& b) {
  const ConvShape& s = kConvShapes[state.range(0)];
  static const int64_t kOnes[2] = {1, 1};
  static const int64_t kPads[2][2] = {{0, 0}, {1, 1}};
  const std::vector<sy::Attr> attrs = {sy::Attr(std::span<const int64_t>(kOnes)),
                                       sy::Attr(std::span<const int64_t>(kPads[s.pad]))};
  Run(state, b, "conv2d",
      {b.Random({1, s.c, s.hw, s.hw}, 1), b.Random({s.oc, s.c, s.k, s.k}, 2),
       sy::Tensor()},
      attrs, {1, s.oc, s.hw, s.hw}, ConvFlops(s));
}
void Softmax(benchmark::State& state, Backend& b) {
  Run(state, b, "softmax", {b.Random({kRows, kCols}, 1)}, {sy::Attr(-1)},
      {kRows, kCols}, kRows * kCols);
}
void LayerNorm(benchmark::State& state, Backend& b) {
  static const int64_t kShape[1] = {kCols};
  Run(state, b, "layer_norm",
      {b.Random({kRows, kCols}, 1), b.Random({kCols}, 2), b.Random({kCols}, 3)},
      {sy::Attr(std::span<const int64_t>(kShape)), sy::Attr(1e-5)},
      {kRows, kCols}, kRows * kCols);
}

#define SY_BENCH_BACKEND(Backend_, Name)                                      \
  void BM_##Name##_matmul(benchmark::State& s) { Matmul(s, Backend_()); }     \
  void BM_##Name##_conv2d(benchmark::State& s) { Conv(s, Backend_()); }       \
  void BM_##Name##_softmax(benchmark::State& s) { Softmax(s, Backend_()); }   \
  void BM_##Name##_layer_norm(benchmark::State& s) { LayerNorm(s, Backend_()); } \
  BENCHMARK(BM_##Name##_matmul)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)     \
      ->Unit(benchmark::kMillisecond)->UseRealTime();                         \
  BENCHMARK(BM_##Name##_conv2d)->DenseRange(0, 3)                             \
      ->Unit(benchmark::kMillisecond)->UseRealTime();                         \
  BENCHMARK(BM_##Name##_softmax)->Unit(benchmark::kMillisecond)->UseRealTime(); \
  BENCHMARK(BM_##Name##_layer_norm)->Unit(benchmark::kMillisecond)->UseRealTime();

SY_BENCH_BACKEND(Backend::CpuOnly, CpuOnly)
SY_BENCH_BACKEND(Backend::Onednn, Onednn)

#ifdef SWITCHYARD_HAVE_TORCH

at::Tensor TorchRandom(const std::vector<int64_t>& shape, uint32_t seed) {
  const std::vector<float> data = RandomData(Numel(shape), seed);
  return at::from_blob(const_cast<float*>(data.data()), shape, at::kFloat).clone();
}

template <class Body>
void RunTorch(benchmark::State& state, int64_t items, Body body) {
  at::set_num_threads(Backend::CpuOnly().threads());
  body();  // warm-up, as the Switchyard side
  for (auto _ : state) body();
  state.SetItemsProcessed(state.iterations() * items);
  state.counters["threads"] = at::get_num_threads();
}

void BM_Torch_matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  at::Tensor a = TorchRandom({n, n}, 1), b = TorchRandom({n, n}, 2);
  at::Tensor out = at::empty({n, n});
  RunTorch(state, 2 * n * n * n, [&] { at::mm_out(out, a, b); });
}
void BM_Torch_conv2d(benchmark::State& state) {
  const ConvShape& s = kConvShapes[state.range(0)];
  at::Tensor x = TorchRandom({1, s.c, s.hw, s.hw}, 1);
  at::Tensor w = TorchRandom({s.oc, s.c, s.k, s.k}, 2);
  RunTorch(state, ConvFlops(s), [&] {
    benchmark::DoNotOptimize(at::conv2d(x, w, {}, 1, s.pad));
  });
}
void BM_Torch_softmax(benchmark::State& state) {
  at::Tensor x = TorchRandom({kRows, kCols}, 1);
  at::Tensor out = at::empty({kRows, kCols});
  RunTorch(state, kRows * kCols, [&] { at::_softmax_out(out, x, -1, false); });
}
void BM_Torch_layer_norm(benchmark::State& state) {
  at::Tensor x = TorchRandom({kRows, kCols}, 1);
  at::Tensor w = TorchRandom({kCols}, 2), b = TorchRandom({kCols}, 3);
  RunTorch(state, kRows * kCols, [&] {
    benchmark::DoNotOptimize(at::layer_norm(x, {kCols}, w, b, 1e-5));
  });
}

BENCHMARK(BM_Torch_matmul)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_conv2d)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_softmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Torch_layer_norm)->Unit(benchmark::kMillisecond)->UseRealTime();

#endif  // SWITCHYARD_HAVE_TORCH

}  // namespace

BENCHMARK_MAIN();
