// A lone composite's own kernel or the fused kernel of its parts, chosen
// through the autotuner (fusion/compile/own_or_fused.h, Note [Own kernel or
// fused, measured]): the modes, the stored verdict, either verdict taken
// from the cache, a damaged verdict ignored, and the values of every
// choice against float64.
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "autotune/tuning_key.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "../temp_dir.h"
#include "fusion_test_util.h"
#include "tuned_runtime.h"

namespace sy::fusion::testing {
namespace {

using ::sy::testing::TempDir;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kRows = 32, kCols = 1000;
constexpr char kOwn[] = "(not fused: its own kernel: decomposed, it would fuse with nothing";
constexpr char kFused[] = "softmax %0 runs as the fused kernel of its parts";

// softmax over the rows of x, in double.
std::vector<double> SoftmaxRows(const std::vector<double>& x) {
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < kRows; ++r) {
    const double* row = x.data() + r * kCols;
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < kCols; ++c) m = std::max(m, row[c]);
    for (int64_t c = 0; c < kCols; ++c) s += std::exp(row[c] - m);
    for (int64_t c = 0; c < kCols; ++c) y[r * kCols + c] = std::exp(row[c] - m) / s;
  }
  return y;
}

struct Compiled {
  std::string description;
  std::vector<double> values;
  std::vector<autotune::Verdict> verdicts;  // the cache's <own or fused> rows
};

// softmax(x) over [kRows, kCols] f32 captured, compiled with the autotune
// cache in `dir` and mode `mode`, and replayed; its values are checked
// against float64 here.
Compiled CompileSoftmax(const std::string& dir, core::AutotuneMode mode) {
  Compiled c;
  std::unique_ptr<Runtime> rt = TunedRuntime(dir, mode);
  if (rt == nullptr) return c;
  Device& cpu = *rt->state().devices.FindType("cpu")->device(0);
  const std::vector<double> x = RandomValues(kRows * kCols, 7, -6, 6);
  const std::vector<Tensor> inputs = {FromValues(*rt, cpu, SY_DTYPE_F32, {kRows, kCols}, x)};
  absl::StatusOr<Graph> graph = CaptureGraph(*rt, inputs, [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{Call(*rt, "softmax", {in[0]})};
  });
  EXPECT_TRUE(graph.ok()) << graph.status();
  if (!graph.ok()) return c;
  std::unique_ptr<Compiler> compiler = QuickTunedCompiler(*rt);
  absl::StatusOr<CompiledGraph> compiled = compiler->Compile(*graph);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return c;
  c.description = compiled->Describe();
  absl::StatusOr<std::vector<Tensor>> out = compiled->Launch(inputs);
  EXPECT_TRUE(out.ok()) << out.status();
  if (out.ok()) {
    c.values = Read(*rt, (*out)[0]);
    ExpectClose(c.values, SoftmaxRows(x), 1e-5, "softmax in mode " +
                std::string(core::AutotuneModeName(mode)));
  }
  auto* tuner = static_cast<autotune::Tuner*>(rt->tuner());
  absl::StatusOr<std::vector<autotune::Verdict>> rows = tuner->cache().List("");
  EXPECT_TRUE(rows.ok()) << rows.status();
  if (rows.ok()) {
    for (autotune::Verdict& v : *rows) {
      if (v.key.op == autotune::kOwnOrFusedOp) c.verdicts.push_back(std::move(v));
    }
  }
  return c;
}

// Stores `v` in a fresh cache in `dir`.
void Store(const std::string& dir, const autotune::Verdict& v) {
  std::unique_ptr<Runtime> rt = TunedRuntime(dir, core::AutotuneMode::kCached);
  ASSERT_NE(rt, nullptr);
  absl::StatusOr<autotune::TuningCache::Stored> stored =
      static_cast<autotune::Tuner*>(rt->tuner())->cache().Insert(v);
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_TRUE(stored->inserted);
}

TEST(OwnOrFused, OffKeepsTheRuleAndStoresNothing) {
  TempDir dir;
  const Compiled off = CompileSoftmax(dir.path(), core::AutotuneMode::kOff);
  EXPECT_THAT(off.description, HasSubstr(kOwn));
  EXPECT_THAT(off.description, Not(HasSubstr("measured")));
  EXPECT_TRUE(off.verdicts.empty());
  // cached, with nothing in the cache: the rule, nothing measured.
  const Compiled cached = CompileSoftmax(dir.path(), core::AutotuneMode::kCached);
  EXPECT_THAT(cached.description, HasSubstr(kOwn));
  EXPECT_THAT(cached.description, Not(HasSubstr("measured")));
  EXPECT_TRUE(cached.verdicts.empty());
}

TEST(OwnOrFused, OnMeasuresOnceStoresTheVerdictAndCachedTakesIt) {
  TempDir dir;
  const Compiled on = CompileSoftmax(dir.path(), core::AutotuneMode::kOn);
  ASSERT_EQ(on.verdicts.size(), 1u);
  const autotune::Verdict& v = on.verdicts[0];
  ASSERT_TRUE(v.variant == 0 || v.variant == 1) << v.variant;
  EXPECT_EQ(v.variant_name, v.variant == 0 ? "own kernel" : "fused kernel");
  EXPECT_EQ(v.source, "measured");
  EXPECT_THAT(v.kernel, HasSubstr("softmax: cpu::softmax."));
  EXPECT_THAT(v.key.plugins, HasSubstr("kernel cpu::softmax."));
  EXPECT_THAT(v.key.plugins, HasSubstr("; fused by cpu "));
  EXPECT_THAT(v.detail, HasSubstr("own kernel"));
  EXPECT_THAT(v.detail, HasSubstr("fused kernel"));
  if (v.variant == 0) {
    EXPECT_THAT(on.description, HasSubstr(std::string(kOwn)));
    EXPECT_THAT(on.description, HasSubstr("not slower than the fused kernel of its parts "
                                          "(measured: its own kernel cpu::softmax."));
  } else {
    EXPECT_THAT(on.description, HasSubstr(std::string(kFused) +
                                          ", faster than its own kernel (measured: its own "
                                          "kernel cpu::softmax."));
    EXPECT_THAT(on.description, Not(HasSubstr(kOwn)));
  }
  // Export leaves it out (its key is a kernel's IR: docs/autotune.md).
  {
    std::unique_ptr<Runtime> rt = TunedRuntime(dir.path(), core::AutotuneMode::kCached);
    ASSERT_NE(rt, nullptr);
    const std::string path = dir.path() + "/export.json";
    absl::StatusOr<size_t> exported =
        static_cast<autotune::Tuner*>(rt->tuner())->Export(path, /*all_devices=*/true);
    ASSERT_TRUE(exported.ok()) << exported.status();
    std::ifstream in(path);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_THAT(text, Not(HasSubstr(autotune::kOwnOrFusedOp)));
  }
  // The second compile takes the stored verdict, measures nothing and
  // stores nothing new.
  for (core::AutotuneMode mode : {core::AutotuneMode::kOn, core::AutotuneMode::kCached}) {
    const Compiled again = CompileSoftmax(dir.path(), mode);
    EXPECT_THAT(again.description, HasSubstr("(autotune cache)"));
    EXPECT_THAT(again.description, Not(HasSubstr("measured")));
    EXPECT_THAT(again.description, HasSubstr(v.variant == 1 ? kFused : kOwn));
    ASSERT_EQ(again.verdicts.size(), 1u);
    EXPECT_EQ(again.verdicts[0], v);
  }
}

// Either verdict, planted in a fresh cache under the measured key, decides;
// a damaged one (an index out of range, or a name that is not the index's)
// is ignored.
TEST(OwnOrFused, EitherStoredVerdictDecidesAndADamagedOneIsIgnored) {
  TempDir measured_dir;
  const Compiled on = CompileSoftmax(measured_dir.path(), core::AutotuneMode::kOn);
  ASSERT_EQ(on.verdicts.size(), 1u);
  for (int32_t variant : {0, 1}) {
    TempDir dir;
    autotune::Verdict v = on.verdicts[0];
    v.variant = variant;
    v.variant_name = variant == 0 ? "own kernel" : "fused kernel";
    Store(dir.path(), v);
    const Compiled cached = CompileSoftmax(dir.path(), core::AutotuneMode::kCached);
    EXPECT_THAT(cached.description, HasSubstr("(autotune cache)"));
    EXPECT_THAT(cached.description, HasSubstr(variant == 1 ? kFused : kOwn));
    EXPECT_THAT(cached.description, Not(HasSubstr(variant == 1 ? kOwn : kFused)));
    ExpectClose(cached.values, on.values, 1e-6, "planted verdict " + v.variant_name);
  }
  for (auto [variant, name] : {std::pair<int32_t, const char*>{7, "fused kernel"},
                               std::pair<int32_t, const char*>{1, "own kernel"}}) {
    TempDir dir;
    autotune::Verdict v = on.verdicts[0];
    v.variant = variant;
    v.variant_name = name;
    Store(dir.path(), v);
    const Compiled cached = CompileSoftmax(dir.path(), core::AutotuneMode::kCached);
    EXPECT_THAT(cached.description, HasSubstr(kOwn));
    EXPECT_THAT(cached.description, Not(HasSubstr("autotune cache")));
  }
}

}  // namespace
}  // namespace sy::fusion::testing
