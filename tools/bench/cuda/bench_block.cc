// bench_block: one bf16 transformer block, eager, through the public C++
// API (sy::Op::call, op by op, outputs from the caching allocator) over
// the default plugin set,
// on cuda:0, beside tools/bench/cuda/bench_block_torch.py (PyTorch eager,
// the same ops in the same order):
//
//   h = rms_norm(x) → qkv = linear(h) → q, k, v (views of qkv) →
//   a = scaled_dot_product_attention(q, k, v, causal) → linear(a) + x →
//   h = rms_norm(x) → gelu(linear(h)) (tanh form: cuda::linear_gelu, one
//   GEMM with its epilogue; PyTorch: F.gelu(F.linear(…), approximate=
//   "tanh")) → linear(…) + x
//
// batch 8 × 512 tokens × 1024 features, 16 heads of 64, MLP 4096, no
// biases (Llama-style). Prints the first call's time (plans, heuristics,
// first launches) apart from the steady state (median of 20 timings of 5
// blocks each then a synchronize, host clock, after 300 ms of warm-up),
// which kernel ran each op, and each op's time with a synchronize after it
// (host clock: launch cost included; for device-only times per op run with
// SWITCHYARD_TRACE=block.json, docs/tracing.md).
//
//   bench_block [--repeats=N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "switchyard/plugin.hpp"
#include "switchyard/switchyard.hpp"

namespace {

using sy::Attr;
using sy::Tensor;
using sy::bench::Must;

constexpr int64_t kBatch = 8, kTokens = 512, kModel = 1024, kHeads = 16,
                  kHeadDim = 64, kHidden = 4096;

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}

class Block {
 public:
  Block(const sy::Context& context, const sy::Device& dev) : dev_(dev) {
    for (const char* name : kNames) ops_.push_back(Must(context.op(name), name));
    norm1_ = Random({kModel}, 1, 0.5f, 1.5f);
    norm2_ = Random({kModel}, 2, 0.5f, 1.5f);
    const float s = 1.0f / 32;  // ~1/sqrt(in): activations stay O(1)
    w_qkv_ = Random({3 * kModel, kModel}, 3, -s, s);
    w_o_ = Random({kModel, kModel}, 4, -s, s);
    w_up_ = Random({kHidden, kModel}, 5, -s, s);
    w_down_ = Random({kModel, kHidden}, 6, -s / 2, s / 2);
  }

  Tensor Random(std::vector<int64_t> shape, uint32_t seed, float lo = -1, float hi = 1) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<sy::plugin::BFloat16> v(static_cast<size_t>(sy::bench::Numel(shape)));
    for (auto& x : v) x = sy::plugin::BFloat16(dist(gen));
    return Must(Tensor::FromHost(dev_, SY_DTYPE_BF16, shape, v.data(), v.size() * 2),
                "upload");
  }

  // The block; with `explain`, also prints how each op resolves.
  Tensor Run(const Tensor& x, bool explain = false) {
    const double eps = 1e-6;
    Tensor h = Call(kRmsNorm, {x, norm1_}, {Attr(eps)}, explain);
    Tensor qkv = Call(kLinear, {h, w_qkv_, Tensor()}, {}, explain);
    const std::vector<int64_t> split = {kBatch, kTokens, 3, kHeads, kHeadDim};
    Tensor t = Call(kReshape, {qkv}, {Attr(split)}, explain);
    const std::vector<int64_t> order = {2, 0, 3, 1, 4};
    t = Call(kPermute, {t}, {Attr(order)}, explain);
    const std::vector<int64_t> head_shape = {kBatch, kHeads, kTokens, kHeadDim};
    Tensor qkv3[3];
    for (int64_t i = 0; i < 3; ++i) {
      Tensor one = Call(kSlice, {t}, {Attr(int64_t{0}), Attr(i), Attr(i + 1), Attr(int64_t{1})},
                        explain && i == 0);
      qkv3[i] = Call(kReshape, {one}, {Attr(head_shape)}, explain && i == 0);
    }
    Tensor a = Call(kSdpa, {qkv3[0], qkv3[1], qkv3[2], Tensor()}, {Attr(true), Attr()}, explain);
    const std::vector<int64_t> back = {0, 2, 1, 3};
    a = Call(kPermute, {a}, {Attr(back)}, explain);
    const std::vector<int64_t> flat = {kBatch, kTokens, kModel};
    a = Call(kReshape, {a}, {Attr(flat)}, explain);
    Tensor o = Call(kLinear, {a, w_o_, Tensor()}, {}, explain);
    Tensor x1 = Call(kAdd, {x, o}, {}, explain);
    h = Call(kRmsNorm, {x1, norm2_}, {Attr(eps)}, explain);
    Tensor up = Call(kLinearGelu, {h, w_up_, Tensor()}, {}, explain);
    Tensor down = Call(kLinear, {up, w_down_, Tensor()}, {}, explain);
    return Call(kAdd, {x1, down}, {}, explain);
  }

  // Per-op times of the next Run (a synchronize after every op).
  void StartBreakdown() {
    breakdown_ = true;
    times_.clear();
  }
  std::vector<std::pair<std::string, double>> StopBreakdown() {
    breakdown_ = false;
    return std::move(times_);
  }

 private:
  enum { kRmsNorm, kLinear, kReshape, kPermute, kSlice, kSdpa, kAdd, kLinearGelu };
  static constexpr const char* kNames[] = {"rms_norm", "linear", "reshape", "permute",
                                           "slice", "scaled_dot_product_attention",
                                           "add", "cuda::linear_gelu"};

  Tensor Call(int op, std::initializer_list<Tensor> in, std::initializer_list<Attr> attrs,
              bool explain) {
    const std::span<const Tensor> inputs(in.begin(), in.size());
    const std::span<const Attr> call_attrs(attrs.begin(), attrs.size());
    if (explain) {
      std::printf("  %-30s %s\n", kNames[op],
                  Must(ops_[op].explain(inputs, call_attrs), kNames[op]).c_str());
    }
    if (!breakdown_) return Must(ops_[op].call1(inputs, call_attrs), kNames[op]);
    Must(dev_.synchronize(), "sync");
    const auto t0 = std::chrono::steady_clock::now();
    Tensor out = Must(ops_[op].call1(inputs, call_attrs), kNames[op]);
    Must(dev_.synchronize(), "sync");
    times_.emplace_back(kNames[op], MsSince(t0));
    return out;
  }

  const sy::Device& dev_;
  std::vector<sy::Op> ops_;
  bool breakdown_ = false;
  std::vector<std::pair<std::string, double>> times_;
  Tensor norm1_, norm2_, w_qkv_, w_o_, w_up_, w_down_;
};

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines survive a timeout
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repeats=", 10) == 0) repeats = std::atoi(argv[i] + 10);
  }
  const auto t_load = std::chrono::steady_clock::now();
  const sy::Context context = sy::bench::DefaultContext();
  const double load_ms = MsSince(t_load);
  const sy::Device dev = Must(context.device("cuda:0"), "cuda:0");
  std::printf("device: %s; context created (default plugin set loaded) in %.1f ms\n",
              Must(dev.info(), "cuda:0").name.c_str(), load_ms);
  for (const sy::LoadRecord& r : Must(context.load_records(), "records")) {
    if (r.name != "cuda") continue;
    for (const std::string& note : r.notes) std::printf("cuda load: %s\n", note.c_str());
  }
  Block block(context, dev);
  Tensor x = block.Random({kBatch, kTokens, kModel}, 7);
  Must(dev.synchronize(), "sync");

  // The first call: plans and heuristics, first launches.
  auto t0 = std::chrono::steady_clock::now();
  Tensor y = block.Run(x);
  Must(dev.synchronize(), "sync");
  const double first_ms = MsSince(t0);
  std::printf("how each op ran:\n");
  y = block.Run(x, true);

  constexpr int kInner = 5;
  // Warm up for 300 ms, so that clocks settle before anything is timed.
  const auto warm = std::chrono::steady_clock::now();
  while (MsSince(warm) < 300) {
    y = block.Run(x);
    Must(dev.synchronize(), "sync");
  }
  std::vector<double> ms;
  std::vector<double> host_us;
  for (int r = 0; r < repeats; ++r) {
    Must(dev.synchronize(), "sync");
    const auto h0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kInner; ++i) y = block.Run(x);
    const double enqueue_ms = MsSince(h0);
    Must(dev.synchronize(), "sync");
    ms.push_back(MsSince(h0) / kInner);
    host_us.push_back(enqueue_ms * 1000 / kInner);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(host_us.begin(), host_us.end());
  const double flops = 2.0 * kBatch * kTokens * kModel * (3 * kModel + kModel + 2 * kHidden) +
                       4.0 * kBatch * kHeads * kTokens * kTokens * kHeadDim / 2;
  // Where the time goes: each op with a synchronize after it, median of 10
  // blocks.
  std::vector<std::vector<std::pair<std::string, double>>> runs;
  for (int r = 0; r < 10; ++r) {
    block.StartBreakdown();
    y = block.Run(x);
    runs.push_back(block.StopBreakdown());
  }
  std::printf("per-op time, synchronized (median of 10 blocks):\n");
  for (size_t i = 0; i < runs[0].size(); ++i) {
    std::vector<double> t;
    for (const auto& run : runs) t.push_back(run[i].second);
    std::sort(t.begin(), t.end());
    std::printf("  %2zu %-30s %8.4f ms\n", i, runs[0][i].first.c_str(), t[t.size() / 2]);
  }
  std::printf("| block (switchyard, eager) | B=8 L=512 D=1024 H=16 bf16 | first call %.1f ms | "
              "steady %.3f ms | %.1f TFLOP/s | host %.0f us/block |\n",
              first_ms, ms[ms.size() / 2], flops / (ms[ms.size() / 2] * 1e-3) / 1e12,
              host_us[host_us.size() / 2]);
  return 0;
}
