// Note [Elementwise output layout] (dispatcher/ops/shape_context.h): the
// result of a unary op, a binary op, a comparison, where or cast is channels-last
// when the first input of the output's own shape is, as PyTorch's
// TensorIterator decides it; inputs broadcast to the output have no say.
// Values are checked against float64 in NCHW order, so a kernel that
// ignored the output's strides (or walked them wrong) fails here.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::testing {
namespace {

using ::testing::ElementsAre;

constexpr int64_t kN = 2, kC = 5, kH = 3, kW = 4;
constexpr int64_t kNumel = kN * kC * kH * kW;
constexpr int64_t kNchw[] = {kC * kH * kW, kH * kW, kW, 1};
constexpr int64_t kNhwc[] = {kH * kW * kC, 1, kW * kC, kC};

class ElementwiseLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = MakeRuntime();
    ASSERT_NE(runtime_, nullptr);
    cpu_ = runtime_->GetDevice("cpu").value();
    a_ = RandomFloats(kNumel, 11);
    b_ = RandomFloats(kNumel, 12);
    bias_ = RandomFloats(kC, 13);
  }
  OpHandle Op(const char* name) { return runtime_->FindOp(name).value(); }

  // `values` (NCHW order) as a contiguous [N, C, H, W] tensor, or with
  // `channels_last` as a view of a contiguous [N, H, W, C] one.
  Tensor Make(const std::vector<float>& values, bool channels_last) {
    return channels_last ? MakeF32ChannelsLast(*runtime_, *cpu_, {kN, kC, kH, kW}, values)
                         : MakeF32(*runtime_, *cpu_, {kN, kC, kH, kW}, values);
  }
  Tensor Bias() { return MakeF32(*runtime_, *cpu_, {1, kC, 1, 1}, bias_); }

  // Calls `op` and checks the result against `want` (NCHW order).
  Tensor Run(const char* op, const std::vector<Tensor>& inputs,
             const std::vector<double>& want) {
    auto out = runtime_->Call(Op(op), inputs, {});
    EXPECT_TRUE(out.ok()) << op << ": " << out.status();
    if (!out.ok()) return Tensor();
    const Tensor& y = (*out)[0];
    EXPECT_THAT(y.shape(), ElementsAre(kN, kC, kH, kW)) << op;
    const std::vector<float> got = ReadF32(*runtime_, y);
    EXPECT_EQ(got.size(), want.size()) << op;
    for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
      EXPECT_NEAR(got[i], want[i], 1e-6 * (1 + std::abs(want[i]))) << op << " element " << i;
    }
    return y;
  }

  // a ⊕ b elementwise in float64; b_index maps an NCHW index into b.
  template <class F>
  std::vector<double> Reference(const std::vector<float>& b, bool b_is_bias, F f) const {
    std::vector<double> want(kNumel);
    for (int64_t i = 0; i < kNumel; ++i) {
      const int64_t c = (i / (kH * kW)) % kC;
      want[i] = f(double{a_[i]}, double{b_is_bias ? b[c] : b[i]});
    }
    return want;
  }

  std::unique_ptr<Runtime> runtime_;
  Device* cpu_ = nullptr;
  std::vector<float> a_, b_, bias_;
};

#define EXPECT_STRIDES(t, s) EXPECT_THAT((t).strides(), ElementsAre((s)[0], (s)[1], (s)[2], (s)[3]))

TEST_F(ElementwiseLayoutTest, UnaryOpsKeepAChannelsLastInput) {
  std::vector<double> relu(kNumel), gelu(kNumel);
  for (int64_t i = 0; i < kNumel; ++i) {
    relu[i] = std::max(0.0, double{a_[i]});
    gelu[i] = 0.5 * a_[i] * std::erfc(-a_[i] / std::sqrt(2.0));
  }
  for (int call = 0; call < 3; ++call) {  // the later calls are planned
    SCOPED_TRACE(call);
    EXPECT_STRIDES(Run("relu", {Make(a_, true)}, relu), kNhwc);
    EXPECT_STRIDES(Run("gelu", {Make(a_, true)}, gelu), kNhwc);
    EXPECT_STRIDES(Run("relu", {Make(a_, false)}, relu), kNchw);
  }
}

TEST_F(ElementwiseLayoutTest, TheFirstFullSizedInputDecides) {
  const std::vector<double> sum = Reference(b_, false, [](double x, double y) { return x + y; });
  // Channels-last first: channels-last, whatever the second is.
  EXPECT_STRIDES(Run("add", {Make(a_, true), Make(b_, true)}, sum), kNhwc);
  EXPECT_STRIDES(Run("add", {Make(a_, true), Make(b_, false)}, sum), kNhwc);
  // Contiguous first: contiguous, as PyTorch's first operand decides.
  EXPECT_STRIDES(Run("add", {Make(a_, false), Make(b_, true)}, sum), kNchw);
  const std::vector<double> product =
      Reference(b_, false, [](double x, double y) { return x * y; });
  EXPECT_STRIDES(Run("mul", {Make(a_, true), Make(b_, false)}, product), kNhwc);
}

TEST_F(ElementwiseLayoutTest, BroadcastInputsHaveNoSay) {
  // The residual block's bias add: x + bias and bias + x both keep x's
  // channels-last layout; the [1, C, 1, 1] bias is contiguous.
  const std::vector<double> sum = Reference(bias_, true, [](double x, double y) { return x + y; });
  EXPECT_STRIDES(Run("add", {Make(a_, true), Bias()}, sum), kNhwc);
  EXPECT_STRIDES(Run("add", {Bias(), Make(a_, true)}, sum), kNhwc);
  EXPECT_STRIDES(Run("add", {Bias(), Make(a_, false)}, sum), kNchw);
  // An input expanded to the output's shape (stride 0) is broadcast too.
  Tensor expanded =
      runtime_->Call(Op("expand"), {Bias()}, {Attr({kN, kC, kH, kW})}).value()[0];
  EXPECT_STRIDES(Run("add", {expanded, Make(a_, true)}, sum), kNhwc);
}

TEST_F(ElementwiseLayoutTest, ComparisonsAndWhereFollowTheirFirstFullInput) {
  std::vector<double> greater(kNumel), picked(kNumel);
  for (int64_t i = 0; i < kNumel; ++i) {
    greater[i] = a_[i] > b_[i] ? 1.0 : 0.0;
    picked[i] = a_[i] > b_[i] ? a_[i] : b_[i];
  }
  auto gt = runtime_->Call(Op("gt"), {Make(a_, true), Make(b_, true)}, {});
  ASSERT_TRUE(gt.ok()) << gt.status();
  const Tensor mask = (*gt)[0];
  EXPECT_STRIDES(mask, kNhwc);
  EXPECT_STRIDES(Run("where", {mask, Make(a_, false), Make(b_, false)}, picked), kNhwc);
  const Tensor contiguous_mask =
      runtime_->Call(Op("gt"), {Make(a_, false), Make(b_, true)}, {}).value()[0];
  EXPECT_STRIDES(contiguous_mask, kNchw);
  EXPECT_STRIDES(Run("where", {contiguous_mask, Make(a_, true), Make(b_, true)}, picked), kNchw);
  auto as_float = runtime_->Call(Op("cast"), {mask}, {Attr::DType(SY_DTYPE_F32)});
  ASSERT_TRUE(as_float.ok()) << as_float.status();
  const std::vector<float> got = ReadF32(*runtime_, (*as_float)[0]);
  for (int64_t i = 0; i < kNumel; ++i) EXPECT_EQ(got[i], greater[i]) << "element " << i;
}

// cast keeps the layout, as PyTorch's .to(dtype) keeps the memory format
// (f32 → f16 → f32 here, each value checked against its f16 rounding);
// copy stays contiguous.
TEST_F(ElementwiseLayoutTest, CastKeepsTheLayoutAndCopyDoesNot) {
  std::vector<double> want(kNumel);
  for (int64_t i = 0; i < kNumel; ++i) {
    // f16's rounding: 11 significant bits, steps of 2^-24 below 2^-14,
    // ties to even (nearbyint's default mode).
    int e = 0;
    std::frexp(double{a_[i]}, &e);
    const double step = std::ldexp(1.0, std::max(e - 11, -24));
    want[i] = std::nearbyint(a_[i] / step) * step;
  }
  for (bool channels_last : {true, false}) {
    SCOPED_TRACE(channels_last ? "channels-last" : "contiguous");
    for (int call = 0; call < 3; ++call) {  // the later calls are planned
      auto half = runtime_->Call(Op("cast"), {Make(a_, channels_last)},
                                 {Attr::DType(SY_DTYPE_F16)});
      ASSERT_TRUE(half.ok()) << half.status();
      EXPECT_STRIDES((*half)[0], channels_last ? kNhwc : kNchw);
      auto back = runtime_->Call(Op("cast"), {(*half)[0]}, {Attr::DType(SY_DTYPE_F32)});
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_STRIDES((*back)[0], channels_last ? kNhwc : kNchw);
      const std::vector<float> got = ReadF32(*runtime_, (*back)[0]);
      ASSERT_EQ(got.size(), want.size());
      for (int64_t i = 0; i < kNumel; ++i) EXPECT_EQ(got[i], want[i]) << "element " << i;
    }
    auto copied = runtime_->Call(Op("copy"), {Make(a_, channels_last)}, {});
    ASSERT_TRUE(copied.ok()) << copied.status();
    EXPECT_STRIDES((*copied)[0], kNchw);
  }
}

// Planned calls of one op alternate between layouts: a plan must not keep
// the layout of the call it was made for.
TEST_F(ElementwiseLayoutTest, PlannedCallsDecideTheLayoutPerCall) {
  const std::vector<double> sum = Reference(bias_, true, [](double x, double y) { return x + y; });
  for (int call = 0; call < 4; ++call) {
    SCOPED_TRACE(call);
    const bool channels_last = call % 2 == 1;
    EXPECT_STRIDES(Run("add", {Make(a_, channels_last), Bias()}, sum),
                   channels_last ? kNhwc : kNchw);
  }
}

// A tensor that is both contiguous and channels-last (one channel) is not
// taken as channels-last, as for conv2d (output_layout_test.cc).
TEST_F(ElementwiseLayoutTest, AmbiguousLayoutsStayContiguous) {
  std::vector<float> x(kN * kH * kW, -0.5f);
  Tensor one_channel = MakeF32(*runtime_, *cpu_, {kN, 1, kH, kW}, x);
  auto out = runtime_->Call(Op("relu"), {one_channel}, {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].strides(), ElementsAre(kH * kW, kH * kW, kW, 1));
  for (float v : ReadF32(*runtime_, (*out)[0])) EXPECT_EQ(v, 0.0f);
}

// A plugin's op asks for a layout rule in its schema (sy_schema_desc_t's
// output_layout, ABI 1.4): test_good::double_keep takes the elementwise
// rule, test_good::double_it (the same kernel) leaves it contiguous.
TEST(PluginOutputLayoutTest, APluginSchemaTakesTheRuleItAsksFor) {
  std::unique_ptr<Runtime> runtime = MakeRuntime({TestPlugin("test_good")});
  ASSERT_NE(runtime, nullptr);
  Device* fake = runtime->GetDevice("fakedev:0").value();
  std::vector<float> nhwc(kNumel);
  for (int64_t i = 0; i < kNumel; ++i) nhwc[i] = static_cast<float>(i) - 7;
  const Tensor storage = MakeF32(*runtime, *fake, {kN, kH, kW, kC}, nhwc);
  const Tensor x = runtime->Call(runtime->FindOp("permute").value(), {storage},
                                 {Attr({0, 3, 1, 2})}).value()[0];
  for (const char* op : {"test_good::double_keep", "test_good::double_it"}) {
    SCOPED_TRACE(op);
    auto out = runtime->Call(runtime->FindOp(op).value(), {x}, {});
    ASSERT_TRUE(out.ok()) << out.status();
    if (std::string(op) == "test_good::double_keep") {
      EXPECT_STRIDES((*out)[0], kNhwc);
    } else {
      EXPECT_STRIDES((*out)[0], kNchw);
    }
    const std::vector<float> got = ReadF32(*runtime, (*out)[0]);  // NCHW order
    for (int64_t n = 0; n < kN; ++n)
      for (int64_t c = 0; c < kC; ++c)
        for (int64_t i = 0; i < kH; ++i)
          for (int64_t j = 0; j < kW; ++j) {
            const float want = 2 * nhwc[((n * kH + i) * kW + j) * kC + c];
            EXPECT_EQ(got[((n * kC + c) * kH + i) * kW + j], want);
          }
  }
}

}  // namespace
}  // namespace sy::testing
