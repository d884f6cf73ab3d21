// bench_autotune: the autotuner on cpu with the cpu and onednn plugins, in
// one run (docs/performance.md, "Autotuning"):
//
// 1. The grid: add, gelu, softmax, layer_norm (1 element … 16 M), matmul
//    (8 … 4096 square) and conv2d (small … 16 M-element inputs), f32. onednn
//    runs with min_elements=1 and min_matmul_flops=1, so it never declines
//    and both plugins are candidates everywhere. For each key: a cold tune
//    (empty cache, the tuner's default budget), then an exhaustive
//    re-measurement of every candidate (long budget, no early stop). The
//    table gives the tuned choice's time over the best candidate's in the
//    exhaustive run (target: within 5 % in >= 95 % of keys, never above
//    1.25×), the static choice's (what runs untuned) over the best, and the
//    cold tuning time.
// 2. Dispatch overhead (Google Benchmark): CallOut of a 16-element f32 add
//    whose slot has one kernel (no bucket table is read: Untuned), the same
//    with onednn loaded and the cpu kernel pinned (no table read either:
//    PinnedWithOnednn), and through a slot with a tuned verdict for its
//    bucket naming the same cpu kernel (Tuned): Tuned − PinnedWithOnednn is
//    what the verdict's lookup costs; then that lookup's parts.
//
//   bench_autotune                          both parts
//   bench_autotune --grid-only [--max-matmul=1024] [--ops=matmul,add]
//   bench_autotune --dispatch-only --benchmark_repetitions=10
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autotune/tune_cases.h"
#include "autotune/tuner.h"
#include "dispatcher/dispatch/bind.h"
#include "dispatcher/base/plugin_instance.h"
#include "dispatcher/runtime/runtime.h"

namespace {

using sy::autotune::TuneCase;
using sy::autotune::TuneInput;
using sy::autotune::TuneAttr;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "bench_autotune: %s\n", what.c_str());
  std::exit(1);
}

std::unique_ptr<sy::core::Runtime> MakeRuntime(bool with_onednn, bool tuner) {
  sy::core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  const std::string dir = SWITCHYARD_PLUGIN_DIR;
  options.loader.search_paths = {dir + "/cpu.json"};
  if (with_onednn) {
    options.loader.search_paths.push_back(dir + "/onednn.json");
    options.loader.plugin_options = {"onednn.min_elements=1", "onednn.min_matmul_flops=1"};
  }
  if (tuner) {
    sy::autotune::TunerOptions t;
    t.in_memory = true;  // cold: nothing from earlier runs
    options.tuner_factory = sy::autotune::MakeTunerFactory(t);
    options.autotune = sy::core::AutotuneMode::kCached;
  }
  absl::StatusOr<std::unique_ptr<sy::core::Runtime>> rt = sy::core::Runtime::Create(options);
  if (!rt.ok()) Die(std::string(rt.status().message()));
  return *std::move(rt);
}

TuneInput In(std::vector<int64_t> shape) {
  TuneInput in;
  in.shape = std::move(shape);
  return in;
}
[[maybe_unused]] TuneAttr Int(int64_t v) {
  TuneAttr a{};
  a.kind = TuneAttr::Kind::kInt;
  a.i = v;
  return a;
}
TuneAttr Ints(std::vector<int64_t> v) {
  TuneAttr a{};
  a.kind = TuneAttr::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

std::vector<TuneCase> Grid(int64_t max_matmul, const std::set<std::string>& ops) {
  std::vector<TuneCase> cases;
  auto add = [&](TuneCase c) {
    if (ops.empty() || ops.count(c.op)) cases.push_back(std::move(c));
  };
  for (int64_t n : {1, 16, 256, 4096, 65536, 1 << 20, 1 << 24}) {
    add({"add.Tensor", "cpu", {In({n}), In({n})}, {}, {}});
    add({"gelu", "cpu", {In({n})}, {}, {}});
  }
  for (int64_t n : {1, 4, 16, 64, 256, 1024, 4096}) {  // n×n: 1 … 16 M
    add({"softmax", "cpu", {In({n, n})}, {Int(-1)}, {}});
    add({"layer_norm", "cpu", {In({n, n}), In({n}), In({n})}, {Ints({n})}, {}});
  }
  for (int64_t n = 8; n <= max_matmul; n *= 2) {
    add({"matmul", "cpu", {In({n, n}), In({n, n})}, {}, {}});
  }
  // conv2d (N, C, H=W, K, kernel): inputs up to 16 M elements.
  struct Conv { int64_t n, c, h, k, r; };
  for (Conv v : {Conv{1, 1, 4, 1, 3}, Conv{1, 3, 32, 16, 3}, Conv{1, 16, 32, 16, 3},
                 Conv{1, 64, 56, 64, 3}, Conv{1, 256, 14, 256, 3}, Conv{4, 64, 56, 64, 1},
                 Conv{16, 64, 128, 64, 3}}) {
    TuneInput no_bias;
    no_bias.omitted = true;
    add({"conv2d", "cpu", {In({v.n, v.c, v.h, v.h}), In({v.k, v.c, v.r, v.r}), no_bias},
         {Ints({1, 1}), Ints({v.r / 2, v.r / 2})}, {}});
  }
  return cases;
}

struct Row {
  std::string op, shape, candidates, tuned, best, statik;
  double tuned_ratio = 0, static_ratio = 0, tune_ms = 0;
  bool ok = false;
  std::string error;
};

std::string ShortName(const std::string& label) {
  return label.substr(0, label.find("::"));  // the plugin
}

void RunGrid(int64_t max_matmul, const std::set<std::string>& ops) {
  const std::vector<TuneCase> cases = Grid(max_matmul, ops);
  std::unique_ptr<sy::core::Runtime> rt = MakeRuntime(true, true);
  auto& tuner = *static_cast<sy::autotune::Tuner*>(rt->tuner());
  sy::autotune::TuneCallOptions cold;  // the defaults
  sy::autotune::TuneCallOptions exhaustive;
  exhaustive.force = true;
  exhaustive.measure.budget_ms = 1000;
  exhaustive.measure.min_rounds = 9;
  exhaustive.measure.early_stop_factor = 1e9;
  exhaustive.measure.band = 0;
  std::fprintf(stderr, "bench_autotune: %zu keys; cold tune, then exhaustive re-measure\n",
               cases.size());
  std::vector<Row> rows;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::vector<TuneCase> one = {cases[i]};
    Row row;
    row.op = cases[i].op;
    row.shape = cases[i].Describe();
    std::vector<sy::autotune::TuneRow> tuned = RunTuneCases(*rt, tuner, one, cold);
    std::vector<sy::autotune::TuneRow> full = RunTuneCases(*rt, tuner, one, exhaustive);
    if (!tuned[0].status.ok() || !full[0].status.ok()) {
      row.error = std::string(!tuned[0].status.ok() ? tuned[0].status.message()
                                                    : full[0].status.message());
      std::fprintf(stderr, "  %s: %s\n", row.shape.c_str(), row.error.c_str());
      rows.push_back(row);
      continue;
    }
    const sy::autotune::TuneReport& t = tuned[0].report;
    const sy::autotune::TuneReport& f = full[0].report;
    row.tune_ms = t.measurement.has_value() ? t.measurement->elapsed_ms : 0;
    const std::string tuned_label =
        t.verdict.variant < 0 ? t.verdict.kernel
                              : absl::StrCat(t.verdict.kernel, " [", t.verdict.variant_name, "]");
    double best = 1e300, tuned_ns = 0, static_ns = 0;
    bool static_found = false;
    std::vector<std::string> names;
    for (size_t c = 0; c < f.candidates.size(); ++c) {
      const sy::autotune::CandidateResult& r = f.measurement->results[c];
      if (r.outcome != sy::autotune::Outcome::kMeasured) continue;
      names.push_back(ShortName(f.candidates[c].Label()));
      if (r.median_ns < best) {
        best = r.median_ns;
        row.best = ShortName(f.candidates[c].Label());
      }
      if (f.candidates[c].Label() == tuned_label) tuned_ns = r.median_ns;
      if (!static_found) {  // candidates come in the static order
        static_ns = r.median_ns;
        row.statik = ShortName(f.candidates[c].Label());
        static_found = true;
      }
    }
    row.candidates = absl::StrJoin(names, "+");
    row.tuned = ShortName(tuned_label);
    row.tuned_ratio = tuned_ns / best;
    row.static_ratio = static_ns / best;
    row.ok = tuned_ns > 0;
    std::fprintf(stderr, "  [%zu/%zu] %s: tuned %s %.3fx, static %s %.3fx, tune %.1f ms\n",
                 i + 1, cases.size(), row.shape.c_str(), row.tuned.c_str(), row.tuned_ratio,
                 row.statik.c_str(), row.static_ratio, row.tune_ms);
    rows.push_back(row);
  }
  std::printf("\n| op | inputs | candidates | tuned | best (exhaustive) | tuned / best | "
              "static / best | cold tune (ms) |\n|---|---|---|---|---|---|---|---|\n");
  int within = 0, counted = 0;
  double worst = 0, tune_total = 0;
  for (const Row& r : rows) {
    if (!r.ok) {
      std::printf("| %s | %s | | error: %s | | | | |\n", r.op.c_str(), r.shape.c_str(),
                  r.error.c_str());
      continue;
    }
    ++counted;
    within += r.tuned_ratio <= 1.05;
    worst = std::max(worst, r.tuned_ratio);
    tune_total += r.tune_ms;
    std::printf("| %s | %s | %s | %s | %s | %.3f | %.3f | %.1f |\n", r.op.c_str(),
                r.shape.substr(r.op.size() + 1).c_str(), r.candidates.c_str(),
                r.tuned.c_str(), r.best.c_str(), r.tuned_ratio, r.static_ratio, r.tune_ms);
  }
  std::printf("\n%d of %d keys (%.1f %%) within 5 %% of the best; worst %.3fx; "
              "cold tuning %.1f ms per key on average\n",
              within, counted, counted ? 100.0 * within / counted : 0, worst,
              counted ? tune_total / counted : 0);
}

// ---- Dispatch overhead ------------------------------------------------------

enum class Setup { kCpuAlone, kTuned, kPinned };

struct DispatchFixture {
  std::unique_ptr<sy::core::Runtime> rt;
  sy::core::OpHandle add;
  sy::core::Tensor a, b, out;

  void Init(Setup setup) {
    const bool tuned = setup == Setup::kTuned;
    rt = MakeRuntime(/*with_onednn=*/setup != Setup::kCpuAlone, /*tuner=*/tuned);
    sy::core::Device* cpu = rt->GetDevice("cpu").value();
    add = rt->FindOp("add.Tensor").value();
    std::vector<float> ones(16, 1.0f);
    a = rt->FromHost(*cpu, SY_DTYPE_F32, {16}, ones.data(), 64).value();
    b = rt->FromHost(*cpu, SY_DTYPE_F32, {16}, ones.data(), 64).value();
    out = rt->Empty(*cpu, SY_DTYPE_F32, {16}).value();
    if (setup == Setup::kPinned) {
      // Pinned: the slot's first choice is the cpu kernel, which never
      // declines, so no bucket table is read — onednn loaded, no lookup.
      if (!rt->PinKernel("add.Tensor", "cpu", CpuAddName()).ok()) Die("pin");
      return;
    }
    if (!tuned) return;
    // A verdict for this bucket naming the cpu plugin's kernel: the call
    // runs the same kernel as the untuned one, through the bucket table.
    const sy::core::Tensor* in[] = {&a, &b};
    sy::core::BoundCall bound;
    if (!sy::core::BindCall(*add.def(), in, {}, {}, bound).ok()) Die("bind");
    absl::Status s = rt->state().kernels.SetTunedChoice(add.def(), bound.key(),
                                                        bound.bucket(), CpuAddName(), -1);
    if (!s.ok()) Die(std::string(s.message()));
    std::string how = rt->Explain(add, {a, b}).value();
    if (how.find("autotuned") == std::string::npos) Die("not tuned: " + how);
  }
  std::string CpuAddName() {
    for (const sy::core::KernelEntry* k : rt->state().kernels.KernelsFor(add.def())) {
      if (k->plugin != nullptr && k->plugin->name() == "cpu" &&
          k->dtypes == std::vector<sy_dtype_t>{SY_DTYPE_F32, SY_DTYPE_F32}) {
        return k->QualifiedName();
      }
    }
    return "";
  }
};

DispatchFixture& Fixture(Setup setup) {
  static DispatchFixture* fixtures[3] = {};
  DispatchFixture*& f = fixtures[static_cast<int>(setup)];
  if (f == nullptr) {
    f = new DispatchFixture;
    f->Init(setup);
  }
  return *f;
}
DispatchFixture& Untuned() { return Fixture(Setup::kCpuAlone); }
DispatchFixture& Tuned() { return Fixture(Setup::kTuned); }

void RunCallOut(benchmark::State& state, DispatchFixture& f) {
  for (auto _ : state) {
    absl::Status s = f.rt->CallOut(f.add, {f.a, f.b}, {}, {f.out});
    benchmark::DoNotOptimize(s);
  }
}
void BM_CallOut_Untuned(benchmark::State& state) { RunCallOut(state, Untuned()); }
void BM_CallOut_Tuned(benchmark::State& state) { RunCallOut(state, Tuned()); }
void BM_CallOut_PinnedWithOnednn(benchmark::State& state) {
  RunCallOut(state, Fixture(Setup::kPinned));
}
BENCHMARK(BM_CallOut_Untuned);
BENCHMARK(BM_CallOut_PinnedWithOnednn);
BENCHMARK(BM_CallOut_Tuned);

// The parts of the difference: the call's bucket signature (Note [Bucket
// signatures]), and finding it in the slot's bucket table; and, for
// comparison, building the whole ShapeBucket (what explain and the tuner do).
void BM_BucketSignatureOfCall(benchmark::State& state) {
  DispatchFixture& f = Tuned();
  const sy::core::Tensor* in[] = {&f.a, &f.b};
  sy::core::BoundCall bound;
  if (!sy::core::BindCall(*f.add.def(), in, {}, {}, bound).ok()) Die("bind");
  for (auto _ : state) {
    benchmark::DoNotOptimize(bound.tensors.data());
    uint64_t signature = sy::core::BucketSignatureOf(bound.metas.data(), bound.tensors.data(),
                                                     bound.tensors.size());
    benchmark::DoNotOptimize(signature);
  }
}
void BM_ShapeBucketOfCall(benchmark::State& state) {
  DispatchFixture& f = Tuned();
  const sy::core::Tensor* in[] = {&f.a, &f.b};
  sy::core::BoundCall bound;
  if (!sy::core::BindCall(*f.add.def(), in, {}, {}, bound).ok()) Die("bind");
  for (auto _ : state) {
    sy::core::ShapeBucket bucket = bound.bucket();
    benchmark::DoNotOptimize(bucket);
  }
}
void BM_BucketTableFind(benchmark::State& state) {
  DispatchFixture& f = Tuned();
  const sy::core::Tensor* in[] = {&f.a, &f.b};
  sy::core::BoundCall bound;
  if (!sy::core::BindCall(*f.add.def(), in, {}, {}, bound).ok()) Die("bind");
  const sy::core::DispatchSlot* slot = f.add.def()->dispatch()->Find(bound.key());
  const sy::core::BucketTable* table = slot->bucket_table();
  uint64_t signature = bound.bucket().Signature();
  for (auto _ : state) {
    benchmark::DoNotOptimize(signature);
    benchmark::DoNotOptimize(table->Find(signature));
  }
}
BENCHMARK(BM_BucketSignatureOfCall);
BENCHMARK(BM_ShapeBucketOfCall);
BENCHMARK(BM_BucketTableFind);

}  // namespace

int main(int argc, char** argv) {
  bool grid = true, dispatch = true;
  int64_t max_matmul = 4096;
  std::set<std::string> ops;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--grid-only") {
      dispatch = false;
    } else if (arg == "--dispatch-only") {
      grid = false;
    } else if (arg.rfind("--max-matmul=", 0) == 0) {
      max_matmul = std::stoll(arg.substr(13));
    } else if (arg.rfind("--ops=", 0) == 0) {
      for (absl::string_view op : absl::StrSplit(arg.substr(6), ',')) ops.emplace(op);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (grid) RunGrid(max_matmul, ops);
  if (dispatch) benchmark::RunSpecifiedBenchmarks();
  return 0;
}
