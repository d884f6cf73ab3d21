// The default choice against every loaded kernel (issue 13: with the
// default plugin set and autotuning off, no op at any size may run more
// than 1.25× slower than the fastest loaded kernel for it). Each op × size,
// f32, into preallocated outputs, timed two ways:
//   Chosen/<op>/<n>           the default plugin set as shipped (cpu +
//                             onednn, default options): what a user gets.
//                             The label is what ran (sy::Op::explain).
//   Kernel/<op>/<n>/<plugin>  each loaded kernel for the op's f32 key,
//                             pinned (sy::Op::pin), in a second context
//                             where onednn declines nothing
//                             (onednn.min_elements=1,
//                             onednn.min_matmul_flops=1), so every kernel is
//                             timed at every size through the same call
//                             path as Chosen.
// After the runs a table prints, per op and size, the chosen kernel and its
// time, the fastest kernel and its time, and the ratio ("SLOW" above 1.25).
// Times are the fastest of the repetitions: on a shared host noise only
// ever adds time, and the rows differ by less than it (Chosen and the
// pinned row of the same kernel are the same call; their medians drifted
// ±50 % apart on the GPU machine's host, in both directions). Run the
// repetitions interleaved at random, so that a slow spell spreads over all
// rows; the table also gives the ratio of the medians.
// The onednn rows against the cpu rows are where its decline thresholds
// (plugins/onednn/context.h, Note [Declining small calls]) should sit.
// Sizes are elements of the input: 1, 16, 256, 4Ki, 64Ki, 1Mi, 16Mi
// (softmax and layer_norm over rows of up to 1024; matmul and linear n×n
// for n = 1 … 1024). Torch/<op>/<n> rows are libtorch at the largest sizes.
// Run: build/release/bin/bench_ops --benchmark_repetitions=7
//        --benchmark_enable_random_interleaving=true
//        --benchmark_report_aggregates_only=true --benchmark_min_time=0.05
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "bench_util.h"
#include "switchyard/switchyard.hpp"

#ifdef SWITCHYARD_HAVE_TORCH
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#endif

namespace {

using sy::bench::EmptyF32;
using sy::bench::Must;
using sy::bench::RandomF32;

// ---- The cases ---------------------------------------------------------------

// One op call on inputs built for a size.
struct Case {
  std::vector<sy::Tensor> inputs;
  std::vector<sy::Attr> attrs;
  std::vector<int64_t> out_shape;
};

struct OpSpec {
  const char* name;                 // the table's row name
  const char* op;                   // the op's full name
  std::vector<sy_dtype_t> dtypes;   // its kernels' f32 key
  std::vector<int64_t> sizes;       // elements of the input (n for matmul: n×n)
  Case (*make)(const sy::Device& cpu, int64_t n);
};

constexpr int64_t kElementSizes[] = {1, 16, 256, 4096, 65536, 1 << 20, 1 << 24};
constexpr int64_t kMatrixSizes[] = {1, 4, 16, 64, 256, 1024};

// Rows of up to 1024 columns for the ops over the last dimension.
std::vector<int64_t> RowsOf(int64_t n) {
  const int64_t cols = std::min<int64_t>(n, 1024);
  return {n / cols, cols};
}

const int64_t kSumDims[1] = {0};
const std::vector<int64_t>& NormShape(int64_t cols) {
  static std::map<int64_t, std::vector<int64_t>>* shapes =
      new std::map<int64_t, std::vector<int64_t>>;
  auto it = shapes->find(cols);
  if (it == shapes->end()) it = shapes->emplace(cols, std::vector<int64_t>{cols}).first;
  return it->second;
}

Case Binary(const sy::Device& cpu, int64_t n) {
  return {{RandomF32(cpu, {n}, 1), RandomF32(cpu, {n}, 2, 0.5f, 2.0f)}, {}, {n}};
}
Case Unary(const sy::Device& cpu, int64_t n) { return {{RandomF32(cpu, {n}, 1)}, {}, {n}}; }
Case Sum(const sy::Device& cpu, int64_t n) {
  return {{RandomF32(cpu, {n}, 1)}, {sy::Attr(std::span<const int64_t>(kSumDims))}, {}};
}
Case Softmax(const sy::Device& cpu, int64_t n) {
  const std::vector<int64_t> shape = RowsOf(n);
  return {{RandomF32(cpu, shape, 1)}, {sy::Attr(-1)}, shape};
}
Case LayerNorm(const sy::Device& cpu, int64_t n) {
  const std::vector<int64_t> shape = RowsOf(n);
  return {{RandomF32(cpu, shape, 1), RandomF32(cpu, {shape[1]}, 2, 0.5f, 1.5f),
           RandomF32(cpu, {shape[1]}, 3)},
          {sy::Attr(NormShape(shape[1])), sy::Attr(1e-5)},
          shape};
}
Case Matmul(const sy::Device& cpu, int64_t n) {
  return {{RandomF32(cpu, {n, n}, 1), RandomF32(cpu, {n, n}, 2)}, {}, {n, n}};
}
Case Linear(const sy::Device& cpu, int64_t n) {
  return {{RandomF32(cpu, {n, n}, 1), RandomF32(cpu, {n, n}, 2), sy::Tensor()}, {}, {n, n}};
}

const std::vector<OpSpec>& Specs() {
  static const std::vector<OpSpec>* specs = [] {
    const std::vector<int64_t> elements(std::begin(kElementSizes), std::end(kElementSizes));
    const std::vector<int64_t> matrices(std::begin(kMatrixSizes), std::end(kMatrixSizes));
    const std::vector<sy_dtype_t> one = {SY_DTYPE_F32}, two = {SY_DTYPE_F32, SY_DTYPE_F32};
    return new std::vector<OpSpec>{
        {"add", "add.Tensor", two, elements, Binary},
        {"mul", "mul.Tensor", two, elements, Binary},
        {"div", "div.Tensor", two, elements, Binary},
        {"tanh", "tanh", one, elements, Unary},
        {"sigmoid", "sigmoid", one, elements, Unary},
        {"gelu", "gelu", one, elements, Unary},
        {"sum", "sum", one, elements, Sum},
        {"softmax", "softmax", one, elements, Softmax},
        {"layer_norm", "layer_norm", {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_F32}, elements,
         LayerNorm},
        {"matmul", "matmul", two, matrices, Matmul},
        {"linear", "linear", {SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_NONE}, matrices, Linear},
    };
  }();
  return *specs;
}

// ---- The two contexts ------------------------------------------------------------

struct World {
  sy::Context context;
  sy::Device cpu;
};

World& Default() {
  static World* w = [] {
    auto* world = new World{sy::bench::DefaultContext(), {}};
    world->cpu = Must(world->context.device("cpu"), "cpu");
    return world;
  }();
  return *w;
}

World& NoDecline() {
  static World* w = [] {
    auto* world = new World{
        sy::bench::DefaultContext({"onednn.min_elements=1", "onednn.min_matmul_flops=1"}), {}};
    world->cpu = Must(world->context.device("cpu"), "cpu");
    return world;
  }();
  return *w;
}

// Times `spec` at `n` in `world` (warm-up call first: primitive creation,
// JIT, a decline's query happen before timing).
void Time(benchmark::State& state, World& world, const OpSpec& spec, int64_t n) {
  const sy::Op op = Must(world.context.op(spec.op), spec.op);
  const Case c = spec.make(world.cpu, n);
  const sy::Tensor outputs[1] = {EmptyF32(world.cpu, c.out_shape)};
  sy::Status status = op.call_out(c.inputs, c.attrs, outputs);
  if (!status.ok()) {
    state.SkipWithError(status.message().c_str());
    return;
  }
  sy::Result<std::string> how = op.explain(c.inputs, c.attrs);
  state.SetLabel(how.ok() ? *how : how.status().message());
  for (auto _ : state) {
    status = op.call_out(c.inputs, c.attrs, outputs);
    if (!status.ok()) {
      state.SkipWithError(status.message().c_str());
      return;
    }
  }
  state.counters["threads"] = sy::bench::Threads(world.cpu);
}

// The loaded kernels of `spec`'s key on cpu: "plugin" → "plugin::name".
std::vector<std::pair<std::string, std::string>> Candidates(const OpSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  const sy::Op op = Must(NoDecline().context.op(spec.op), spec.op);
  for (const sy::KernelInfo& k : Must(op.kernels(), "kernels")) {
    if (k.device_type == "cpu" && k.dtypes == spec.dtypes) out.emplace_back(k.plugin, k.name);
  }
  return out;
}

// The "min" statistic of the repetitions (see the top of the file).
double Fastest(const std::vector<double>& times) {
  return times.empty() ? 0 : *std::min_element(times.begin(), times.end());
}

void RegisterAll() {
  for (const OpSpec& spec : Specs()) {
    const auto candidates = Candidates(spec);
    for (int64_t n : spec.sizes) {
      const std::string row = std::string(spec.name) + "/" + std::to_string(n);
      benchmark::RegisterBenchmark(("Chosen/" + row).c_str(),
                                   [&spec, n](benchmark::State& s) {
                                     Time(s, Default(), spec, n);
                                   })
          ->UseRealTime()
          ->ComputeStatistics("min", Fastest);
      for (const auto& [plugin, kernel] : candidates) {
        benchmark::RegisterBenchmark(
            ("Kernel/" + row + "/" + plugin).c_str(),
            [&spec, n, kernel = kernel](benchmark::State& s) {
              const sy::Op op = Must(NoDecline().context.op(spec.op), spec.op);
              Must(op.pin("cpu", kernel), "pin " + kernel);
              Time(s, NoDecline(), spec, n);
              Must(op.unpin("cpu"), "unpin");
            })
            ->UseRealTime()
            ->ComputeStatistics("min", Fastest);
      }
    }
  }
}

#ifdef SWITCHYARD_HAVE_TORCH
at::Tensor TorchRandom(const std::vector<int64_t>& shape, uint32_t seed) {
  const std::vector<float> data = sy::bench::RandomData(sy::bench::Numel(shape), seed);
  return at::from_blob(const_cast<float*>(data.data()), shape, at::kFloat).clone();
}

template <class Body>
void RunTorch(benchmark::State& state, Body body) {
  at::set_num_threads(sy::bench::Threads(Default().cpu));
  body();
  for (auto _ : state) body();
  state.counters["threads"] = at::get_num_threads();
}

void RegisterTorch() {
  constexpr int64_t n = 1 << 24;
  benchmark::RegisterBenchmark("Torch/add/16777216", [](benchmark::State& s) {
    at::Tensor a = TorchRandom({n}, 1), b = TorchRandom({n}, 2), out = at::empty({n});
    RunTorch(s, [&] { at::add_out(out, a, b); });
  })->UseRealTime();
  benchmark::RegisterBenchmark("Torch/gelu/16777216", [](benchmark::State& s) {
    at::Tensor x = TorchRandom({n}, 1), out = at::empty({n});
    RunTorch(s, [&] { at::gelu_out(out, x); });
  })->UseRealTime();
  benchmark::RegisterBenchmark("Torch/sum/16777216", [](benchmark::State& s) {
    at::Tensor x = TorchRandom({n}, 1), out = at::empty({});
    RunTorch(s, [&] { at::sum_out(out, x, at::IntArrayRef{0}); });
  })->UseRealTime();
  benchmark::RegisterBenchmark("Torch/softmax/16777216", [](benchmark::State& s) {
    at::Tensor x = TorchRandom({n / 1024, 1024}, 1), out = at::empty({n / 1024, 1024});
    RunTorch(s, [&] { at::_softmax_out(out, x, -1, false); });
  })->UseRealTime();
  benchmark::RegisterBenchmark("Torch/matmul/1024", [](benchmark::State& s) {
    at::Tensor a = TorchRandom({1024, 1024}, 1), b = TorchRandom({1024, 1024}, 2);
    at::Tensor out = at::empty({1024, 1024});
    RunTorch(s, [&] { at::mm_out(out, a, b); });
  })->UseRealTime();
}
#endif

// ---- The table ---------------------------------------------------------------------

// Keeps each benchmark's times (the fastest and the median repetition, or
// the one run) and label, and prints the comparison when the runs are done.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const bool aggregate = run.run_type == Run::RT_Aggregate;
      if (aggregate && run.aggregate_name != "min" && run.aggregate_name != "median") continue;
      std::string name = run.benchmark_name();
      if (const size_t slash = name.find("/real_time"); slash != std::string::npos) {
        name.resize(slash);
      }
      const std::string suffix = "_" + run.aggregate_name;  // "…_min" → "…"
      if (aggregate && name.ends_with(suffix)) name.resize(name.size() - suffix.size());
      Times& t = times_[name];
      const double ns = run.GetAdjustedRealTime();
      if (!aggregate && t.repeated) continue;
      if (aggregate && !t.repeated) t = Times{.repeated = true};
      if (!aggregate || run.aggregate_name == "min") t.fastest = ns;
      if (!aggregate || run.aggregate_name == "median") t.median = ns;
      if (!run.report_label.empty()) labels_[name] = run.report_label;
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf(
        "\n| op | elements | chosen (default set) | time | fastest loaded kernel | time | ratio "
        "| ratio of medians |\n"
        "|---|---|---|---|---|---|---|---|\n");
    int slow = 0;
    for (const OpSpec& spec : Specs()) {
      for (int64_t n : spec.sizes) {
        const std::string row = std::string(spec.name) + "/" + std::to_string(n);
        auto chosen = times_.find("Chosen/" + row);
        if (chosen == times_.end()) continue;
        std::string best_name;
        Times best;
        for (const auto& [name, t] : times_) {
          if (name.rfind("Kernel/" + row + "/", 0) != 0) continue;
          if (best_name.empty() || t.fastest < best.fastest) {
            best = t;
            // What ran: a pinned kernel may still decline (onednn's narrow
            // reductions), and then the label names the kernel that ran.
            best_name = labels_.contains(name) ? Ran(labels_[name])
                                               : name.substr(name.rfind('/') + 1);
          }
        }
        if (best_name.empty()) continue;
        const double ratio = chosen->second.fastest / best.fastest;
        slow += ratio > 1.25;
        const int64_t elements = spec.make == Matmul || spec.make == Linear ? n * n : n;
        std::printf("| %s | %lld | %s | %s | %s | %s | %.2f%s | %.2f |\n", spec.name,
                    static_cast<long long>(elements), Ran(labels_["Chosen/" + row]).c_str(),
                    Pretty(chosen->second.fastest).c_str(), best_name.c_str(),
                    Pretty(best.fastest).c_str(), ratio, ratio > 1.25 ? " SLOW" : "",
                    chosen->second.median / best.median);
      }
    }
    std::printf("\n%d of the rows above are more than 1.25x slower than the fastest "
                "loaded kernel.\n", slow);
  }

 private:
  // "kernel cpu::add.Tensor.f32.f32 (priority); declined: …" → "cpu (declined: onednn)".
  static std::string Ran(const std::string& label) {
    std::string plugin = label;
    if (label.rfind("kernel ", 0) == 0) plugin = label.substr(7, label.find("::") - 7);
    else plugin = label.substr(0, label.find(';'));
    if (label.find("; declined: ") != std::string::npos) plugin += " (a decline)";
    return plugin;
  }
  static std::string Pretty(double ns) {
    char text[32];
    if (ns < 1e3) std::snprintf(text, sizeof text, "%.0f ns", ns);
    else if (ns < 1e6) std::snprintf(text, sizeof text, "%.1f us", ns / 1e3);
    else std::snprintf(text, sizeof text, "%.2f ms", ns / 1e6);
    return text;
  }

  struct Times {
    bool repeated = false;  // from aggregates (min, median), not one run
    double fastest = 0;
    double median = 0;
  };
  std::map<std::string, Times> times_;
  std::map<std::string, std::string> labels_;
};

}  // namespace

int main(int argc, char** argv) {
  setenv("SWITCHYARD_AUTOTUNE", "off", 1);  // the default choice, untuned
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RegisterAll();
#ifdef SWITCHYARD_HAVE_TORCH
  RegisterTorch();
#endif
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
