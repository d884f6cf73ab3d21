// The tuner against the planted kernels (test_plugins/planted_plugin.cc):
// the fastest correct candidate wins, a fast wrong one never does, decliners
// are no candidates, variants are candidates, verdicts reach the dispatch
// table and the cache, modes behave, and a new plugin version does not
// reuse an old verdict.
#include <fstream>
#include <thread>

#include "autotune_test_util.h"
#include "autotune/cache_file.h"
#include "autotune/export_format.h"
#include "gmock/gmock.h"

namespace sy::autotune::testing {
namespace {

const CandidateResult& ResultFor(const TuneReport& r, const std::string& label) {
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    if (r.candidates[i].Label() == label) return r.measurement->results[i];
  }
  ADD_FAILURE() << "no candidate " << label;
  static CandidateResult none;
  return none;
}

TEST(Tuner, FastestCorrectCandidateWinsAndWrongOneNeverDoes) {
  auto runtime = MakeRuntime();
  ASSERT_NE(runtime, nullptr);
  // 1024 elements: the decliner declines (< 4096); slow_add is the static
  // choice; wrong_add is as fast as fast_add and comes before it in the tie
  // order, so only the reference check keeps it from winning.
  EXPECT_EQ(ExplainBinary(*runtime, "add", "fakedev", {32, 32}),
            "kernel planted::planted.slow_add (priority); declined: "
            "planted::planted.decliner_add: numel < 4096");
  absl::StatusOr<TuneReport> r = TuneBinary(*runtime, "add", "fakedev", {32, 32});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->measurement.has_value());
  EXPECT_EQ(r->verdict.kernel, "planted::planted.fast_add");
  EXPECT_EQ(r->verdict.variant, -1);
  EXPECT_TRUE(r->written);
  EXPECT_TRUE(r->applied);
  EXPECT_THAT(r->measurement->reference, ::testing::HasSubstr("cpu::"));

  const CandidateResult& wrong = ResultFor(*r, "planted::planted.wrong_add");
  EXPECT_EQ(wrong.outcome, Outcome::kWrong);
  EXPECT_THAT(wrong.note, ::testing::HasSubstr("where the reference has"));
  EXPECT_EQ(ResultFor(*r, "planted::planted.decliner_add").outcome, Outcome::kDeclined);
  EXPECT_EQ(ResultFor(*r, "planted::planted.decliner_add").note, "numel < 4096");
  const CandidateResult& slow = ResultFor(*r, "planted::planted.slow_add");
  const CandidateResult& fast = ResultFor(*r, "planted::planted.fast_add");
  EXPECT_EQ(fast.outcome, Outcome::kMeasured);
  EXPECT_GT(slow.median_ns, 5 * fast.median_ns);

  // The verdict is in the dispatch table for this bucket ([32, 32] and
  // [25, 30] share it) and nowhere else.
  EXPECT_EQ(ExplainBinary(*runtime, "add", "fakedev", {25, 30}),
            "kernel planted::planted.fast_add (autotuned)");
  EXPECT_EQ(ExplainBinary(*runtime, "add", "fakedev", {3}),
            "kernel planted::planted.slow_add (priority); declined: "
            "planted::planted.decliner_add: numel < 4096");
  // And calls compute the right thing through it.
  core::Tensor a = F32(*runtime, "fakedev", {32, 32}, 7);
  core::Tensor b = F32(*runtime, "fakedev", {32, 32}, 8);
  std::vector<core::Tensor> out = runtime->Call(runtime->FindOp("add").value(), {a, b}).value();
  std::vector<float> got = Read(*runtime, out[0]);
  std::vector<float> x = Read(*runtime, a), y = Read(*runtime, b);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], x[i] + y[i]) << i;
}

TEST(Tuner, WrongCandidateNeverWinsEvenWhenItIsTheFastest) {
  // Above 4096 elements the decliner takes the call (8× slow), and the
  // wrong kernel is the fastest there together with fast_add.
  auto runtime = MakeRuntime();
  absl::StatusOr<TuneReport> r = TuneBinary(*runtime, "add", "fakedev", {128, 128});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict.kernel, "planted::planted.fast_add");
  EXPECT_EQ(ResultFor(*r, "planted::planted.wrong_add").outcome, Outcome::kWrong);
  EXPECT_NE(ResultFor(*r, "planted::planted.decliner_add").outcome, Outcome::kDeclined);
}

TEST(Tuner, VariantsAreCandidates) {
  auto runtime = MakeRuntime();
  absl::StatusOr<TuneReport> r = TuneBinary(*runtime, "mul", "fakedev", {16, 16});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->candidates.size(), 2u);
  EXPECT_EQ(r->candidates[0].Label(), "planted::planted.tiled_mul [slow]");
  EXPECT_EQ(r->verdict.kernel, "planted::planted.tiled_mul");
  EXPECT_EQ(r->verdict.variant, 1);
  EXPECT_EQ(r->verdict.variant_name, "fast");
  EXPECT_EQ(ExplainBinary(*runtime, "mul", "fakedev", {16, 16}),
            "kernel planted::planted.tiled_mul variant fast (autotuned)");
}

TEST(Tuner, NothingToTuneIsAnError) {
  auto runtime = MakeRuntime();
  // fakedev has no sub.Tensor kernel.
  core::Tensor a = F32(*runtime, "fakedev", {4}, 1);
  std::vector<const core::Tensor*> inputs = {&a, &a};
  absl::StatusOr<TuneReport> r =
      TunerOf(*runtime).TuneCall(runtime->FindOp("sub").value(), ArgsOf(inputs));
  EXPECT_TRUE(absl::IsNotFound(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              ::testing::HasSubstr("nothing to tune: sub.Tensor has no kernel for these "
                                   "dtypes on fakedev:0"));
}

TEST(Tuner, ModeOnMeasuresTheFirstCallOfABucket) {
  TempDir dir;
  RuntimeSpec spec;
  spec.mode = core::AutotuneMode::kOn;
  spec.cache_dir = dir.path();
  auto runtime = MakeRuntime(spec);
  ASSERT_EQ(runtime->autotune_mode(), core::AutotuneMode::kOn);
  core::Tensor a = F32(*runtime, "fakedev", {32, 32}, 1);
  core::Tensor b = F32(*runtime, "fakedev", {32, 32}, 2);
  ASSERT_TRUE(runtime->Call(runtime->FindOp("add").value(), {a, b}).ok());
  EXPECT_EQ(ExplainBinary(*runtime, "add", "fakedev", {32, 32}),
            "kernel planted::planted.fast_add (autotuned)");
  absl::StatusOr<std::vector<Verdict>> all = TunerOf(*runtime).cache().List("");
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].source, "measured");
  EXPECT_TRUE(std::filesystem::exists(dir.File(kCacheFileName)));

  // Back to cached: the verdict stays, new buckets are not measured.
  ASSERT_TRUE(runtime->SetAutotuneMode(core::AutotuneMode::kCached).ok());
  core::Tensor c = F32(*runtime, "fakedev", {3}, 3);
  ASSERT_TRUE(runtime->Call(runtime->FindOp("add").value(), {c, c}).ok());
  EXPECT_EQ(TunerOf(*runtime).cache().List("")->size(), 1u);
  EXPECT_EQ(ExplainBinary(*runtime, "add", "fakedev", {32, 32}),
            "kernel planted::planted.fast_add (autotuned)");
  // Off: no verdicts at all.
  ASSERT_TRUE(runtime->SetAutotuneMode(core::AutotuneMode::kOff).ok());
  EXPECT_THAT(ExplainBinary(*runtime, "add", "fakedev", {32, 32}),
              ::testing::StartsWith("kernel planted::planted.slow_add (priority)"));
}

TEST(Tuner, OneThreadTunesABucketWhileOthersRunTheCurrentChoice) {
  RuntimeSpec spec;
  spec.mode = core::AutotuneMode::kOn;
  auto runtime = MakeRuntime(spec);
  core::OpHandle add = runtime->FindOp("add").value();
  core::Tensor a = F32(*runtime, "fakedev", {32, 32}, 1);
  core::Tensor b = F32(*runtime, "fakedev", {32, 32}, 2);
  const std::vector<float> x = Read(*runtime, a), y = Read(*runtime, b);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        absl::StatusOr<std::vector<core::Tensor>> out = runtime->Call(add, {a, b});
        if (!out.ok()) {
          ++wrong;
          continue;
        }
        std::vector<float> got(1024);
        if (!runtime->ToHost((*out)[0], got.data(), 4096).ok()) ++wrong;
        for (size_t k = 0; k < got.size(); ++k) {
          if (got[k] != x[k] + y[k]) {
            ++wrong;
            break;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(TunerOf(*runtime).cache().List("")->size(), 1u);
  EXPECT_EQ(ExplainBinary(*runtime, "add", "fakedev", {32, 32}),
            "kernel planted::planted.fast_add (autotuned)");
}

TEST(Tuner, CachedModeFoldsStoredVerdictsAtCreation) {
  TempDir dir;
  RuntimeSpec spec;
  spec.cache_dir = dir.path();
  {
    auto first = MakeRuntime(spec);
    ASSERT_TRUE(TuneBinary(*first, "add", "fakedev", {32, 32}).ok());
    ASSERT_TRUE(TuneBinary(*first, "mul", "fakedev", {16, 16}).ok());
  }
  auto second = MakeRuntime(spec);
  EXPECT_EQ(TunerOf(*second).verdicts_applied(), 2u);
  EXPECT_EQ(ExplainBinary(*second, "add", "fakedev", {32, 32}),
            "kernel planted::planted.fast_add (autotuned)");
  // A repeated TuneCall reads the cache instead of measuring.
  absl::StatusOr<TuneReport> again = TuneBinary(*second, "add", "fakedev", {32, 32});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->measurement.has_value());
  EXPECT_EQ(again->verdict.kernel, "planted::planted.fast_add");

  spec.mode = core::AutotuneMode::kOff;
  auto off = MakeRuntime(spec);
  EXPECT_EQ(TunerOf(*off).verdicts_applied(), 0u);
  EXPECT_THAT(ExplainBinary(*off, "add", "fakedev", {32, 32}),
              ::testing::StartsWith("kernel planted::planted.slow_add (priority)"));
}

TEST(Tuner, ANewPluginVersionDoesNotReuseOldVerdicts) {
  TempDir dir;
  RuntimeSpec v1;
  v1.cache_dir = dir.path();
  {
    auto runtime = MakeRuntime(v1);
    ASSERT_TRUE(TuneBinary(*runtime, "add", "fakedev", {32, 32}).ok());
  }
  RuntimeSpec v2 = v1;
  v2.manifests = {CpuManifest(), PlantedManifest(2)};
  {
    auto runtime = MakeRuntime(v2);
    ASSERT_EQ(runtime->LoadRecords().back().plugin_version, "2.0.0");
    EXPECT_EQ(TunerOf(*runtime).verdicts_applied(), 0u);
    EXPECT_EQ(TunerOf(*runtime).verdicts_stale(), 1u);
    EXPECT_THAT(ExplainBinary(*runtime, "add", "fakedev", {32, 32}),
                ::testing::StartsWith("kernel planted::planted.slow_add (priority)"));
    absl::StatusOr<TuneReport> r = TuneBinary(*runtime, "add", "fakedev", {32, 32});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->measurement.has_value()) << "measured anew, not read from 1.0.0's";
    EXPECT_THAT(r->key.plugins, ::testing::HasSubstr("planted 2.0.0 abi 1.1"));
    EXPECT_EQ(TunerOf(*runtime).cache().List("")->size(), 2u);
  }
  auto back = MakeRuntime(v1);
  EXPECT_EQ(TunerOf(*back).verdicts_applied(), 1u);
}

TEST(Tuner, LoadingAPluginRefoldsTheVerdicts) {
  RuntimeSpec spec;
  spec.manifests = {CpuManifest()};
  auto runtime = MakeRuntime(spec);
  ASSERT_TRUE(runtime->LoadPlugin(PlantedManifest(1)).ok());
  ASSERT_TRUE(TuneBinary(*runtime, "add", "fakedev", {32, 32}).ok());
  EXPECT_EQ(ExplainBinary(*runtime, "add", "fakedev", {32, 32}),
            "kernel planted::planted.fast_add (autotuned)");
}

TEST(Tuner, ExportAndImport) {
  TempDir dir, other;
  RuntimeSpec spec;
  spec.cache_dir = dir.path();
  auto runtime = MakeRuntime(spec);
  ASSERT_TRUE(TuneBinary(*runtime, "add", "fakedev", {32, 32}).ok());
  ASSERT_TRUE(TuneBinary(*runtime, "mul", "fakedev", {16, 16}).ok());
  const std::string file = dir.File("verdicts.json");
  absl::StatusOr<size_t> exported = TunerOf(*runtime).Export(file);
  ASSERT_TRUE(exported.ok()) << exported.status();
  EXPECT_EQ(*exported, 2u);

  RuntimeSpec fresh;
  fresh.cache_dir = other.path();
  auto importer = MakeRuntime(fresh);
  absl::StatusOr<ImportRecord> record = TunerOf(*importer).Import(file);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->imported, 2);
  EXPECT_EQ(record->ignored, 0);
  EXPECT_EQ(ExplainBinary(*importer, "mul", "fakedev", {16, 16}),
            "kernel planted::planted.tiled_mul variant fast (autotuned)");
  // Importing again changes nothing.
  record = TunerOf(*importer).Import(file);
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->imported, 0);
  EXPECT_EQ(record->present, 2);
  // The cache keeps a record of each import.
  absl::StatusOr<CacheSummary> summary = TunerOf(*importer).Summary();
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->verdicts, 2);
  ASSERT_EQ(summary->imports.size(), 2u);
  EXPECT_EQ(summary->imports[0].present, 2);
}

TEST(Tuner, ImportIgnoresWhatDoesNotApplyWithAReason) {
  TempDir dir;
  RuntimeSpec spec;
  spec.cache_dir = dir.path();
  auto runtime = MakeRuntime(spec);
  ASSERT_TRUE(TuneBinary(*runtime, "add", "fakedev", {32, 32}).ok());
  Verdict v = TunerOf(*runtime).cache().List("")->front();
  std::vector<Verdict> entries;
  Verdict other_device = v;
  other_device.key.fingerprint = "cuda|NVIDIA H100|NVIDIA|CUDA driver 12.4|cc 9.0|132 units";
  entries.push_back(other_device);
  Verdict other_plugins = v;
  other_plugins.key.plugins = "cpu 0.1.0 abi 1.1 options -, planted 0.9.0 abi 1.1 options -";
  entries.push_back(other_plugins);
  Verdict other_kernel = v;
  other_kernel.kernel = "planted::planted.nonexistent";
  entries.push_back(other_kernel);
  const std::string file = dir.File("foreign.json");
  {
    std::ofstream out(file);
    out << SerializeExport(entries);
  }
  absl::StatusOr<ImportRecord> record = TunerOf(*runtime).Import(file);
  ASSERT_TRUE(record.ok()) << record.status();
  EXPECT_EQ(record->imported, 0);
  EXPECT_EQ(record->ignored, 3);
  ASSERT_EQ(record->reasons.size(), 3u);
  EXPECT_THAT(record->reasons[0], ::testing::HasSubstr("measured on another device (cuda|NVIDIA H100"));
  EXPECT_THAT(record->reasons[1], ::testing::HasSubstr("plugins differ (file: cpu 0.1.0 abi 1.1 options -, planted 0.9.0"));
  EXPECT_THAT(record->reasons[2], ::testing::HasSubstr("names planted::planted.nonexistent variant -1, which is not a candidate here"));

  EXPECT_THAT(TunerOf(*runtime).Import(dir.File("missing.json")).status().message(),
              ::testing::HasSubstr("cannot read"));
}

}  // namespace
}  // namespace sy::autotune::testing
