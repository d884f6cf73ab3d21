// bench_block: one bf16 transformer block, eager, through the dispatcher
// (sy::core::Runtime::Call, op by op, outputs from the caching allocator),
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
// blocks each, device events, after 300 ms of warm-up), which kernel ran
// each op, and each op's device time.
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

#include "dispatcher/base/error.h"
#include "dispatcher/runtime/runtime.h"
#include "switchyard/plugin.hpp"

namespace {

using sy::core::Attr;
using sy::core::OpHandle;
using sy::core::Runtime;
using sy::core::Tensor;

constexpr int64_t kBatch = 8, kTokens = 512, kModel = 1024, kHeads = 16,
                  kHeadDim = 64, kHidden = 4096;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_block: %s\n", what.c_str());
  std::exit(1);
}
template <class T>
T Value(absl::StatusOr<T> s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + std::string(s.status().message()));
  return *std::move(s);
}
void Check(const absl::Status& s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + std::string(s.message()));
}

class Block {
 public:
  explicit Block(Runtime& rt, sy::core::Device& dev) : rt_(rt), dev_(dev) {
    for (const char* name : {"rms_norm", "linear", "reshape", "permute", "slice",
                             "scaled_dot_product_attention", "add",
                             "cuda::linear_gelu"}) {
      ops_.push_back(Value(rt.FindOp(name), name));
    }
    norm1_ = Random({kModel}, 1, 0.5f, 1.5f);
    norm2_ = Random({kModel}, 2, 0.5f, 1.5f);
    const float s = 1.0f / 32;  // ~1/sqrt(in): activations stay O(1)
    w_qkv_ = Random({3 * kModel, kModel}, 3, -s, s);
    w_o_ = Random({kModel, kModel}, 4, -s, s);
    w_up_ = Random({kHidden, kModel}, 5, -s, s);
    w_down_ = Random({kModel, kHidden}, 6, -s / 2, s / 2);
  }

  Tensor Random(std::vector<int64_t> shape, uint32_t seed, float lo = -1, float hi = 1) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<sy::plugin::BFloat16> v(static_cast<size_t>(n));
    for (auto& x : v) x = sy::plugin::BFloat16(dist(gen));
    return Value(rt_.FromHost(dev_, SY_DTYPE_BF16, shape, v.data(), v.size() * 2), "upload");
  }

  // The block; with `explain`, also prints how each op resolves.
  Tensor Run(const Tensor& x, bool explain = false) {
    const double eps = 1e-6;
    Tensor h = Call(kRmsNorm, {x, norm1_}, {Attr(eps)}, explain);
    Tensor qkv = Call(kLinear, {h, w_qkv_, Tensor()}, {}, explain);
    const std::vector<int64_t> split = {kBatch, kTokens, 3, kHeads, kHeadDim};
    Tensor t = Call(kReshape, {qkv}, {Attr(absl::MakeConstSpan(split))}, explain);
    const std::vector<int64_t> order = {2, 0, 3, 1, 4};
    t = Call(kPermute, {t}, {Attr(absl::MakeConstSpan(order))}, explain);
    const std::vector<int64_t> head_shape = {kBatch, kHeads, kTokens, kHeadDim};
    Tensor qkv3[3];
    for (int64_t i = 0; i < 3; ++i) {
      Tensor one = Call(kSlice, {t}, {Attr(int64_t{0}), Attr(i), Attr(i + 1), Attr(int64_t{1})},
                        explain && i == 0);
      qkv3[i] = Call(kReshape, {one}, {Attr(absl::MakeConstSpan(head_shape))}, explain && i == 0);
    }
    Tensor a = Call(kSdpa, {qkv3[0], qkv3[1], qkv3[2], Tensor()}, {Attr(true), Attr()}, explain);
    const std::vector<int64_t> back = {0, 2, 1, 3};
    a = Call(kPermute, {a}, {Attr(absl::MakeConstSpan(back))}, explain);
    const std::vector<int64_t> flat = {kBatch, kTokens, kModel};
    a = Call(kReshape, {a}, {Attr(absl::MakeConstSpan(flat))}, explain);
    Tensor o = Call(kLinear, {a, w_o_, Tensor()}, {}, explain);
    Tensor x1 = Call(kAdd, {x, o}, {}, explain);
    h = Call(kRmsNorm, {x1, norm2_}, {Attr(eps)}, explain);
    Tensor up = Call(kLinearGelu, {h, w_up_, Tensor()}, {}, explain);
    Tensor down = Call(kLinear, {up, w_down_, Tensor()}, {}, explain);
    return Call(kAdd, {x1, down}, {}, explain);
  }

 private:
  enum { kRmsNorm, kLinear, kReshape, kPermute, kSlice, kSdpa, kAdd, kLinearGelu };
  static constexpr const char* kNames[] = {"rms_norm", "linear", "reshape", "permute",
                                           "slice", "scaled_dot_product_attention",
                                           "add", "cuda::linear_gelu"};

  Tensor Call(int op, std::vector<Tensor> in, std::vector<Attr> attrs, bool explain) {
    if (explain) {
      std::printf("  %-30s %s\n", kNames[op],
                  Value(rt_.Explain(ops_[op], in, attrs), kNames[op]).c_str());
    }
    if (!breakdown_) return Value(rt_.Call(ops_[op], in, attrs), kNames[op])[0];
    // Events around the call: its device time, in the block's order.
    const sy_device_api_t& api = dev_.type().api();
    if (events_.size() < 2 * (step_ + 1)) {
      for (int i = 0; i < 2; ++i) {
        sy_event_t e = nullptr;
        Check(sy::core::TakeError(api.event_create(api.device_data, 0, &e), "event"), "event");
        events_.push_back(e);
      }
    }
    Check(sy::core::TakeError(api.event_record(api.device_data, events_[2 * step_], dev_.stream()), "rec"), "rec");
    Tensor out = Value(rt_.Call(ops_[op], in, attrs), kNames[op])[0];
    Check(sy::core::TakeError(api.event_record(api.device_data, events_[2 * step_ + 1], dev_.stream()), "rec"), "rec");
    labels_.resize(std::max(labels_.size(), step_ + 1));
    labels_[step_] = kNames[op];
    ++step_;
    return out;
  }

 public:
  // Per-op device times of one block (after Run with the breakdown on).
  void StartBreakdown() {
    breakdown_ = true;
    step_ = 0;
  }
  std::vector<std::pair<std::string, double>> StopBreakdown() {
    breakdown_ = false;
    Check(rt_.Synchronize(dev_), "sync");
    const sy_device_api_t& api = dev_.type().api();
    std::vector<std::pair<std::string, double>> out;
    for (size_t i = 0; i < step_; ++i) {
      float ms = 0;
      Check(sy::core::TakeError(api.event_elapsed_ms(api.device_data, events_[2 * i],
                                                     events_[2 * i + 1], &ms), "ms"), "ms");
      out.emplace_back(labels_[i], ms);
    }
    return out;
  }

 private:
  bool breakdown_ = false;
  size_t step_ = 0;
  std::vector<sy_event_t> events_;
  std::vector<std::string> labels_;

  Runtime& rt_;
  sy::core::Device& dev_;
  std::vector<OpHandle> ops_;
  Tensor norm1_, norm2_, w_qkv_, w_o_, w_up_, w_down_;
};

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // lines survive a timeout
  int repeats = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--repeats=", 10) == 0) repeats = std::atoi(argv[i] + 10);
  }
  sy::core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json",
                                 std::string(SWITCHYARD_PLUGIN_DIR) + "/cuda.json"};
  const auto t_load = std::chrono::steady_clock::now();
  std::unique_ptr<Runtime> rt = Value(Runtime::Create(options), "runtime");
  const double load_ms = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - t_load).count();
  sy::core::Device& dev = *Value(rt->GetDevice("cuda:0"), "cuda:0");
  std::printf("device: %s; runtime created (plugins loaded) in %.1f ms\n",
              dev.properties().name.c_str(), load_ms);
  for (const sy::core::LoadRecord& r : rt->LoadRecords()) {
    if (r.name != "cuda") continue;
    for (const std::string& note : r.notes) std::printf("cuda load: %s\n", note.c_str());
  }
  Block block(*rt, dev);
  Tensor x = block.Random({kBatch, kTokens, kModel}, 7);
  Check(rt->Synchronize(dev), "sync");

  // The first call: plans and heuristics, first launches.
  auto t0 = std::chrono::steady_clock::now();
  Tensor y = block.Run(x);
  Check(rt->Synchronize(dev), "sync");
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("how each op ran:\n");
  y = block.Run(x, true);

  const sy_device_api_t& api = dev.type().api();
  sy_event_t start = nullptr, end = nullptr;
  Check(sy::core::TakeError(api.event_create(api.device_data, 0, &start), "event"), "event");
  Check(sy::core::TakeError(api.event_create(api.device_data, 0, &end), "event"), "event");
  constexpr int kInner = 5;
  // Warm up for 300 ms, so that clocks settle before anything is timed.
  const auto warm = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - warm < std::chrono::milliseconds(300)) {
    y = block.Run(x);
    Check(rt->Synchronize(dev), "sync");
  }
  std::vector<double> ms;
  std::vector<double> host_us;
  for (int r = 0; r < repeats; ++r) {
    Check(sy::core::TakeError(api.event_record(api.device_data, start, dev.stream()), "rec"), "rec");
    const auto h0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kInner; ++i) y = block.Run(x);
    const auto h1 = std::chrono::steady_clock::now();
    Check(sy::core::TakeError(api.event_record(api.device_data, end, dev.stream()), "rec"), "rec");
    Check(sy::core::TakeError(api.event_synchronize(api.device_data, end), "sync"), "sync");
    float t = 0;
    Check(sy::core::TakeError(api.event_elapsed_ms(api.device_data, start, end, &t), "ms"), "ms");
    ms.push_back(t / kInner);
    host_us.push_back(std::chrono::duration<double, std::micro>(h1 - h0).count() / kInner);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(host_us.begin(), host_us.end());
  const double flops = 2.0 * kBatch * kTokens * kModel * (3 * kModel + kModel + 2 * kHidden) +
                       4.0 * kBatch * kHeads * kTokens * kTokens * kHeadDim / 2;
  // Where the time goes: each op's device time, median of 10 blocks
  // (events around every call add a little host time of their own).
  std::vector<std::vector<std::pair<std::string, double>>> runs;
  for (int r = 0; r < 10; ++r) {
    block.StartBreakdown();
    y = block.Run(x);
    runs.push_back(block.StopBreakdown());
  }
  std::printf("per-op device time (median of 10 blocks):\n");
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
