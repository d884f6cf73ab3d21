// Note [Channels-last outputs] (dispatcher/ops/shape_context.h): conv2d's
// output follows its input's or its weight's channels-last layout, as
// PyTorch's convolutions do, and is contiguous otherwise — on the first
// call and on the planned ones after it, which must not keep the layout
// of a call whose inputs were laid out differently. The values are checked
// against a float64 convolution, so a kernel that ignored the output's
// strides would fail here.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::testing {
namespace {

using ::testing::ElementsAre;

constexpr int64_t kN = 2, kC = 3, kH = 5, kW = 6, kOut = 4, kK = 3;

// conv2d with padding 1, stride 1 in float64, over NCHW x and OIHW weight.
std::vector<double> Reference(const std::vector<float>& x, const std::vector<float>& w) {
  std::vector<double> y(kN * kOut * kH * kW, 0.0);
  for (int64_t n = 0; n < kN; ++n)
    for (int64_t o = 0; o < kOut; ++o)
      for (int64_t i = 0; i < kH; ++i)
        for (int64_t j = 0; j < kW; ++j) {
          double acc = 0;
          for (int64_t c = 0; c < kC; ++c)
            for (int64_t a = 0; a < kK; ++a)
              for (int64_t b = 0; b < kK; ++b) {
                const int64_t yi = i + a - 1, xj = j + b - 1;
                if (yi < 0 || yi >= kH || xj < 0 || xj >= kW) continue;
                acc += double{x[((n * kC + c) * kH + yi) * kW + xj]} *
                       double{w[((o * kC + c) * kK + a) * kK + b]};
              }
          y[((n * kOut + o) * kH + i) * kW + j] = acc;
        }
  return y;
}

class OutputLayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = MakeRuntime();
    ASSERT_NE(runtime_, nullptr);
    cpu_ = runtime_->GetDevice("cpu").value();
    x_ = RandomFloats(kN * kC * kH * kW, 1);
    w_ = RandomFloats(kOut * kC * kK * kK, 2);
    want_ = Reference(x_, w_);
  }
  OpHandle Op(const char* name) { return runtime_->FindOp(name).value(); }

  // `values` (NCHW order) as a contiguous [N, C, H, W] tensor, or with
  // `channels_last` as a view of a contiguous [N, H, W, C] one.
  Tensor Make(const std::vector<float>& values, std::vector<int64_t> shape,
              bool channels_last) {
    return channels_last ? MakeF32ChannelsLast(*runtime_, *cpu_, shape, values)
                         : MakeF32(*runtime_, *cpu_, shape, values);
  }

  Tensor Conv(const Tensor& x, const Tensor& w) {
    auto out = runtime_->Call(Op("conv2d"), {x, w, Tensor()},
                              {Attr({1, 1}), Attr({1, 1}), Attr({1, 1}), 1});
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return Tensor();
    const std::vector<float> got = ReadF32(*runtime_, (*out)[0]);
    EXPECT_EQ(got.size(), want_.size());
    for (size_t i = 0; i < got.size() && i < want_.size(); ++i) {
      EXPECT_NEAR(got[i], want_[i], 1e-4 * (1 + std::abs(want_[i]))) << "element " << i;
    }
    return (*out)[0];
  }

  std::unique_ptr<Runtime> runtime_;
  Device* cpu_ = nullptr;
  std::vector<float> x_, w_;
  std::vector<double> want_;
};

constexpr int64_t kNchw[] = {kOut * kH * kW, kH * kW, kW, 1};
constexpr int64_t kNhwc[] = {kH * kW * kOut, 1, kW * kOut, kOut};

TEST_F(OutputLayoutTest, Conv2dOutputFollowsAChannelsLastInput) {
  const Tensor w = Make(w_, {kOut, kC, kK, kK}, false);
  for (int call = 0; call < 3; ++call) {  // the later calls are planned
    SCOPED_TRACE(call);
    Tensor y = Conv(Make(x_, {kN, kC, kH, kW}, true), w);
    EXPECT_THAT(y.shape(), ElementsAre(kN, kOut, kH, kW));
    EXPECT_THAT(y.strides(), ElementsAre(kNhwc[0], kNhwc[1], kNhwc[2], kNhwc[3]));
  }
}

TEST_F(OutputLayoutTest, Conv2dOutputFollowsAChannelsLastWeight) {
  Tensor y = Conv(Make(x_, {kN, kC, kH, kW}, false), Make(w_, {kOut, kC, kK, kK}, true));
  EXPECT_THAT(y.strides(), ElementsAre(kNhwc[0], kNhwc[1], kNhwc[2], kNhwc[3]));
}

// The same shapes alternating between layouts: a plan made for one call
// must not hand its layout to the next.
TEST_F(OutputLayoutTest, PlannedCallsDecideTheLayoutPerCall) {
  const Tensor w = Make(w_, {kOut, kC, kK, kK}, false);
  const Tensor nchw = Make(x_, {kN, kC, kH, kW}, false);
  const Tensor nhwc = Make(x_, {kN, kC, kH, kW}, true);
  for (int call = 0; call < 4; ++call) {
    SCOPED_TRACE(call);
    Tensor y = Conv(call % 2 == 0 ? nchw : nhwc, w);
    if (call % 2 == 0) {
      EXPECT_THAT(y.strides(), ElementsAre(kNchw[0], kNchw[1], kNchw[2], kNchw[3]));
    } else {
      EXPECT_THAT(y.strides(), ElementsAre(kNhwc[0], kNhwc[1], kNhwc[2], kNhwc[3]));
    }
  }
}

// A tensor that is both contiguous and channels-last (one channel, or
// 1×1 images) is not taken as channels-last: PyTorch's rule too.
TEST_F(OutputLayoutTest, AmbiguousLayoutsStayContiguous) {
  std::vector<float> x(kN * 1 * kH * kW, 0.5f);
  Tensor one_channel = MakeF32(*runtime_, *cpu_, {kN, 1, kH, kW}, x);
  Tensor w = MakeF32(*runtime_, *cpu_, {kOut, 1, kK, kK}, std::vector<float>(kOut * kK * kK, 1));
  auto out = runtime_->Call(Op("conv2d"), {one_channel, w, Tensor()},
                            {Attr({1, 1}), Attr({1, 1}), Attr({1, 1}), 1});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].strides(), ElementsAre(kNchw[0], kNchw[1], kNchw[2], kNchw[3]));
}

}  // namespace
}  // namespace sy::testing
