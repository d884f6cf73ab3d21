// Which kernel serves a call when cpu and onednn are both loaded: onednn's
// (priority 10) for the keys it registers, the cpu plugin's for the rest;
// bf16 keys only on CPUs with native bf16; with the default options, the
// cpu plugin's for calls too small to repay oneDNN's setup (onednn
// declines them). Also the load record, the options, and that the plugin's
// own ops refuse bad input with a clear error.
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "onednn_test_util.h"

namespace sy::onednn_test {
namespace {

using ::testing::HasSubstr;

TEST(OnednnSelection, LoadRecordShowsAKernelOnlyPlugin) {
  bool found = false;
  for (const LoadRecord& record : TestRuntime().LoadRecords()) {
    if (record.name != "onednn") continue;
    found = true;
    EXPECT_EQ(record.outcome, LoadOutcome::kLoaded) << record.reason;
    EXPECT_EQ(record.plugin_abi_minor, 1u);
    EXPECT_EQ(record.num_devices, 0);  // the cpu plugin provides the device
    // onednn::linear_relu, linear_gelu, matmul_add, matmul_add_gelu
    EXPECT_EQ(record.num_schemas, 4);
    EXPECT_GT(record.num_kernels, 20);
  }
  EXPECT_TRUE(found);
}

struct Case {
  const char* op;
  std::vector<std::vector<int64_t>> shapes;  // empty shape list entry: None
  std::vector<Attr> attrs;
};

// An empty shape stands for an omitted optional tensor (None).
std::vector<Tensor> MakeInputs(const Case& c, sy_dtype_t dtype) {
  std::mt19937 gen(Seed());
  std::vector<Tensor> inputs;
  for (const auto& shape : c.shapes) {
    inputs.push_back(shape.empty() ? Tensor() : Upload(Random(gen, dtype, shape)));
  }
  return inputs;
}

// Attr borrows int lists: these outlive every call.
const int64_t kEight[] = {8};
const int64_t kOne[] = {1};
Attr Ints(const int64_t (&list)[1]) { return Attr(absl::Span<const int64_t>(list, 1)); }

const std::vector<Case>& OnednnF32Cases() {
  static const std::vector<Case>* const cases = new std::vector<Case>{
      {"matmul", {{4, 5}, {5, 6}}, {}},
      {"linear", {{3, 5}, {4, 5}, {4}}, {}},
      {"conv2d", {{1, 3, 8, 8}, {4, 3, 3, 3}, {4}}, {}},
      {"softmax", {{4, 7}}, {Attr(int64_t{-1})}},
      {"layer_norm", {{4, 8}, {8}, {8}}, {Ints(kEight), Attr(1e-5)}},
      {"add.Tensor", {{4, 7}, {4, 7}}, {}},
      {"div.Tensor", {{4, 7}, {7}}, {}},
      {"gelu", {{4, 7}}, {Attr("tanh")}},
      {"sigmoid", {{4, 7}}, {}},
      {"sum", {{4, 7}}, {Ints(kOne), Attr(false)}},
      {"onednn::linear_relu", {{3, 5}, {4, 5}, {4}}, {}},
      {"onednn::linear_gelu", {{3, 5}, {4, 5}, {}}, {}},
      {"onednn::matmul_add", {{3, 5}, {5, 4}, {4}}, {}},
  };
  return *cases;
}

TEST(OnednnSelection, OnednnKernelsWinForF32) {
  for (const Case& c : OnednnF32Cases()) {
    const std::string how = Explain(c.op, MakeInputs(c, SY_DTYPE_F32), c.attrs);
    EXPECT_THAT(how, HasSubstr("kernel onednn::")) << c.op;
  }
}

// A runtime with the plugin's default options (TestRuntime sets its
// thresholds to 1).
Runtime& DefaultRuntime() {
  static Runtime* const runtime = [] {
    RuntimeOptions options;
    options.loader.use_environment = false;
    options.loader.use_default_path = false;
    options.loader.search_paths = {
        std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json",
        std::string(SWITCHYARD_PLUGIN_DIR) + "/onednn.json"};
    return Runtime::Create(options).value().release();
  }();
  return *runtime;
}

std::string ExplainOn(Runtime& runtime, const char* op,
                      const std::vector<int64_t>& shape) {
  Device& cpu = *runtime.GetDevice("cpu").value();
  const Tensor a = runtime.Empty(cpu, SY_DTYPE_F32, shape).value();
  const Tensor b = runtime.Empty(cpu, SY_DTYPE_F32, shape).value();
  absl::StatusOr<std::string> how = runtime.Explain(runtime.FindOp(op).value(), {a, b});
  return how.ok() ? *how : std::string(how.status().message());
}

TEST(OnednnSelection, DeclinesCallsBelowItsThresholdsToTheCpuPlugin) {
  Runtime& runtime = DefaultRuntime();
  // 16 elements: declined, by the bucketed count, and explain says why.
  EXPECT_EQ(ExplainOn(runtime, "add.Tensor", {16}),
            "kernel cpu::add.Tensor.f32.f32 (priority); declined: "
            "onednn::add.Tensor.f32.f32: elements 16 < min_elements 65536");
  // A bucket is decided once: [13] rounds up to the same bucket as [16].
  EXPECT_EQ(ExplainOn(runtime, "add.Tensor", {13}),
            "kernel cpu::add.Tensor.f32.f32 (priority); declined: "
            "onednn::add.Tensor.f32.f32: elements 16 < min_elements 65536");
  // At the threshold onednn takes it.
  EXPECT_EQ(ExplainOn(runtime, "add.Tensor", {256, 256}),
            "kernel onednn::add.Tensor.f32.f32 (priority)");
  // The call runs what explain said, and its result is right.
  Device& cpu = *runtime.GetDevice("cpu").value();
  const std::vector<float> x = {1, 2, 3};
  const Tensor t = runtime.FromHost(cpu, SY_DTYPE_F32, {3}, x.data(), 12).value();
  const Tensor sum = runtime.Call(runtime.FindOp("add").value(), {t, t}).value()[0];
  std::vector<float> back(3);
  ASSERT_TRUE(runtime.ToHost(sum, back.data(), 12).ok());
  EXPECT_EQ(back, (std::vector<float>{2, 4, 6}));
}

// Note [Narrow reductions]: a long sum into few outputs goes to the cpu
// plugin, and its value is right; summing rows of an input of another
// shape bucket stays with oneDNN.
TEST(OnednnSelection, DeclinesLongReductionsIntoFewOutputs) {
  Runtime& runtime = DefaultRuntime();
  Device& cpu = *runtime.GetDevice("cpu").value();
  const OpHandle sum = runtime.FindOp("sum").value();
  std::vector<float> x(size_t{1024} * 512);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& v : x) v = dist(rng);
  const Tensor t =
      runtime.FromHost(cpu, SY_DTYPE_F32, {1024, 512}, x.data(), x.size() * 4).value();
  EXPECT_EQ(runtime.Explain(sum, {t}).value(),
            "kernel cpu::sum.f32 (priority); declined: onednn::sum.f32: a reduction of "
            "524288 elements into 1 output(s) runs on about one thread in oneDNN");
  const Tensor total = runtime.Call(sum, {t}).value()[0];
  float got = 0;
  ASSERT_TRUE(runtime.ToHost(total, &got, 4).ok());
  double want = 0;
  for (float v : x) want += v;
  EXPECT_NEAR(got, want, 1e-3);
  // From 64 Ki on, where the cpu plugin sums on one thread in a third of
  // oneDNN's time.
  const Tensor row = runtime.Empty(cpu, SY_DTYPE_F32, {65536}).value();
  EXPECT_EQ(runtime.Explain(sum, {row}).value(),
            "kernel cpu::sum.f32 (priority); declined: onednn::sum.f32: a reduction of "
            "65536 elements into 1 output(s) runs on about one thread in oneDNN");
  const Tensor wide = runtime.Empty(cpu, SY_DTYPE_F32, {256, 4096}).value();
  EXPECT_EQ(runtime.Explain(sum, {wide}, {Attr({1}), Attr(false)}).value(),
            "kernel onednn::sum.f32 (priority)");
}

TEST(OnednnSelection, LoadRecordListsTheOptions) {
  for (Runtime* runtime : {&DefaultRuntime(), &TestRuntime()}) {
    const bool defaults = runtime == &DefaultRuntime();
    for (const LoadRecord& record : runtime->LoadRecords()) {
      if (record.name != "onednn") continue;
      ASSERT_EQ(record.options.size(), 2u);
      EXPECT_EQ(record.options[0].name, "min_elements");
      EXPECT_EQ(record.options[0].type, "int");
      EXPECT_EQ(record.options[0].value, defaults ? "65536" : "1");
      EXPECT_EQ(record.options[0].source, defaults ? "default" : "context");
      EXPECT_EQ(record.options[1].name, "min_matmul_flops");
    }
  }
}

TEST(OnednnSelection, EachRuntimeKeepsItsOwnThresholds) {
  // Note [Options per runtime]: runtimes of one process share the loaded
  // plugin, but each declines by its own options, whichever loaded last.
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json",
                                 std::string(SWITCHYARD_PLUGIN_DIR) + "/onednn.json"};
  options.loader.plugin_options = {"onednn.min_elements=64"};
  Runtime& defaults = DefaultRuntime();
  Runtime& ones = TestRuntime();  // min_elements=1
  std::unique_ptr<Runtime> sixty_four = Runtime::Create(options).value();
  const std::string cpu = "kernel cpu::add.Tensor.f32.f32 (priority); declined: "
                          "onednn::add.Tensor.f32.f32: ";
  const std::string onednn = "kernel onednn::add.Tensor.f32.f32 (priority)";
  for (int round = 0; round < 2; ++round) {  // and again, after all three exist
    EXPECT_EQ(ExplainOn(defaults, "add.Tensor", {4096}),
              cpu + "elements 4096 < min_elements 65536");
    EXPECT_EQ(ExplainOn(ones, "add.Tensor", {2}), onednn);
    EXPECT_EQ(ExplainOn(*sixty_four, "add.Tensor", {32}), cpu + "elements 32 < min_elements 64");
    EXPECT_EQ(ExplainOn(*sixty_four, "add.Tensor", {64}), onednn);
  }
  // The winner computes in each: 64 elements through onednn in one, the
  // same through cpu in the default runtime.
  for (Runtime* runtime : {&defaults, sixty_four.get()}) {
    Device& device = *runtime->GetDevice("cpu").value();
    std::vector<float> x(64);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 20.5f;
    const Tensor t = runtime->FromHost(device, SY_DTYPE_F32, {64}, x.data(), 256).value();
    const Tensor sum = runtime->Call(runtime->FindOp("add").value(), {t, t}).value()[0];
    std::vector<float> back(64);
    ASSERT_TRUE(runtime->ToHost(sum, back.data(), 256).ok());
    for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(back[i], 2 * x[i]) << i;
  }
}

TEST(OnednnSelection, CpuKeepsWhatOnednnDoesNotComputeExactly) {
  // relu (NaN → 0 in oneDNN), max (drops NaN), mean (overflows), log
  // (accuracy), maximum (drops NaN), .Scalar ops (would round the Scalar).
  const std::vector<Case> cases = {
      {"relu", {{4, 7}}, {}},
      {"log", {{4, 7}}, {}},
      {"max", {{4, 7}}, {Ints(kOne), Attr(false)}},
      {"mean", {{4, 7}}, {Ints(kOne), Attr(false)}},
      {"maximum.Tensor", {{4, 7}, {4, 7}}, {}},
      {"add.Scalar", {{4, 7}}, {Attr(0.5)}},
      {"log_softmax", {{4, 7}}, {Attr(int64_t{-1})}},
  };
  for (const Case& c : cases) {
    const std::string how = Explain(c.op, MakeInputs(c, SY_DTYPE_F32), c.attrs);
    EXPECT_THAT(how, HasSubstr("kernel cpu::")) << c.op;
  }
}

TEST(OnednnSelection, Bf16KernelsOnlyWithNativeBf16) {
  const std::vector<Case> cases = {
      {"matmul", {{4, 5}, {5, 6}}, {}},
      {"conv2d", {{1, 3, 8, 8}, {4, 3, 3, 3}, {}}, {}},
      {"softmax", {{4, 7}}, {Attr(int64_t{-1})}},
      {"layer_norm", {{4, 8}, {}, {}}, {Ints(kEight), Attr(1e-5)}},
  };
  const char* expected = ExpectBf16Kernels() ? "kernel onednn::" : "kernel cpu::";
  for (const Case& c : cases) {
    const std::string how = Explain(c.op, MakeInputs(c, SY_DTYPE_BF16), c.attrs);
    EXPECT_THAT(how, HasSubstr(expected)) << c.op;
  }
  // Elementwise bf16 stays with the cpu plugin everywhere (subnormals).
  Case add = {"add.Tensor", {{4, 7}, {4, 7}}, {}};
  EXPECT_THAT(Explain(add.op, MakeInputs(add, SY_DTYPE_BF16)),
              HasSubstr("kernel cpu::"));
}

TEST(OnednnSelection, FusedOpsRefuseBadInputClearly) {
  std::mt19937 gen(Seed());
  const Tensor x = Upload(Random(gen, SY_DTYPE_F32, {3, 5}));
  const Tensor w_bad = Upload(Random(gen, SY_DTYPE_F32, {4, 6}));
  const Tensor w = Upload(Random(gen, SY_DTYPE_F32, {4, 5}));
  const Tensor bias_bad = Upload(Random(gen, SY_DTYPE_F32, {3}));
  const Tensor c_bad = Upload(Random(gen, SY_DTYPE_F32, {2, 4}));
  const Tensor b = Upload(Random(gen, SY_DTYPE_F32, {5, 4}));

  auto expect_error = [](const char* op, std::vector<Tensor> in,
                         std::vector<Attr> attrs, const char* word) {
    auto out = TestRuntime().Call(Op(op), in, attrs);
    ASSERT_FALSE(out.ok()) << op;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(op));
    EXPECT_THAT(std::string(out.status().message()), HasSubstr(word));
  };
  expect_error("onednn::linear_relu", {x, w_bad, Tensor()}, {}, "weight");
  expect_error("onednn::linear_gelu", {x, w, bias_bad}, {}, "bias");
  expect_error("onednn::linear_gelu", {x, w, Tensor()}, {Attr("fast")}, "approximate");
  expect_error("onednn::matmul_add", {x, b, c_bad}, {}, "broadcast");
  expect_error("onednn::matmul_add_gelu", {x, b, c_bad}, {}, "broadcast");
  expect_error("onednn::matmul_add_gelu", {x, b, Tensor()}, {}, "required");
  const Tensor c = Upload(Random(gen, SY_DTYPE_F32, {4}));
  expect_error("onednn::matmul_add_gelu", {x, b, c}, {Attr("fast")}, "approximate");
  // The runtime still works after the refusals.
  EXPECT_THAT(Explain("onednn::linear_relu", {x, w, Tensor()}),
              HasSubstr("kernel onednn::"));
}

}  // namespace
}  // namespace sy::onednn_test
