// bench_autotune: the autotuner on cpu with the cpu and onednn plugins, in
// one run (docs/performance.md, "Autotuning"), over the public API only
// (switchyard.hpp):
//
// 1. The grid: add, gelu, softmax, layer_norm (1 element … 16 M), matmul
//    (8 … 4096 square) and conv2d (small … 16 M-element inputs), f32. onednn
//    runs with min_elements=1 and min_matmul_flops=1, so it never declines
//    and both plugins are candidates everywhere. For each key: a cold tune
//    (sy_op_tune into an empty cache — a fresh SWITCHYARD_CACHE_DIR — with
//    the tuner's default budget), then an exhaustive re-measurement of every
//    candidate that passed the tuner's check (exhaustive.h: by name through
//    the public call path, at least 9 rounds and 1 s, no early stop). The
//    table gives the tuned choice's time over the best candidate's (target:
//    within 5 % in >= 95 % of keys, never above 1.25×), the static choice's
//    (what runs untuned: the first candidate in the fixed order) over the
//    best, and the cold tuning time.
// 2. Dispatch overhead (Google Benchmark): sy_op_call_out of a 16-element
//    f32 add whose slot has one kernel (no bucket table is read: Untuned),
//    the same with onednn loaded and the cpu kernel pinned (no table read
//    either: PinnedWithOnednn), and through a slot with a tuned verdict for
//    its bucket naming the same cpu kernel (Tuned): Tuned −
//    PinnedWithOnednn is what the verdict's lookup costs. The lookup's
//    parts (the bucket signature, the table find) have no public face; they
//    are in bench_core_calls (tests/dispatcher/bench), which sees the core.
//
//   bench_autotune                          both parts
//   bench_autotune --grid-only [--max-matmul=1024] [--ops=matmul,add]
//   bench_autotune --dispatch-only --benchmark_repetitions=10
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "../bench_util.h"
#include "exhaustive.h"
#include "nlohmann/json.hpp"
#include "switchyard/switchyard.hpp"

namespace {

using nlohmann::json;
using sy::bench::Die;
using sy::bench::Must;

const std::vector<std::string> kNoDeclines = {"onednn.min_elements=1",
                                              "onednn.min_matmul_flops=1"};

// ---- The grid ----------------------------------------------------------------

// One key: an op, its inputs' shapes (empty: an omitted optional tensor)
// and its leading attributes (ints or int lists), owned here because
// sy::Attr borrows its lists.
struct Case {
  std::string op;
  std::vector<std::vector<int64_t>> inputs;
  std::vector<std::vector<int64_t>> lists;  // list attributes
  std::vector<int64_t> ints;                // int attributes, after the lists
  bool omit_last = false;                   // the last input is None

  std::vector<sy::Attr> Attrs() const {
    std::vector<sy::Attr> attrs;
    for (const std::vector<int64_t>& list : lists) attrs.emplace_back(list);
    for (int64_t i : ints) attrs.emplace_back(i);
    return attrs;
  }
  std::string Describe() const {
    std::string text = op;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (omit_last && i + 1 == inputs.size()) {
        text += " None";
        continue;
      }
      text += " f32[";
      for (size_t d = 0; d < inputs[i].size(); ++d) {
        text += (d ? ", " : "") + std::to_string(inputs[i][d]);
      }
      text += "]";
    }
    return text;
  }
};

std::vector<Case> Grid(int64_t max_matmul, const std::set<std::string>& ops) {
  std::vector<Case> cases;
  auto add = [&](Case c) {
    if (ops.empty() || ops.count(c.op)) cases.push_back(std::move(c));
  };
  using Shapes = std::vector<std::vector<int64_t>>;
  auto make = [](std::string op, Shapes inputs, Shapes lists = {},
                 std::vector<int64_t> ints = {}, bool omit_last = false) {
    Case c;
    c.op = std::move(op);
    c.inputs = std::move(inputs);
    c.lists = std::move(lists);
    c.ints = std::move(ints);
    c.omit_last = omit_last;
    return c;
  };
  for (int64_t n : {1, 16, 256, 4096, 65536, 1 << 20, 1 << 24}) {
    add(make("add.Tensor", {{n}, {n}}));
    add(make("gelu", {{n}}));
  }
  for (int64_t n : {1, 4, 16, 64, 256, 1024, 4096}) {  // n×n: 1 … 16 M
    add(make("softmax", {{n, n}}, {}, {-1}));
    add(make("layer_norm", {{n, n}, {n}, {n}}, {{n}}));
  }
  for (int64_t n = 8; n <= max_matmul; n *= 2) add(make("matmul", {{n, n}, {n, n}}));
  // conv2d (N, C, H=W, K, kernel): inputs up to 16 M elements, no bias.
  struct Conv { int64_t n, c, h, k, r; };
  for (Conv v : {Conv{1, 1, 4, 1, 3}, Conv{1, 3, 32, 16, 3}, Conv{1, 16, 32, 16, 3},
                 Conv{1, 64, 56, 64, 3}, Conv{1, 256, 14, 256, 3}, Conv{4, 64, 56, 64, 1},
                 Conv{16, 64, 128, 64, 3}}) {
    add(make("conv2d", {{v.n, v.c, v.h, v.h}, {v.k, v.c, v.r, v.r}, {}},
             {{1, 1}, {v.r / 2, v.r / 2}}, {}, /*omit_last=*/true));
  }
  return cases;
}

std::string Plugin(const std::string& label) { return label.substr(0, label.find("::")); }

struct Row {
  std::string op, shape, candidates, tuned, best, statik, error;
  double tuned_ratio = 0, static_ratio = 0, tune_ms = 0;
  bool ok = false;
};

Row RunCase(const sy::Context& context, const sy::Device& cpu, const Case& c, uint32_t seed) {
  Row row;
  row.op = c.op;
  row.shape = c.Describe();
  const sy::Op op = Must(context.op(c.op), c.op);
  std::vector<sy::Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    inputs.push_back(c.omit_last && i + 1 == c.inputs.size()
                         ? sy::Tensor()
                         : sy::bench::RandomF32(cpu, c.inputs[i], seed + i));
  }
  const std::vector<sy::Attr> attrs = c.Attrs();
  sy::Result<std::string> text = op.tune(inputs, attrs);
  if (!text.ok()) {
    row.error = text.status().message();
    return row;
  }
  const json report = json::parse(*text);
  row.tune_ms = report.value("elapsed_ms", 0.0);
  const std::string tuned_label = sy::bench::WinnerLabel(report);
  std::vector<sy::bench::Candidate> timed = sy::bench::PassedCandidates(op, report);
  if (timed.empty()) {
    row.error = "no candidate passed the check";
    return row;
  }
  sy::bench::Exhaustive(op, cpu, inputs, attrs, timed);
  double best = 1e300, tuned_ns = 0;
  std::vector<std::string> names;
  for (const sy::bench::Candidate& t : timed) {
    const double median = t.Median();
    names.push_back(Plugin(t.label));
    if (median < best) {
      best = median;
      row.best = Plugin(t.label);
    }
    if (t.label == tuned_label) tuned_ns = median;
  }
  row.statik = Plugin(timed[0].label);
  row.candidates = names[0];
  for (size_t i = 1; i < names.size(); ++i) row.candidates += "+" + names[i];
  row.tuned = Plugin(tuned_label);
  row.tuned_ratio = tuned_ns / best;
  row.static_ratio = timed[0].Median() / best;
  row.ok = tuned_ns > 0;
  return row;
}

void RunGrid(int64_t max_matmul, const std::set<std::string>& ops) {
  const std::vector<Case> cases = Grid(max_matmul, ops);
  const sy::Context context = sy::bench::ContextWith({"cpu", "onednn"}, kNoDeclines);
  const sy::Device cpu = Must(context.device("cpu"), "cpu device");
  std::fprintf(stderr, "bench_autotune: %zu keys; cold tune, then exhaustive re-measure\n",
               cases.size());
  std::vector<Row> rows;
  for (size_t i = 0; i < cases.size(); ++i) {
    Row row = RunCase(context, cpu, cases[i], static_cast<uint32_t>(17 * i + 1));
    if (row.ok) {
      std::fprintf(stderr, "  [%zu/%zu] %s: tuned %s %.3fx, static %s %.3fx, tune %.1f ms\n",
                   i + 1, cases.size(), row.shape.c_str(), row.tuned.c_str(),
                   row.tuned_ratio, row.statik.c_str(), row.static_ratio, row.tune_ms);
    } else {
      std::fprintf(stderr, "  [%zu/%zu] %s: %s\n", i + 1, cases.size(), row.shape.c_str(),
                   row.error.c_str());
    }
    rows.push_back(std::move(row));
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
  sy::Context context;
  sy::Op add;
  std::vector<sy::Tensor> inputs, outputs;

  void Init(Setup setup) {
    // Tuned: onednn at its default thresholds declines a 16-element add, so
    // the tuner's verdict for the bucket names the cpu plugin's kernel — the
    // call runs the same kernel as Untuned, through the bucket table.
    // Pinned: the cpu kernel pinned, which never declines, so no bucket
    // table is read — onednn loaded, no lookup.
    context = setup == Setup::kCpuAlone ? sy::bench::ContextWith({"cpu"})
              : setup == Setup::kTuned  ? sy::bench::ContextWith({"cpu", "onednn"})
                                        : sy::bench::ContextWith({"cpu", "onednn"}, kNoDeclines);
    const sy::Device cpu = Must(context.device("cpu"), "cpu device");
    add = Must(context.op("add.Tensor"), "add.Tensor");
    inputs = {sy::bench::RandomF32(cpu, {16}, 1), sy::bench::RandomF32(cpu, {16}, 2)};
    outputs = {sy::bench::EmptyF32(cpu, {16})};
    const std::string cpu_add = CpuAddName();
    if (setup == Setup::kPinned) Must(add.pin("cpu", cpu_add), "pin " + cpu_add);
    if (setup != Setup::kTuned) return;
    const json report = json::parse(Must(add.tune(inputs), "tune"));
    const std::string how = Must(add.explain(inputs), "explain");
    if (report["winner"]["kernel"] != cpu_add || how.find("(autotuned)") == std::string::npos) {
      Die("the tuned setup", sy::Status(SY_STATUS_INTERNAL,
                                        "expected a verdict naming " + cpu_add + "; got " +
                                            report.dump() + "; explain: " + how));
    }
  }
  std::string CpuAddName() const {
    for (const sy::KernelInfo& k : Must(add.kernels(), "kernels")) {
      if (k.plugin == "cpu" && k.dtypes == std::vector<sy_dtype_t>{SY_DTYPE_F32, SY_DTYPE_F32}) {
        return k.name;
      }
    }
    Die("add.Tensor", sy::Status(SY_STATUS_NOT_FOUND, "no cpu kernel for f32"));
  }
};

DispatchFixture& Fixture(Setup setup) {
  static DispatchFixture* fixtures[3] = {};
  DispatchFixture*& f = fixtures[static_cast<int>(setup)];
  if (f == nullptr) {
    f = new DispatchFixture;  // lives as long as the process
    f->Init(setup);
  }
  return *f;
}

void RunCallOut(benchmark::State& state, DispatchFixture& f) {
  for (auto _ : state) {
    sy::Status s = f.add.call_out(f.inputs, {}, f.outputs);
    benchmark::DoNotOptimize(s);
  }
}
void BM_CallOut_Untuned(benchmark::State& state) {
  RunCallOut(state, Fixture(Setup::kCpuAlone));
}
void BM_CallOut_PinnedWithOnednn(benchmark::State& state) {
  RunCallOut(state, Fixture(Setup::kPinned));
}
void BM_CallOut_Tuned(benchmark::State& state) { RunCallOut(state, Fixture(Setup::kTuned)); }
BENCHMARK(BM_CallOut_Untuned);
BENCHMARK(BM_CallOut_PinnedWithOnednn);
BENCHMARK(BM_CallOut_Tuned);

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
      std::string list = arg.substr(6);
      for (size_t start = 0; start <= list.size();) {
        const size_t comma = std::min(list.find(',', start), list.size());
        ops.insert(list.substr(start, comma - start));
        start = comma + 1;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
  sy::bench::UseFreshCache("bench_autotune");
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  if (grid) RunGrid(max_matmul, ops);
  if (dispatch) benchmark::RunSpecifiedBenchmarks();
  return 0;
}
