// bench_fusion: captured graphs run fused (one kernel per group) against
// the same ops run one by one through the dispatcher ("eager": the graph
// compiled with fusion off), on cpu and, where there is one, a CUDA GPU —
// through the public API (sy::GraphCapture, sy::Graph). cpu rows are timed
// by the wall clock (the cpu stream is synchronous); GPU rows by the host
// clock around one launch and a device synchronize (manual time: the public
// API has no events; for these multi-megabyte graphs the ~10 µs this adds
// is under 1 %, as in bench_cuda).
//
//   bench_fusion [--benchmark_filter=cpu/] [--benchmark_repetitions=5
//                 --benchmark_report_aggregates_only=true]
//
// Rows (docs/performance.md, "Fusion"; issue 16):
//   <dev>/chain/<dtype>/<n>/{eager,fused}   relu(sigmoid(tanh(x*y+1)*2-y))+x
//   <dev>/{softmax,rms_norm,gelu}/<dtype>/<rows>x<cols>/{eager,fused}
//                                           composed from primitives
//   <dev>/rms_norm_op/<dtype>/<rows>x<cols>/{eager,fused}  the rms_norm op
//                                           (the plugin's kernel either way)
//   cuda/rowlen/{softmax,rms_norm}/<dtype>/<cols>/fused, with counter
//     frac_copy = bytes/s ÷ a device-to-device copy's (rows × cols = 2^26;
//     the `copy` op into a preallocated tensor)
//   {cpu/block/f32/1x32x128,cuda/block/bf16/8x512x1024}/{ops,eager,fused}
//                                           the transformer block; ops: its
//     function called op by op outside a capture (no graph at all)
//   <dev>/compile/{cold,warm_disk}          compiling the chain's kernel:
//     the code generator every time (a fresh context: empty memory cache,
//     disk cache off), or a fresh context's start from the disk cache
//     (time per compile; making the context and capturing are not timed)
//
// BENCH_FUSION_DESCRIBE=1 prints each fused graph's plan (sy_graph_explain),
// with each fused kernel's launch configuration where its plugin offers
// several and the autotuner is not off (SWITCHYARD_AUTOTUNE; device_run.sh
// autotune_rows).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "bench_graphs.h"

namespace {

using sy::bench::Must;
using sy::bench::Workload;

// A context over the cpu plugin and, when the build has it, the cuda one.
sy::Context MakeContext() {
  if (!sy::bench::DefaultManifest("cuda").empty()) {
    sy::ContextOptions options;
    options.use_environment = false;
    options.use_default_path = false;
    options.plugin_manifests = {sy::bench::DefaultManifest("cpu"),
                                sy::bench::DefaultManifest("cuda")};
    sy::Result<sy::Context> both = sy::Context::Create(options);
    if (both.ok()) return std::move(both).value();
  }
  return sy::bench::ContextWith({"cpu"});
}

struct Env {
  sy::Context ctx;
  sy::Device cpu;
  std::optional<sy::Device> cuda;

  static Env& Get() {
    static Env* env = [] {
      // The pairs' compiles do not touch the disk cache; the compile rows
      // set up their own (the C API reads this when a context first
      // compiles).
      setenv("SWITCHYARD_FUSION_CACHE", "off", 1);
      auto* e = new Env;
      e->ctx = MakeContext();
      e->cpu = Must(e->ctx.device("cpu"), "cpu");
      sy::Result<sy::Device> cuda = e->ctx.device("cuda:0");
      if (cuda.ok()) e->cuda = *cuda;
      return e;
    }();
    return *env;
  }
};

bool IsGpu(const sy::Device& d) { return d.info().value_or({}).type != "cpu"; }

// One launch per iteration; on a GPU timed by the host clock to the end of
// a device synchronize.
void Run(benchmark::State& state, const sy::Device& d, const std::function<void()>& body) {
  const bool gpu = IsGpu(d);
  for (auto _ : state) {
    if (!gpu) {
      body();
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    body();
    Must(d.synchronize(), "synchronize");
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
}

// The same workload captured twice: compiled unfused and fused (a graph
// holds one compilation).
struct Prepared {
  Workload eager, fused;
};

Prepared& Prepare(const std::string& key, const std::function<Workload()>& make) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Prepared>>;
  auto& slot = (*cache)[key];
  if (!slot) {
    slot = std::make_unique<Prepared>();
    slot->eager = make();
    slot->fused = make();
    sy::GraphCompileOptions eager;
    eager.fuse = false;
    Must(slot->eager.graph.Compile(eager), key + " eager");
    Must(slot->fused.graph.Compile(), key + " fused");
    if (std::getenv("BENCH_FUSION_DESCRIBE")) {
      std::fprintf(stderr, "%s\n%s", key.c_str(),
                   Must(slot->fused.graph.explain(), "explain").c_str());
    }
  }
  return *slot;
}

void RunGraph(benchmark::State& state, const sy::Device& d, const Workload& w) {
  std::vector<sy::Tensor> keep;
  Run(state, d, [&] {
    keep = Must(w.graph.Launch(w.inputs), "launch");  // freed after the next launch
  });
  state.SetBytesProcessed(state.iterations() * w.bytes);
}

// Bytes per second of a device-to-device copy of n elements (GPU rows'
// yardstick: the `copy` op into a preallocated tensor), measured once per
// dtype: the best of 17 timed copies after 3 warm-ups.
double CopyBandwidth(const sy::Device& d, sy_dtype_t dtype, int64_t n) {
  static std::map<sy_dtype_t, double> cache;
  if (auto it = cache.find(dtype); it != cache.end()) return it->second;
  Env& env = Env::Get();
  const sy::Tensor src = sy::bench::RandomTensor(env.ctx, d, dtype, {n}, 99);
  const sy::Tensor dst = Must(sy::Tensor::Empty(d, dtype, {n}), "empty");
  const sy::Op copy = Must(env.ctx.op("copy"), "copy");
  const sy::Tensor in[1] = {src}, out[1] = {dst};
  double best = 1e30;
  for (int i = 0; i < 20; ++i) {
    Must(d.synchronize(), "synchronize");
    const auto t0 = std::chrono::steady_clock::now();
    Must(copy.call_out(in, {}, out), "copy");
    Must(d.synchronize(), "synchronize");
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i >= 3) best = std::min(best, s);
  }
  return cache[dtype] = 2.0 * static_cast<double>(src.nbytes()) / best;
}

void AddPair(const std::string& name, sy::Device d, std::function<Workload()> make) {
  for (const char* mode : {"eager", "fused"}) {
    const bool fused = std::string(mode) == "fused";
    auto* b = benchmark::RegisterBenchmark(
        (name + "/" + mode).c_str(), [=](benchmark::State& state) {
          Prepared& p = Prepare(name, make);
          RunGraph(state, d, fused ? p.fused : p.eager);
        });
    b->Unit(benchmark::kMillisecond);
    if (IsGpu(d)) b->UseManualTime();
  }
}

// `name`/ops: the workload's function called op by op, outside a capture
// (what a user who never captures runs), beside AddPair's rows.
void AddOps(const std::string& name, sy::Device d, std::function<Workload()> make) {
  auto* b = benchmark::RegisterBenchmark((name + "/ops").c_str(), [=](benchmark::State& state) {
    Prepared& p = Prepare(name, make);
    std::vector<sy::Tensor> keep;
    Run(state, d, [&] { keep = p.eager.ops(p.eager.inputs); });
    state.SetBytesProcessed(state.iterations() * p.eager.bytes);
  });
  b->Unit(benchmark::kMillisecond);
  if (IsGpu(d)) b->UseManualTime();
}

// Sets an environment variable for one scope (the compile rows' cache).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Compiles the chain in a fresh context per iteration; only the compile is
// timed.
void CompileInFreshContexts(benchmark::State& state, const std::string& device) {
  for (auto _ : state) {
    state.PauseTiming();
    sy::Context ctx = MakeContext();
    const sy::Device d = Must(ctx.device(device), device);
    Workload w = sy::bench::Chain(ctx, d, SY_DTYPE_F32, {1 << 20});
    state.ResumeTiming();
    Must(w.graph.Compile(), "compile");
    state.PauseTiming();
    w = Workload();
    ctx.reset();
    state.ResumeTiming();
  }
}

// A fixed number of iterations: the untimed context per iteration costs
// more than the compile, which would stretch a time-based run.
void AddCompile(const std::string& prefix, const std::string& device, int iterations) {
  benchmark::RegisterBenchmark((prefix + "/compile/cold").c_str(),
                               [device](benchmark::State& state) {
                                 ScopedEnv off("SWITCHYARD_FUSION_CACHE", "off");
                                 CompileInFreshContexts(state, device);
                               })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(iterations);
  benchmark::RegisterBenchmark(
      (prefix + "/compile/warm_disk").c_str(), [device](benchmark::State& state) {
        const std::string dir =
            (std::filesystem::temp_directory_path() / "sy_bench_fusion_cache").string();
        ScopedEnv on("SWITCHYARD_FUSION_CACHE", "on");
        ScopedEnv where("SWITCHYARD_CACHE_DIR", dir);
        {
          sy::Context ctx = MakeContext();  // fills the disk cache
          const sy::Device d = Must(ctx.device(device), device);
          Must(sy::bench::Chain(ctx, d, SY_DTYPE_F32, {1 << 20}).graph.Compile(), "compile");
        }
        CompileInFreshContexts(state, device);  // a new process: memory empty, disk warm
        std::filesystem::remove_all(dir);
      })
      ->Unit(benchmark::kMillisecond)
      ->Iterations(iterations);
}

void RegisterAll() {
  Env& env = Env::Get();
  const sy::Context& ctx = env.ctx;
  const sy::Device cpu = env.cpu;
  for (int64_t n : {int64_t{1} << 20, int64_t{1} << 24}) {
    AddPair("cpu/chain/f32/" + std::to_string(n), cpu,
            [&ctx, cpu, n] { return sy::bench::Chain(ctx, cpu, SY_DTYPE_F32, {n}); });
  }
  AddPair("cpu/softmax/f32/4096x4096", cpu, [&ctx, cpu] {
    return sy::bench::SoftmaxComposed(ctx, cpu, SY_DTYPE_F32, 4096, 4096);
  });
  AddPair("cpu/rms_norm/f32/4096x4096", cpu, [&ctx, cpu] {
    return sy::bench::RmsNormComposed(ctx, cpu, SY_DTYPE_F32, 4096, 4096);
  });
  AddPair("cpu/rms_norm_op/f32/4096x4096", cpu, [&ctx, cpu] {
    return sy::bench::RmsNormOp(ctx, cpu, SY_DTYPE_F32, 4096, 4096);
  });
  AddPair("cpu/gelu/f32/4096x4096", cpu, [&ctx, cpu] {
    return sy::bench::GeluComposed(ctx, cpu, SY_DTYPE_F32, 4096, 4096);
  });
  // Small enough that the per-op and per-replay host costs show.
  auto cpu_block = [&ctx, cpu] {
    return sy::bench::TransformerBlock(ctx, cpu, SY_DTYPE_F32, 1, 32, 128, 4);
  };
  AddOps("cpu/block/f32/1x32x128", cpu, cpu_block);
  AddPair("cpu/block/f32/1x32x128", cpu, cpu_block);
  // Tiny: almost all host cost (binding, resolving, allocating, replaying).
  auto cpu_block_tiny = [&ctx, cpu] {
    return sy::bench::TransformerBlock(ctx, cpu, SY_DTYPE_F32, 1, 4, 16, 2);
  };
  AddOps("cpu/block/f32/1x4x16", cpu, cpu_block_tiny);
  AddPair("cpu/block/f32/1x4x16", cpu, cpu_block_tiny);
  AddCompile("cpu", "cpu", 30);

  if (!env.cuda) return;
  const sy::Device gpu = *env.cuda;
  for (sy_dtype_t dt : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    const std::string t = sy::DTypeName(dt);
    AddPair("cuda/chain/" + t + "/8192x8192", gpu,
            [&ctx, gpu, dt] { return sy::bench::Chain(ctx, gpu, dt, {8192, 8192}); });
    AddPair("cuda/softmax/" + t + "/8192x8192", gpu, [&ctx, gpu, dt] {
      return sy::bench::SoftmaxComposed(ctx, gpu, dt, 8192, 8192);
    });
    AddPair("cuda/rms_norm/" + t + "/8192x8192", gpu, [&ctx, gpu, dt] {
      return sy::bench::RmsNormComposed(ctx, gpu, dt, 8192, 8192);
    });
    AddPair("cuda/gelu/" + t + "/8192x8192", gpu, [&ctx, gpu, dt] {
      return sy::bench::GeluComposed(ctx, gpu, dt, 8192, 8192);
    });
    for (int64_t cols : {256, 1024, 4096, 16384, 65536, 262144}) {
      const int64_t rows = (int64_t{1} << 26) / cols;
      for (const char* op : {"softmax", "rms_norm"}) {
        const std::string name =
            "cuda/rowlen/" + std::string(op) + "/" + t + "/" + std::to_string(cols);
        const bool softmax = std::string(op) == "softmax";
        auto make = [&ctx, gpu, dt, rows, cols, softmax] {
          return softmax ? sy::bench::SoftmaxComposed(ctx, gpu, dt, rows, cols)
                         : sy::bench::RmsNormComposed(ctx, gpu, dt, rows, cols);
        };
        benchmark::RegisterBenchmark((name + "/fused").c_str(), [=](benchmark::State& state) {
          Prepared& p = Prepare(name, make);
          RunGraph(state, gpu, p.fused);
          // (bytes / s) / copy's bytes / s, as a rate over the timed run.
          state.counters["frac_copy"] = benchmark::Counter(
              static_cast<double>(p.fused.bytes) / CopyBandwidth(gpu, dt, int64_t{1} << 26),
              benchmark::Counter::kIsIterationInvariantRate);
        })->Unit(benchmark::kMillisecond)->UseManualTime();
      }
    }
  }
  // The rule of docs/fusion.md "Native kernels" at the block's rms_norm
  // shape: the plugin's rms_norm kernel (rms_norm_op/…/fused runs it) against
  // the fused kernel of the same computation (rms_norm/…/fused).
  for (sy_dtype_t dt : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    const std::string t = sy::DTypeName(dt);
    AddPair("cuda/rms_norm_op/" + t + "/4096x1024", gpu,
            [&ctx, gpu, dt] { return sy::bench::RmsNormOp(ctx, gpu, dt, 4096, 1024); });
    AddPair("cuda/rms_norm/" + t + "/4096x1024", gpu,
            [&ctx, gpu, dt] { return sy::bench::RmsNormComposed(ctx, gpu, dt, 4096, 1024); });
  }
  auto gpu_block = [&ctx, gpu] {
    return sy::bench::TransformerBlock(ctx, gpu, SY_DTYPE_BF16, 8, 512, 1024, 16);
  };
  AddOps("cuda/block/bf16/8x512x1024", gpu, gpu_block);
  AddPair("cuda/block/bf16/8x512x1024", gpu, gpu_block);
  AddCompile("cuda", "cuda:0", 10);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
