// Plugin ABI 1.1 as the host sees it (test_plugins/v11_plugin.cc): kernels
// that decline and the bucket cache that remembers it, plugin options from
// every source, kernel workspaces, the refusals (a 1.0 plugin that
// declines, a decline without the flag, a kernel name over the limit), a
// 1.0 plugin (the frozen template) loading beside 1.1 ones, and
// registration of 100k kernels.
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dispatcher/memory/device.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::testing {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<Runtime> V11Runtime(std::vector<std::string> plugin_options = {}) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {CpuManifest(), TestPlugin("test_v11")};
  options.loader.plugin_options = std::move(plugin_options);
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return runtime.ok() ? *std::move(runtime) : nullptr;
}

const LoadRecord* Record(const std::vector<LoadRecord>& records,
                         const std::string& name) {
  for (const LoadRecord& r : records) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

class V11Test : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = V11Runtime();
    ASSERT_NE(runtime_, nullptr);
    cpu_ = runtime_->GetDevice("cpu").value();
  }

  Tensor Filled(std::vector<int64_t> shape, float value = 1.5f) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> data(static_cast<size_t>(n), value);
    return runtime_->FromHost(*cpu_, SY_DTYPE_F32, shape, data.data(), data.size() * 4)
        .value();
  }

  // queries, calls, declines, workspace bytes, calls without the host's
  // check flag (test_v11::counts).
  std::vector<int64_t> Counts() {
    OpHandle op = runtime_->FindOp("test_v11::counts").value();
    Tensor out = runtime_->Call(op, {Filled({1})}).value()[0];
    std::vector<int64_t> counts(5);
    EXPECT_TRUE(runtime_->ToHost(out, counts.data(), 40).ok());
    return counts;
  }

  std::string ExplainNeg(std::vector<int64_t> shape) {
    absl::StatusOr<std::string> how =
        runtime_->Explain(runtime_->FindOp("neg").value(), {Filled(shape)});
    return how.ok() ? *how : std::string(how.status().message());
  }

  std::unique_ptr<Runtime> runtime_;
  Device* cpu_ = nullptr;
};

TEST_F(V11Test, ADeclineSendsTheCallToTheNextKernelAndIsRemembered) {
  const std::vector<int64_t> before = Counts();
  EXPECT_EQ(ExplainNeg({16}),
            "kernel cpu::neg.f32 (priority); declined: "
            "test_v11::neg_declines_small: elements 16 < threshold 64");
  EXPECT_EQ(Counts()[0], before[0] + 1) << "one query for the bucket";
  // [13] is in [16]'s bucket: the answer is cached, no second query.
  Tensor x = Filled({13}, 2.0f);
  Tensor y = runtime_->Call(runtime_->FindOp("neg").value(), {x}).value()[0];
  std::vector<float> got(13);
  ASSERT_TRUE(runtime_->ToHost(y, got.data(), 52).ok());
  EXPECT_EQ(got, std::vector<float>(13, -2.0f));
  const std::vector<int64_t> after = Counts();
  EXPECT_EQ(after[0], before[0] + 1);
  EXPECT_EQ(after[1], before[1]) << "the declining kernel never ran";
  // At the threshold the plugin's kernel takes the call.
  EXPECT_EQ(ExplainNeg({64}), "kernel test_v11::neg_declines_small (priority)");
  y = runtime_->Call(runtime_->FindOp("neg").value(), {Filled({64}, 3.0f)}).value()[0];
  std::vector<float> big(64);
  ASSERT_TRUE(runtime_->ToHost(y, big.data(), 256).ok());
  EXPECT_EQ(big, std::vector<float>(64, -3.0f));
  EXPECT_EQ(Counts()[1], after[1] + 1);
  // Every query and call above came from the host, flagged as checked.
  EXPECT_EQ(Counts()[4], 0);
}

TEST_F(V11Test, AKernelThatAlwaysDeclinesLeavesTheCallToTheOthers) {
  absl::StatusOr<std::string> how =
      runtime_->Explain(runtime_->FindOp("relu").value(), {Filled({1024})});
  ASSERT_TRUE(how.ok()) << how.status();
  EXPECT_EQ(*how,
            "kernel cpu::relu.f32 (priority); declined: "
            "test_v11::relu_declines_always: this kernel declines every call");
}

TEST_F(V11Test, WhenEveryKernelDeclinesTheErrorSaysWho) {
  absl::StatusOr<std::vector<Tensor>> out =
      runtime_->Call(runtime_->FindOp("test_v11::never").value(), {Filled({4})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(out.status().message(),
              HasSubstr("no kernel for test_v11::never with input dtypes (f32) "
                        "on device cpu:0. Kernels exist for: cpu (f32) from "
                        "plugin 'test_v11'. Declined: test_v11::never: this "
                        "kernel declines every call."));
}

TEST_F(V11Test, ADeclineWithoutTheFlagIsAPluginBug) {
  absl::StatusOr<std::vector<Tensor>> out =
      runtime_->Call(runtime_->FindOp("exp").value(), {Filled({4})});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_EQ(out.status().message(),
            "exp: kernel 'test_v11::exp_declines_without_the_flag' declined "
            "the call but was registered without SY_KERNEL_FLAG_MAY_DECLINE; "
            "this is a bug in the plugin: register it with the flag (and "
            "answer queries)");
}

TEST_F(V11Test, ARequestedKernelThatDeclinesIsRefused) {
  TensorList produced;
  const Tensor x = Filled({4});
  const Tensor* inputs[] = {&x};
  CallArgs args;
  args.inputs = inputs;
  args.produced = &produced;
  args.route = RouteRequest::Kernel("test_v11::neg_declines_small");
  absl::Status status = runtime_->Execute(runtime_->FindOp("neg").value(), args);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "neg: kernel test_v11::neg_declines_small declines this call "
            "(elements 4 < threshold 64); call it with inputs it takes, or let "
            "the dispatcher choose");
  EXPECT_TRUE(produced.empty());
}

TEST_F(V11Test, WorkspacesComeFromTheAllocatorAndGoBack) {
  const uint64_t baseline = cpu_->allocator().stats().allocated_bytes;
  const Tensor x = Filled({1000}, 7.0f);
  const uint64_t with_input = cpu_->allocator().stats().allocated_bytes;
  EXPECT_GT(with_input, baseline);
  Tensor y = runtime_->Call(runtime_->FindOp("test_v11::scratch").value(), {x})
                 .value()[0];
  std::vector<float> got(1000);
  ASSERT_TRUE(runtime_->ToHost(y, got.data(), 4000).ok());
  EXPECT_EQ(got, std::vector<float>(1000, 7.0f));
  EXPECT_EQ(Counts()[3], (1 << 20) + 4000);
  // Only the output stays allocated: both workspaces went back.
  EXPECT_EQ(cpu_->allocator().stats().allocated_bytes,
            with_input + (y.nbytes() + 511) / 512 * 512);
}

TEST(V11Options, DefaultsAndTheirSourcesAreInTheLoadRecord) {
  std::unique_ptr<Runtime> runtime = V11Runtime();
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = Record(records, "test_v11");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->plugin_abi_minor, 1u);
  ASSERT_EQ(r->options.size(), 5u);
  EXPECT_EQ(r->options[0].name, "threshold");
  EXPECT_EQ(r->options[0].type, "int");
  EXPECT_EQ(r->options[0].value, "64");
  EXPECT_EQ(r->options[0].source, "default");
  EXPECT_EQ(r->options[0].help, "neg declines calls of fewer bucketed elements");
  EXPECT_EQ(r->options[2].type, "string");
}

std::vector<double> OptionsSeen(Runtime& runtime) {
  Device& cpu = *runtime.GetDevice("cpu").value();
  const float one = 1;
  Tensor x = runtime.FromHost(cpu, SY_DTYPE_F32, {1}, &one, 4).value();
  Tensor out =
      runtime.Call(runtime.FindOp("test_v11::option").value(), {x}).value()[0];
  std::vector<double> seen(3);
  EXPECT_TRUE(runtime.ToHost(out, seen.data(), 24).ok());
  return seen;
}

TEST(V11Options, ContextOptionsReachThePlugin) {
  std::unique_ptr<Runtime> runtime =
      V11Runtime({"test_v11.threshold=8,test_v11.flag=yes", "test_v11.label=hello"});
  EXPECT_EQ(OptionsSeen(*runtime), (std::vector<double>{8, 1, 5}));
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = Record(records, "test_v11");
  EXPECT_EQ(r->options[0].value, "8");
  EXPECT_EQ(r->options[0].source, "context");
}

TEST(V11Options, TheEnvironmentIsWeakerThanTheContext) {
  setenv("SWITCHYARD_PLUGIN_OPTIONS", "test_v11.threshold=16,test_v11.flag=1", 1);
  RuntimeOptions options;
  options.loader.use_environment = true;
  options.loader.use_default_path = false;
  options.loader.search_paths = {CpuManifest(), TestPlugin("test_v11")};
  options.loader.plugin_options = {"test_v11.threshold=32"};
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  unsetenv("SWITCHYARD_PLUGIN_OPTIONS");
  ASSERT_TRUE(runtime.ok()) << runtime.status();
  EXPECT_EQ(OptionsSeen(**runtime), (std::vector<double>{32, 1, 1}));
  const std::vector<LoadRecord> records = (*runtime)->LoadRecords();
  EXPECT_EQ(Record(records, "test_v11")->options[1].source, "SWITCHYARD_PLUGIN_OPTIONS");
}

TEST(V11Options, TheManifestSetsOptions) {
  const std::string manifest =
      std::string(SWITCHYARD_TEST_PLUGIN_DIR) + "/test_v11/with_options.json";
  {
    std::ofstream out(manifest);
    out << "{\"format_version\": 1, \"name\": \"test_v11\", \"library\": "
           "\"libswitchyard_test_v11.so\", \"abi\": {\"major\": 1, \"minor\": 1}, "
           "\"device_types\": [\"cpu\"], \"options\": {\"threshold\": 4, "
           "\"label\": \"abc\"}}\n";
  }
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {CpuManifest(), manifest};
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  ASSERT_TRUE(runtime.ok()) << runtime.status();
  EXPECT_EQ(OptionsSeen(**runtime), (std::vector<double>{4, 0, 3}));
  const std::vector<LoadRecord> records = (*runtime)->LoadRecords();
  EXPECT_EQ(Record(records, "test_v11")->options[0].source, "manifest");
}

TEST(V11Options, UnknownOptionsAndBadValuesRefuseTheLoad) {
  std::unique_ptr<Runtime> runtime = V11Runtime({"test_v11.threshhold=8"});
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = Record(records, "test_v11");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r->stage, LoadStage::kOptions);
  EXPECT_EQ(r->reason,
            "the context's plugin options sets option 'threshhold' of plugin "
            "'test_v11', which the plugin does not declare; its options: "
            "threshold (int), flag (bool), label (string), extra_kernels (int), "
            "long_name (bool)");
  runtime = V11Runtime({"test_v11.threshold=many"});
  const std::vector<LoadRecord> again = runtime->LoadRecords();
  r = Record(again, "test_v11");
  EXPECT_EQ(r->stage, LoadStage::kOptions);
  EXPECT_EQ(r->reason,
            "the context's plugin options sets option 'threshold' of plugin "
            "'test_v11' to \"many\", "
            "which is not a valid int (neg declines calls of fewer bucketed "
            "elements)");
  RuntimeOptions bad;
  bad.loader.use_environment = false;
  bad.loader.use_default_path = false;
  bad.loader.plugin_options = {"no-dot-here"};
  absl::StatusOr<std::unique_ptr<Runtime>> refused = Runtime::Create(bad);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "plugin option 'no-dot-here' is not of the form plugin.option=value "
            "(e.g. cpu.num_threads=4)");
}

TEST(V11Limits, AKernelNameOverTheLimitRefusesTheLoad) {
  std::unique_ptr<Runtime> runtime = V11Runtime({"test_v11.long_name=true"});
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = Record(records, "test_v11");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, LoadOutcome::kFailed);
  EXPECT_EQ(r->stage, LoadStage::kRegister);
  EXPECT_EQ(r->reason,
            "the plugin's load slot failed: register_kernel for 'neg': the "
            "kernel name is longer than 256 bytes, the limit; use a shorter one");
  // Nothing of the plugin stays: neg is the cpu plugin's again.
  EXPECT_THAT(*runtime->Explain(runtime->FindOp("neg").value(),
                                {runtime->Empty(*runtime->GetDevice("cpu").value(),
                                                SY_DTYPE_F32, {4}).value()}),
              HasSubstr("kernel cpu::neg.f32"));
}

TEST(V11Limits, OneHundredThousandKernelsRegisterInLinearTime) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Runtime> runtime = V11Runtime({"test_v11.extra_kernels=100000"});
  const double seconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - start).count();
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = Record(records, "test_v11");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->outcome, LoadOutcome::kLoaded) << r->reason;
  EXPECT_EQ(r->num_kernels, 7 + 100000);
  // Reported, not asserted (timing belongs in benchmarks): the quadratic
  // registry this replaced took ~50 s here.
  std::cout << "100k kernels registered in " << seconds << " s\n";
}

TEST(V10Declines, AOnePointZeroPluginThatDeclinesIsRefusedAndNoted) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {CpuManifest(), TestPlugin("test_v10_declines")};
  std::unique_ptr<Runtime> runtime = Runtime::Create(options).value();
  Device& cpu = *runtime->GetDevice("cpu").value();
  const float four = 4;
  Tensor x = runtime->FromHost(cpu, SY_DTYPE_F32, {1}, &four, 4).value();
  absl::StatusOr<std::vector<Tensor>> out =
      runtime->Call(runtime->FindOp("sqrt").value(), {x});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(out.status().message(),
              HasSubstr("kernel 'test_v10_declines::sqrt_declines_under_1_0' "
                        "declined the call with SY_STATUS_KERNEL_DECLINED, a "
                        "code of plugin ABI 1.1, but its plugin answered ABI 1.0"));
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* r = Record(records, "test_v10_declines");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->plugin_abi_minor, 0u);
  EXPECT_THAT(r->notes, ::testing::Contains(HasSubstr(
                            "returned SY_STATUS_KERNEL_DECLINED, a code of plugin "
                            "ABI 1.1, but the plugin answered ABI 1.0")));
}

TEST(AbiCompatibility, TheOnePointZeroTemplateLoadsBesideOnePointOnePlugins) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {
      CpuManifest(), TestPlugin("test_v11"),
      std::string(SWITCHYARD_TEST_PLUGIN_DIR) + "/template_1_0/myvendor.json"};
  std::unique_ptr<Runtime> runtime = Runtime::Create(options).value();
  const std::vector<LoadRecord> records = runtime->LoadRecords();
  const LoadRecord* old = Record(records, "myvendor");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->outcome, LoadOutcome::kLoaded) << old->reason;
  EXPECT_EQ(old->plugin_abi_minor, 0u);
  EXPECT_TRUE(old->options.empty());
  EXPECT_EQ(Record(records, "test_v11")->plugin_abi_minor, 1u);
  // Its kernels run on its device.
  Device& accel = *runtime->GetDevice("myaccel:0").value();
  const std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  Tensor ta = runtime->FromHost(accel, SY_DTYPE_F32, {3}, a.data(), 12).value();
  Tensor tb = runtime->FromHost(accel, SY_DTYPE_F32, {3}, b.data(), 12).value();
  Tensor sum = runtime->Call(runtime->FindOp("add").value(), {ta, tb}).value()[0];
  std::vector<float> got(3);
  ASSERT_TRUE(runtime->ToHost(sum, got.data(), 12).ok());
  EXPECT_EQ(got, (std::vector<float>{11, 22, 33}));
}

}  // namespace
}  // namespace sy::testing
