// bench_fusion: captured graphs run fused (one kernel per group) against
// the same ops run one by one through the dispatcher ("eager": the graph
// compiled with fusion off), on cpu and, where there is one, a CUDA GPU.
// GPU rows are timed with the device's events (manual time); cpu rows by
// the wall clock (the cpu stream is synchronous).
//
//   bench_fusion [--benchmark_filter=cpu/] [--benchmark_repetitions=5
//                 --benchmark_report_aggregates_only=true]
//
// Rows (docs/performance.md, "Fusion"; issue 16):
//   <dev>/chain/<dtype>/<n>/{eager,fused}   relu(sigmoid(tanh(x*y+1)*2-y))+x
//   <dev>/{softmax,rms_norm,gelu}/<dtype>/<rows>x<cols>/{eager,fused}
//                                           composed from primitives
//   cuda/rowlen/{softmax,rms_norm}/<dtype>/<cols>/fused, with counter
//     frac_copy = bytes/s ÷ a device-to-device copy's (rows × cols = 2^26)
//   cuda/block/bf16/{eager,fused}           the transformer block
//   <dev>/compile/{cold,warm_disk}          compiling the chain's kernel:
//     the code generator every time, or a fresh process's start from the
//     disk cache (time per kernel)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_graphs.h"
#include "dispatcher/base/error.h"
#include "dispatcher/ops/dtype.h"
#include "fusion/graph.h"

namespace {

using sy::bench::Workload;
using sy::core::Device;
using sy::core::Tensor;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_fusion: %s\n", what.c_str());
  std::exit(1);
}

template <class T>
T Value(absl::StatusOr<T> s, const std::string& what) {
  if (!s.ok()) Die(what + ": " + std::string(s.status().message()));
  return *std::move(s);
}

struct Env {
  std::unique_ptr<sy::core::Runtime> rt;
  std::unique_ptr<sy::fusion::Compiler> compiler;
  Device* cpu = nullptr;
  Device* cuda = nullptr;

  static Env& Get() {
    static Env* env = [] {
      auto* e = new Env;
      sy::core::RuntimeOptions options;
      options.loader.use_environment = false;
      options.loader.use_default_path = false;
      const std::string dir = SWITCHYARD_PLUGIN_DIR;
      options.loader.search_paths.push_back(dir + "/cpu.json");
      if (std::filesystem::exists(dir + "/cuda.json")) {
        options.loader.search_paths.push_back(dir + "/cuda.json");
      }
      e->rt = Value(sy::core::Runtime::Create(options), "runtime");
      e->cpu = Value(e->rt->GetDevice("cpu"), "cpu");
      absl::StatusOr<Device*> cuda = e->rt->GetDevice("cuda:0");
      e->cuda = cuda.ok() ? *cuda : nullptr;
      sy::fusion::CompilerOptions copts;
      copts.disk_cache = false;  // the compile rows set up their own
      e->compiler = std::make_unique<sy::fusion::Compiler>(*e->rt, copts);
      return e;
    }();
    return *env;
  }
};

bool IsGpu(const Device& d) { return d.type().name() != "cpu"; }

// Device events around one launch (GPU) or the wall clock (cpu).
class Timer {
 public:
  explicit Timer(Device& d) : d_(d), api_(d.type().api()) {
    if (!IsGpu(d)) return;
    Check(api_.event_create(api_.device_data, d.index(), &start_));
    Check(api_.event_create(api_.device_data, d.index(), &end_));
  }
  ~Timer() {
    if (!IsGpu(d_)) return;
    api_.event_destroy(api_.device_data, start_);
    api_.event_destroy(api_.device_data, end_);
  }
  void Run(benchmark::State& state, const std::function<void()>& body) {
    for (auto _ : state) {
      if (!IsGpu(d_)) {
        body();
        continue;
      }
      Check(api_.event_record(api_.device_data, start_, d_.stream()));
      body();
      Check(api_.event_record(api_.device_data, end_, d_.stream()));
      Check(api_.event_synchronize(api_.device_data, end_));
      float ms = 0;
      Check(api_.event_elapsed_ms(api_.device_data, start_, end_, &ms));
      state.SetIterationTime(ms / 1e3);
    }
  }

 private:
  void Check(sy_error_t* e) {
    absl::Status s = sy::core::TakeError(e, "device event");
    if (!s.ok()) Die(std::string(s.message()));
  }
  Device& d_;
  const sy_device_api_t& api_;
  sy_event_t start_ = nullptr, end_ = nullptr;
};

struct Prepared {
  Workload work;
  sy::fusion::CompiledGraph eager, fused;
};

Prepared& Prepare(const std::string& key, const std::function<Workload()>& make) {
  static auto* cache = new std::map<std::string, std::unique_ptr<Prepared>>;
  auto& slot = (*cache)[key];
  if (!slot) {
    Env& env = Env::Get();
    slot = std::make_unique<Prepared>();
    slot->work = make();
    sy::fusion::CompileOptions eager;
    eager.fuse = false;
    slot->eager = Value(env.compiler->Compile(slot->work.graph, eager), key + " eager");
    slot->fused = Value(env.compiler->Compile(slot->work.graph), key + " fused");
    if (std::getenv("BENCH_FUSION_DESCRIBE")) {
      std::fprintf(stderr, "%s\n%s", key.c_str(), slot->fused.Describe().c_str());
    }
  }
  return *slot;
}

void RunGraph(benchmark::State& state, Device& d, const sy::fusion::CompiledGraph& g,
              const Workload& w) {
  Timer timer(d);
  std::vector<Tensor> keep;
  timer.Run(state, [&] {
    absl::StatusOr<std::vector<Tensor>> out = g.Launch(w.inputs);
    if (!out.ok()) Die(std::string(out.status().message()));
    keep = *std::move(out);  // freed after the next launch is enqueued
  });
  state.SetBytesProcessed(state.iterations() * w.bytes);
}

// Bytes per second of a device-to-device copy of n elements (GPU rows'
// yardstick), measured once per dtype.
double CopyBandwidth(Device& d, sy_dtype_t dtype, int64_t n) {
  static std::map<sy_dtype_t, double> cache;
  if (auto it = cache.find(dtype); it != cache.end()) return it->second;
  Env& env = Env::Get();
  const Tensor src = sy::bench::RandomTensor(*env.rt, d, dtype, {n}, 99);
  const Tensor dst = Value(env.rt->Empty(d, dtype, {n}), "empty");
  const sy_device_api_t& api = d.type().api();
  sy_event_t a = nullptr, b = nullptr;
  api.event_create(api.device_data, d.index(), &a);
  api.event_create(api.device_data, d.index(), &b);
  float best = 1e30f;
  for (int i = 0; i < 20; ++i) {
    api.event_record(api.device_data, a, d.stream());
    (void)d.CopyAsync(dst.data(), src.data(), src.nbytes(), SY_COPY_DEVICE_TO_DEVICE);
    api.event_record(api.device_data, b, d.stream());
    api.event_synchronize(api.device_data, b);
    float ms = 0;
    api.event_elapsed_ms(api.device_data, a, b, &ms);
    if (i >= 3) best = std::min(best, ms);
  }
  api.event_destroy(api.device_data, a);
  api.event_destroy(api.device_data, b);
  return cache[dtype] = 2.0 * static_cast<double>(src.nbytes()) / (best / 1e3);
}

std::string DtypeName(sy_dtype_t d) { return std::string(sy::core::DTypeName(d)); }

void AddPair(const std::string& name, Device* d, std::function<Workload()> make) {
  for (const char* mode : {"eager", "fused"}) {
    const bool fused = std::string(mode) == "fused";
    auto* b = benchmark::RegisterBenchmark((name + "/" + mode).c_str(),
                                           [=](benchmark::State& state) {
                                             Prepared& p = Prepare(name, make);
                                             RunGraph(state, *d, fused ? p.fused : p.eager, p.work);
                                           });
    b->Unit(benchmark::kMillisecond);
    if (IsGpu(*d)) b->UseManualTime();
  }
}

void AddCompile(const std::string& prefix, Device* d) {
  // One workload per registration, made on first use.
  auto work = std::make_shared<std::unique_ptr<Workload>>();
  auto get = [work, d]() -> Workload& {
    if (!*work) {
      *work = std::make_unique<Workload>(
          sy::bench::Chain(*Env::Get().rt, *d, SY_DTYPE_F32, {1 << 20}));
    }
    return **work;
  };
  benchmark::RegisterBenchmark((prefix + "/compile/cold").c_str(), [get](benchmark::State& state) {
    Workload& w = get();
    for (auto _ : state) {
      sy::fusion::CompilerOptions o;
      o.disk_cache = false;
      sy::fusion::Compiler c(*Env::Get().rt, o);  // empty memory cache: the code generator runs
      benchmark::DoNotOptimize(Value(c.Compile(w.graph), "compile"));
    }
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark((prefix + "/compile/warm_disk").c_str(), [get](benchmark::State& state) {
    Workload& w = get();
    const std::string dir =
        (std::filesystem::temp_directory_path() / "sy_bench_fusion_cache").string();
    sy::fusion::CompilerOptions o;
    o.cache_dir = dir;
    {
      sy::fusion::Compiler warm(*Env::Get().rt, o);  // fills the disk cache
      (void)Value(warm.Compile(w.graph), "compile");
    }
    for (auto _ : state) {
      sy::fusion::Compiler c(*Env::Get().rt, o);  // a new process: memory empty, disk warm
      benchmark::DoNotOptimize(Value(c.Compile(w.graph), "compile"));
    }
    std::filesystem::remove_all(dir);
  })->Unit(benchmark::kMillisecond);
}

void RegisterAll() {
  Env& env = Env::Get();
  sy::core::Runtime& rt = *env.rt;
  Device* cpu = env.cpu;
  for (int64_t n : {int64_t{1} << 20, int64_t{1} << 24}) {
    AddPair("cpu/chain/f32/" + std::to_string(n), cpu,
            [&rt, cpu, n] { return sy::bench::Chain(rt, *cpu, SY_DTYPE_F32, {n}); });
  }
  AddPair("cpu/softmax/f32/4096x4096", cpu,
          [&rt, cpu] { return sy::bench::SoftmaxComposed(rt, *cpu, SY_DTYPE_F32, 4096, 4096); });
  AddPair("cpu/rms_norm/f32/4096x4096", cpu,
          [&rt, cpu] { return sy::bench::RmsNormComposed(rt, *cpu, SY_DTYPE_F32, 4096, 4096); });
  AddPair("cpu/gelu/f32/4096x4096", cpu,
          [&rt, cpu] { return sy::bench::GeluComposed(rt, *cpu, SY_DTYPE_F32, 4096, 4096); });
  AddCompile("cpu", cpu);

  Device* gpu = env.cuda;
  if (gpu == nullptr) return;
  for (sy_dtype_t dt : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    const std::string t = DtypeName(dt);
    AddPair("cuda/chain/" + t + "/8192x8192", gpu,
            [&rt, gpu, dt] { return sy::bench::Chain(rt, *gpu, dt, {8192, 8192}); });
    AddPair("cuda/softmax/" + t + "/8192x8192", gpu,
            [&rt, gpu, dt] { return sy::bench::SoftmaxComposed(rt, *gpu, dt, 8192, 8192); });
    AddPair("cuda/rms_norm/" + t + "/8192x8192", gpu,
            [&rt, gpu, dt] { return sy::bench::RmsNormComposed(rt, *gpu, dt, 8192, 8192); });
    AddPair("cuda/gelu/" + t + "/8192x8192", gpu,
            [&rt, gpu, dt] { return sy::bench::GeluComposed(rt, *gpu, dt, 8192, 8192); });
    for (int64_t cols : {256, 1024, 4096, 16384, 65536, 262144}) {
      const int64_t rows = (int64_t{1} << 26) / cols;
      for (const char* op : {"softmax", "rms_norm"}) {
        const std::string name = "cuda/rowlen/" + std::string(op) + "/" + t + "/" + std::to_string(cols);
        const bool softmax = std::string(op) == "softmax";
        auto make = [&rt, gpu, dt, rows, cols, softmax] {
          return softmax ? sy::bench::SoftmaxComposed(rt, *gpu, dt, rows, cols)
                         : sy::bench::RmsNormComposed(rt, *gpu, dt, rows, cols);
        };
        benchmark::RegisterBenchmark((name + "/fused").c_str(), [=](benchmark::State& state) {
          Prepared& p = Prepare(name, make);
          RunGraph(state, *gpu, p.fused, p.work);
          // (bytes / s) / copy's bytes / s, as a rate over the timed run.
          state.counters["frac_copy"] = benchmark::Counter(
              static_cast<double>(p.work.bytes) / CopyBandwidth(*gpu, dt, int64_t{1} << 26),
              benchmark::Counter::kIsIterationInvariantRate);
        })->Unit(benchmark::kMillisecond)->UseManualTime();
      }
    }
  }
  AddPair("cuda/block/bf16/8x512x1024", gpu, [&rt, gpu] {
    return sy::bench::TransformerBlock(rt, *gpu, SY_DTYPE_BF16, 8, 512, 1024, 16);
  });
  AddCompile("cuda", gpu);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
