// The C API's autotuning (switchyard.h, "Autotuning"; docs/autotune.md):
// modes by name, sy_op_tune's report, case files, export and import, what
// the cache holds — over the "planted" test plugin (tests/autotune/
// test_plugins), whose add.Tensor kernels on fakedev have known speeds and
// one wrong answer, so the report's verdict is known in advance. Every test
// has a cache folder of its own (SWITCHYARD_CACHE_DIR).
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "c_api_test_util.h"
#include "gtest/gtest.h"
#include "../temp_dir.h"
#include "nlohmann/json.hpp"
#include "switchyard/switchyard.h"
#include "switchyard/switchyard.hpp"

namespace sy_test {
namespace {

using nlohmann::json;

std::string PlantedManifest() {
  return std::string(SWITCHYARD_AUTOTUNE_TEST_PLUGIN_DIR) + "/v1/planted.json";
}

using ::sy::testing::TempDir;

class AutotuneApi : public ::testing::Test {
 protected:
  void SetUp() override {
    unsetenv("SWITCHYARD_AUTOTUNE");
    UseCache(cache_);
  }
  void TearDown() override {
    for (sy_tensor_t t : tensors_) sy_tensor_release(t);
    for (sy_context_t c : contexts_) sy_context_destroy(c);
    unsetenv("SWITCHYARD_CACHE_DIR");
  }
  // Contexts made after this use `dir`'s cache.
  static void UseCache(const TempDir& dir) {
    setenv("SWITCHYARD_CACHE_DIR", dir.path().c_str(), 1);
  }
  sy_context_t Context(std::vector<std::string> paths = {CpuManifest(), PlantedManifest()}) {
    sy_context_t c = MakeContext(std::move(paths));
    contexts_.push_back(c);
    return c;
  }
  // Random f32 values on `device` ("fakedev:0", "cpu:0").
  sy_tensor_t Random(sy_context_t context, const char* device, std::vector<int64_t> shape,
                     uint32_t seed, std::vector<float>* values = nullptr) {
    sy_device_handle_t d = nullptr;
    EXPECT_EQ(sy_device_find(context, device, &d), SY_STATUS_OK) << sy_last_error_message();
    size_t n = 1;
    for (int64_t e : shape) n *= static_cast<size_t>(e);
    std::vector<float> data = RandomFloats(n, seed);
    if (values != nullptr) *values = data;
    sy_tensor_t t = F32(d, shape, data);
    tensors_.push_back(t);
    return t;
  }
  // sy_op_tune of op(a, b); the report, or null JSON with a failure.
  json Tune(sy_op_t op, sy_tensor_t a, sy_tensor_t b, int32_t flags = 0) {
    const sy_tensor_t inputs[] = {a, b};
    sy_op_call_args_t args;
    sy_op_call_args_init(&args);
    args.op = op;
    args.inputs = inputs;
    args.num_inputs = 2;
    const char* text = nullptr;
    if (sy_op_tune(&args, flags, &text) != SY_STATUS_OK) {
      ADD_FAILURE() << sy_last_error_message();
      return json();
    }
    return json::parse(text);
  }
  std::string Explain(sy_op_t op, sy_tensor_t a, sy_tensor_t b) {
    const sy_tensor_t inputs[] = {a, b};
    const char* text = nullptr;
    EXPECT_EQ(sy_op_explain(op, inputs, 2, nullptr, 0, &text), SY_STATUS_OK)
        << sy_last_error_message();
    return text != nullptr ? text : "";
  }
  static const json* CandidateNamed(const json& report, const std::string& name) {
    for (const json& c : report["candidates"]) {
      if (c["candidate"] == name) return &c;
    }
    return nullptr;
  }

  TempDir cache_;
  std::vector<sy_context_t> contexts_;
  std::vector<sy_tensor_t> tensors_;
};

TEST_F(AutotuneApi, ModesByName) {
  sy_context_t c = Context();
  const char* mode = nullptr;
  ASSERT_EQ(sy_context_autotune(c, &mode), SY_STATUS_OK) << sy_last_error_message();
  EXPECT_STREQ(mode, "cached");
  ASSERT_EQ(sy_context_set_autotune(c, "ON"), SY_STATUS_OK) << sy_last_error_message();
  ASSERT_EQ(sy_context_autotune(c, &mode), SY_STATUS_OK);
  EXPECT_STREQ(mode, "on");
  ASSERT_EQ(sy_context_set_autotune(c, "off"), SY_STATUS_OK);
  ASSERT_EQ(sy_context_autotune(c, &mode), SY_STATUS_OK);
  EXPECT_STREQ(mode, "off");

  EXPECT_EQ(sy_context_set_autotune(c, "fast"), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(),
               "sy_context_set_autotune: unknown autotune mode 'fast'; use off, cached or on");
  EXPECT_EQ(sy_context_set_autotune(c, nullptr), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(), "sy_context_set_autotune: mode is NULL");
  ASSERT_EQ(sy_context_autotune(c, &mode), SY_STATUS_OK);
  EXPECT_STREQ(mode, "off");  // a bad name changes nothing
}

TEST_F(AutotuneApi, ReportNamesEveryCandidateAndTheWinner) {
  sy_context_t c = Context();
  sy_op_t add = Op(c, "add");
  std::vector<float> x, y;
  sy_tensor_t a = Random(c, "fakedev:0", {128, 128}, 11, &x);
  sy_tensor_t b = Random(c, "fakedev:0", {128, 128}, 12, &y);

  json report = Tune(add, a, b);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["op"], "add.Tensor");
  EXPECT_EQ(report["device"], "fakedev:0");
  EXPECT_EQ(report["measured"], true);
  EXPECT_EQ(report["written"], true);
  EXPECT_EQ(report["applied"], true);
  EXPECT_EQ(report["source"], "measured");
  EXPECT_EQ(report["winner"]["kernel"], "planted::planted.fast_add");
  ASSERT_EQ(report["candidates"].size(), 4u) << report.dump(2);
  const json* wrong = CandidateNamed(report, "planted::planted.wrong_add");
  ASSERT_NE(wrong, nullptr);
  EXPECT_EQ((*wrong)["outcome"], "wrong");
  const json* fast = CandidateNamed(report, "planted::planted.fast_add");
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ((*fast)["outcome"], "measured");
  EXPECT_GT((*fast)["median_ns"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(report["winner"]["time_ns"].get<double>(),
                   (*fast)["median_ns"].get<double>());

  // Calls of the bucket run the winner, and compute a + b (checked in
  // float64 against the random inputs).
  EXPECT_EQ(Explain(add, a, b), "kernel planted::planted.fast_add (autotuned)");
  sy_tensor_t out = Call1(add, {a, b});
  tensors_.push_back(out);
  std::vector<float> got = ReadF32(out);
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = static_cast<double>(x[i]) + static_cast<double>(y[i]);
    ASSERT_LE(std::fabs(got[i] - want), 1e-6 * std::max(1.0, std::fabs(want))) << i;
  }

  // Again: the cache answers, with the stored measurement.
  json cached = Tune(add, a, b);
  EXPECT_EQ(cached["measured"], false);
  EXPECT_EQ(cached["winner"]["kernel"], "planted::planted.fast_add");
  EXPECT_EQ(cached["key_hash"], report["key_hash"]);
  EXPECT_EQ(cached["candidates"].size(), 4u);
  // Forced: measured again, but the cache keeps its first verdict.
  json forced = Tune(add, a, b, SY_TUNE_FORCE);
  EXPECT_EQ(forced["measured"], true);
  EXPECT_EQ(forced["written"], false);
  EXPECT_EQ(forced["note"], "the cache keeps its earlier verdict (first writer wins)");
}

TEST_F(AutotuneApi, BadTuneArguments) {
  sy_context_t c = Context();
  sy_op_t add = Op(c, "add");
  sy_tensor_t a = Random(c, "fakedev:0", {8}, 1);
  const sy_tensor_t inputs[] = {a, a};
  sy_op_call_args_t args;
  sy_op_call_args_init(&args);
  args.op = add;
  args.inputs = inputs;
  args.num_inputs = 2;
  const char* text = nullptr;
  EXPECT_EQ(sy_op_tune(&args, 4, &text), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(), "sy_op_tune: flags is 4; use 0 or SY_TUNE_FORCE (1)");
  EXPECT_EQ(sy_op_tune(&args, 0, nullptr), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(), "sy_op_tune: out_json is NULL");
  args.route = SY_ROUTE_DECOMPOSITION;
  EXPECT_EQ(sy_op_tune(&args, 0, &text), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(),
               "sy_op_tune: args->route is 2; sy_op_tune tunes the default resolution and "
               "takes SY_ROUTE_DEFAULT (0) only");
  args.route = SY_ROUTE_DEFAULT;
  args.op = Op(c, "sub");  // fakedev has no sub.Tensor kernel
  EXPECT_EQ(sy_op_tune(&args, 0, &text), SY_STATUS_NOT_FOUND);
  EXPECT_STREQ(sy_last_error_message(),
               "sy_op_tune: nothing to tune: sub.Tensor has no kernel for these dtypes on "
               "fakedev:0");
}

TEST_F(AutotuneApi, CaseFilesRunEveryCaseAndReportEach) {
  sy_context_t c = Context();
  const std::string cases = R"({"cases": [
      {"op": "add", "device": "fakedev",
       "inputs": [{"dtype": "f32", "shape": [64, 64]}, {"dtype": "f32", "shape": [64, 64]}]},
      {"op": "no_such_op", "inputs": [{"shape": [4]}]},
      {"op": "mul", "device": "fakedev",
       "inputs": [{"shape": [16, 16]}, {"shape": [16, 16], "layout": "transposed"}]}]})";
  std::vector<std::pair<int32_t, int32_t>> seen;
  auto progress = [](void* user, int32_t done, int32_t total, const char* row) {
    static_cast<std::vector<std::pair<int32_t, int32_t>>*>(user)->push_back({done, total});
    EXPECT_TRUE(json::parse(row).contains("case"));
  };
  const char* text = nullptr;
  ASSERT_EQ(sy_context_tune_cases(c, cases.c_str(), 0, progress, &seen, &text), SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(seen, (std::vector<std::pair<int32_t, int32_t>>{{1, 3}, {2, 3}, {3, 3}}));
  json rows = json::parse(text)["rows"];
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["case"], "add f32[64, 64] f32[64, 64] on fakedev");
  EXPECT_EQ(rows[0]["ok"], true);
  EXPECT_EQ(rows[0]["report"]["winner"]["kernel"], "planted::planted.fast_add");
  EXPECT_EQ(rows[1]["ok"], false);
  EXPECT_EQ(rows[1]["error"], "no op named 'no_such_op' (`switchyard ops` lists every op)");
  EXPECT_EQ(rows[2]["case"], "mul f32[16, 16] f32[16, 16]t on fakedev");
  EXPECT_EQ(rows[2]["report"]["winner"]["variant_name"], "fast");

  EXPECT_EQ(sy_context_tune_cases(c, "[1, 2]", 0, nullptr, nullptr, &text),
            SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(),
               "sy_context_tune_cases: tune cases: expected a JSON object {\"cases\": [...]} "
               "(see docs/autotune.md, \"switchyard tune\")");
  EXPECT_EQ(sy_context_tune_cases(c, R"({"cases": [{"op": "add", "inputs": [{"dtype": "f99",
            "shape": [1]}]}]})", 0, nullptr, nullptr, &text), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(),
               "sy_context_tune_cases: tune case 0: unknown dtype 'f99'; use f32 f64 f16 "
               "bf16 i32 i64 i8 u8 bool");
}

TEST_F(AutotuneApi, ExportImportAndWhatTheCacheHolds) {
  sy_context_t c = Context();
  sy_op_t add = Op(c, "add");
  sy_tensor_t a = Random(c, "fakedev:0", {32, 32}, 3);
  ASSERT_TRUE(Tune(add, a, a).is_object());
  const std::string file = cache_.File("verdicts.json");
  int64_t count = -1;
  ASSERT_EQ(sy_context_autotune_export(c, file.c_str(), 0, &count), SY_STATUS_OK)
      << sy_last_error_message();
  EXPECT_EQ(count, 1);

  // Another machine's cache (another folder): the import applies.
  TempDir other;
  UseCache(other);
  sy_context_t d = Context();
  sy_op_t add_d = Op(d, "add");
  sy_tensor_t a_d = Random(d, "fakedev:0", {32, 32}, 4);
  EXPECT_EQ(Explain(add_d, a_d, a_d).rfind("kernel planted::planted.slow_add (priority)", 0),
            0u);
  const char* text = nullptr;
  ASSERT_EQ(sy_context_autotune_import(d, file.c_str(), &text), SY_STATUS_OK)
      << sy_last_error_message();
  json record = json::parse(text);
  EXPECT_EQ(record["imported"], 1);
  EXPECT_EQ(record["ignored"], 0);
  EXPECT_EQ(Explain(add_d, a_d, a_d), "kernel planted::planted.fast_add (autotuned)");
  ASSERT_EQ(sy_context_autotune_import(d, file.c_str(), &text), SY_STATUS_OK);
  EXPECT_EQ(json::parse(text)["present"], 1);

  ASSERT_EQ(sy_context_autotune_info_json(d, &text), SY_STATUS_OK) << sy_last_error_message();
  json info = json::parse(text);
  EXPECT_EQ(info["mode"], "cached");
  EXPECT_EQ(info["path"], other.File("autotune-1.sqlite3"));
  EXPECT_EQ(info["verdicts"], 1);
  EXPECT_EQ(info["applied"], 1);
  ASSERT_EQ(info["entries"].size(), 1u);
  EXPECT_EQ(info["entries"][0]["kernel"], "planted::planted.fast_add");
  EXPECT_EQ(info["entries"][0]["device"], "fakedev");
  EXPECT_EQ(info["entries"][0]["source"], "imported from verdicts.json");
  ASSERT_EQ(info["imports"].size(), 2u);
  EXPECT_EQ(info["imports"][0]["file"], file);

  // A runtime without the planted plugin: nothing applies, each says why.
  TempDir third;
  UseCache(third);
  sy_context_t e = Context({CpuManifest()});
  ASSERT_EQ(sy_context_autotune_import(e, file.c_str(), &text), SY_STATUS_OK);
  record = json::parse(text);
  EXPECT_EQ(record["imported"], 0);
  EXPECT_EQ(record["ignored"], 1);
  ASSERT_EQ(record["reasons"].size(), 1u);

  // Files that are no export.
  EXPECT_EQ(sy_context_autotune_import(e, "/nonexistent/verdicts.json", &text),
            SY_STATUS_NOT_FOUND);
  EXPECT_STREQ(sy_last_error_message(),
               "sy_context_autotune_import: cannot read /nonexistent/verdicts.json: No such "
               "file or directory");
  const std::string garbage = third.File("garbage.json");
  std::ofstream(garbage) << "\x01\x02 not json";
  EXPECT_EQ(sy_context_autotune_import(e, garbage.c_str(), &text), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(sy_last_error_message())
                .rfind("sy_context_autotune_import: " + garbage + ": ", 0),
            0u)
      << sy_last_error_message();
  EXPECT_EQ(sy_context_autotune_export(e, file.c_str(), 2, &count), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(sy_last_error_message(),
               "sy_context_autotune_export: all_devices is 2; use 0 (this context's devices) "
               "or 1 (all)");
}

TEST_F(AutotuneApi, ThreadsTuningOneBucketAgreeAndTheCacheKeepsOneVerdict) {
  sy_context_t c = Context();
  sy_op_t add = Op(c, "add");
  constexpr int kThreads = 4;
  std::vector<sy_tensor_t> a(kThreads);
  for (int t = 0; t < kThreads; ++t) a[t] = Random(c, "fakedev:0", {48, 40}, 100 + t);
  std::vector<json> reports(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const sy_tensor_t inputs[] = {a[t], a[t]};
      sy_op_call_args_t args;
      sy_op_call_args_init(&args);
      args.op = add;
      args.inputs = inputs;
      args.num_inputs = 2;
      const char* text = nullptr;
      if (sy_op_tune(&args, 0, &text) == SY_STATUS_OK) reports[t] = json::parse(text);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const json& r : reports) {
    ASSERT_TRUE(r.is_object());
    EXPECT_EQ(r["winner"]["kernel"], "planted::planted.fast_add");
    EXPECT_EQ(r["key_hash"], reports[0]["key_hash"]);
  }
  const char* text = nullptr;
  ASSERT_EQ(sy_context_autotune_info_json(c, &text), SY_STATUS_OK);
  EXPECT_EQ(json::parse(text)["verdicts"], 1);
}

TEST_F(AutotuneApi, CppWrappers) {
  sy::Result<sy::Context> context = sy::Context::Create([] {
    sy::ContextOptions o;
    o.plugin_paths = {CpuManifest(), PlantedManifest()};
    o.use_environment = false;
    o.use_default_path = false;
    return o;
  }());
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  ASSERT_TRUE(context->set_autotune("on").ok());
  EXPECT_EQ(context->autotune().value(), "on");
  sy::Status bad = context->set_autotune("sometimes");
  EXPECT_EQ(bad.message(),
            "sy_context_set_autotune: unknown autotune mode 'sometimes'; use off, cached or on");
  sy::Op add = context->op("add").value();
  sy::Device fakedev = context->device("fakedev").value();
  std::vector<float> values = RandomFloats(256, 5);
  sy::Tensor a = sy::Tensor::FromVector<float>(fakedev, {16, 16}, values).value();
  sy::Result<std::string> report = add.tune({a, a});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(json::parse(*report)["winner"]["kernel"], "planted::planted.fast_add");
  int rows = 0;
  sy::Result<std::string> table = context->tune_cases(
      R"({"cases": [{"op": "add", "device": "fakedev", "inputs": [{"shape": [3]}, {"shape": [3]}]}]})",
      false, [&](int32_t, int32_t, const std::string&) { ++rows; });
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(rows, 1);
  EXPECT_EQ(json::parse(context->autotune_info_json().value())["verdicts"], 2);
  sy::Result<std::string> missing = context->autotune_import("/nonexistent.json");
  EXPECT_EQ(missing.status().code(), SY_STATUS_NOT_FOUND);
}

}  // namespace
}  // namespace sy_test
