// The call path on cpu: binding, broadcasting, views, preallocated outputs,
// and every kind of bad input — each with its exact message, and the next
// call still working.
#include <cmath>

#include "absl/strings/match.h"

#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::core {
namespace {

using ::sy::testing::MakeF32;
using ::sy::testing::MakeRuntime;
using ::sy::testing::RandomFloats;
using ::sy::testing::ReadF32;

class DispatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = MakeRuntime();
    ASSERT_NE(runtime_, nullptr);
    cpu_ = runtime_->GetDevice("cpu").value();
  }
  OpHandle Op(const char* name) { return runtime_->FindOp(name).value(); }
  absl::Status CallError(const char* op, std::vector<Tensor> inputs,
                         std::vector<Attr> attrs = {}) {
    auto out = runtime_->Call(Op(op), inputs, attrs);
    EXPECT_FALSE(out.ok());
    return out.ok() ? absl::OkStatus() : out.status();
  }
  std::unique_ptr<Runtime> runtime_;
  Device* cpu_ = nullptr;
};

TEST_F(DispatchTest, BroadcastAddMatchesFloat64Reference) {
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> cases = {
      {{4, 5}, {5}}, {{3, 1, 6}, {1, 7, 1}}, {{}, {2, 3}}, {{0, 3}, {1, 3}},
      {{2, 3, 4}, {2, 3, 4}}};
  uint32_t seed = 1;
  for (const auto& [sa, sb] : cases) {
    int64_t na = 1, nb = 1;
    for (int64_t d : sa) na *= d;
    for (int64_t d : sb) nb *= d;
    std::vector<float> va = RandomFloats(na, seed++), vb = RandomFloats(nb, seed++);
    Tensor a = MakeF32(*runtime_, *cpu_, sa, va);
    Tensor b = MakeF32(*runtime_, *cpu_, sb, vb);
    auto out = runtime_->Call(Op("add"), {a, b});
    ASSERT_TRUE(out.ok()) << out.status();
    const Tensor& c = (*out)[0];
    std::vector<float> got = ReadF32(*runtime_, c);
    // Reference: walk the output index, map to each input (NumPy rules).
    const int nd = c.ndim();
    std::vector<int64_t> idx(nd, 0);
    for (int64_t n = 0; n < c.numel(); ++n) {
      auto offset = [&](const std::vector<int64_t>& s) {
        int64_t off = 0, stride = 1;
        for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
          int64_t i = idx[nd - s.size() + d];
          off += (s[d] == 1 ? 0 : i) * stride;
          stride *= s[d];
        }
        return off;
      };
      double want = double(va[offset(sa)]) + double(vb[offset(sb)]);
      ASSERT_NEAR(got[n], want, 1e-6 * std::max(1.0, std::abs(want)));
      for (int d = nd - 1; d >= 0; --d) {
        if (++idx[d] < c.shape()[d]) break;
        idx[d] = 0;
      }
    }
  }
}

TEST_F(DispatchTest, ViewsShareStorageAndReadCorrectly) {
  Tensor x = MakeF32(*runtime_, *cpu_, {2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor t = runtime_->Call(Op("transpose"), {x}, {0, 1}).value()[0];
  EXPECT_EQ(&t.storage(), &x.storage());
  EXPECT_EQ(ReadF32(*runtime_, t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor s = runtime_->Call(Op("slice"), {x}, {1, 1, Attr(), 1}).value()[0];
  EXPECT_EQ(ReadF32(*runtime_, s), (std::vector<float>{1, 2, 4, 5}));
  Tensor e = runtime_->Call(Op("expand"), {MakeF32(*runtime_, *cpu_, {3}, {7, 8, 9})},
                            {Attr({2, 3})}).value()[0];
  EXPECT_EQ(ReadF32(*runtime_, e), (std::vector<float>{7, 8, 9, 7, 8, 9}));
  Tensor p = runtime_->Call(Op("permute"), {x}, {Attr({1, 0})}).value()[0];
  EXPECT_EQ(ReadF32(*runtime_, p), ReadF32(*runtime_, t));
  // Reshape of a non-contiguous view copies first.
  Tensor r = runtime_->Call(Op("reshape"), {t}, {Attr({6})}).value()[0];
  EXPECT_EQ(ReadF32(*runtime_, r), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_NE(&r.storage(), &t.storage());
  // A strided input to a kernel.
  Tensor sum = runtime_->Call(Op("add"), {t, t}).value()[0];
  EXPECT_EQ(ReadF32(*runtime_, sum), (std::vector<float>{0, 6, 2, 8, 4, 10}));
}

// Reshape is a view whenever the strides allow it (the rule of PyTorch's
// view()), and a copy only when they do not.
TEST_F(DispatchTest, ReshapeIsAViewWhenTheStridesAllowIt) {
  const std::vector<float> v = RandomFloats(24, 11);
  Tensor x = MakeF32(*runtime_, *cpu_, {2, 3, 4}, v);
  auto call = [&](const char* op, std::vector<Tensor> in, std::vector<Attr> attrs) {
    return runtime_->Call(Op(op), in, attrs).value()[0];
  };
  // A slice of a permuted tensor, its size-1 dim dropped (attention's q, k,
  // v out of one qkv projection).
  Tensor p = call("permute", {x}, {Attr({1, 0, 2})});                  // [3, 2, 4]
  Tensor s = call("slice", {p}, {Attr(int64_t{0}), Attr(int64_t{1}), Attr(int64_t{2}),
                                 Attr(int64_t{1})});                    // [1, 2, 4]
  Tensor q = call("reshape", {s}, {Attr({2, 4})});
  EXPECT_EQ(&q.storage(), &x.storage());
  std::vector<float> want;
  for (int i = 0; i < 2; ++i) {
    for (int k = 0; k < 4; ++k) want.push_back(v[i * 12 + 1 * 4 + k]);
  }
  EXPECT_EQ(ReadF32(*runtime_, q), want);
  // Splitting a dim of a transposed tensor, and adding size-1 dims.
  Tensor t = call("transpose", {call("reshape", {x}, {Attr({6, 4})})},
                  {Attr(int64_t{0}), Attr(int64_t{1})});                // [4, 6]
  Tensor split = call("reshape", {t}, {Attr({1, 4, 2, 1, 3})});
  EXPECT_EQ(&split.storage(), &x.storage());
  EXPECT_EQ(ReadF32(*runtime_, split), ReadF32(*runtime_, t));
  // Merging the transposed dims needs a copy; the values are t's, in order.
  Tensor flat = call("reshape", {t}, {Attr({24})});
  EXPECT_NE(&flat.storage(), &x.storage());
  EXPECT_EQ(ReadF32(*runtime_, flat), ReadF32(*runtime_, t));
  // An empty tensor reshapes as a view whatever its strides.
  Tensor none = call("slice", {t}, {Attr(int64_t{1}), Attr(int64_t{2}), Attr(int64_t{2}),
                                    Attr(int64_t{1})});                 // [4, 0]
  Tensor none2 = call("reshape", {none}, {Attr({0, 8})});
  EXPECT_EQ(&none2.storage(), &x.storage());
}

TEST_F(DispatchTest, CallOutWritesIntoGivenTensor) {
  Tensor a = MakeF32(*runtime_, *cpu_, {2}, {1, 2});
  Tensor out = runtime_->Empty(*cpu_, SY_DTYPE_F32, {2}).value();
  ASSERT_TRUE(runtime_->CallOut(Op("add"), {a, a}, {}, {out}).ok());
  EXPECT_EQ(ReadF32(*runtime_, out), (std::vector<float>{2, 4}));
  // Via a decomposition, too.
  ASSERT_TRUE(runtime_->CallOut(Op("square"), {a}, {}, {out}).ok());
  EXPECT_EQ(ReadF32(*runtime_, out), (std::vector<float>{1, 4}));
}

TEST_F(DispatchTest, BadInputsGetExactErrorsAndStateSurvives) {
  Tensor a = MakeF32(*runtime_, *cpu_, {2, 3}, RandomFloats(6, 3));
  Tensor b = MakeF32(*runtime_, *cpu_, {4}, RandomFloats(4, 4));
  EXPECT_EQ(CallError("add", {a}).message(),
            "add.Tensor: expects 2 input tensor(s) (a, b) but got 1");
  EXPECT_EQ(CallError("add", {a, Tensor()}).message(),
            "add.Tensor: argument 'b' is an undefined tensor; pass a tensor "
            "(the argument is required)");
  EXPECT_EQ(CallError("sum", {a}, {Attr(1.5)}).message(),
            "sum: attribute 'dims' must be int[], got a float");
  EXPECT_EQ(CallError("sum", {a}, {Attr({0}), true, 3}).message(),
            "sum: takes 2 attribute(s) (dims, keepdim) but got 3");
  EXPECT_EQ(CallError("transpose", {a}).message(),
            "transpose: attribute 'dim0' (int) is required; pass it after the "
            "0 given");
  absl::Status broadcast = CallError("add", {a, b});
  EXPECT_EQ(broadcast.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(broadcast.message(), "add.Tensor: ")) << broadcast;
  EXPECT_EQ(runtime_->Call(OpHandle(), {a}).status().message(),
            "op handle is empty; get one from FindOp");
  EXPECT_EQ(runtime_->FindOp("addd").status().message(),
            "no op named 'addd'; did you mean add.Tensor, add.Scalar? "
            "(`switchyard ops` lists every op)");

  Tensor wrong = runtime_->Empty(*cpu_, SY_DTYPE_F32, {3, 2}).value();
  EXPECT_EQ(runtime_->CallOut(Op("add"), {a, a}, {}, {wrong}).message(),
            "add.Tensor: output #0 is f32[3, 2] on cpu:0 but the op produces "
            "f32[2, 3] on cpu:0; pass a tensor of exactly that dtype, shape "
            "and device");
  EXPECT_EQ(runtime_->CallOut(Op("add"), {a, a}, {}, {a}).message(),
            "add.Tensor: output #0 shares storage with an input; outputs must "
            "not alias inputs — pass a separate tensor");
  // Nothing above disturbed the runtime.
  testing::ExpectCpuAddWorks(*runtime_);
}

TEST_F(DispatchTest, HostTransferErrors) {
  EXPECT_EQ(runtime_->FromHost(*cpu_, SY_DTYPE_F32, {2}, nullptr, 4).status().message(),
            "FromHost: f32[2] on cpu:0 needs 8 bytes of host data but 4 were given");
  EXPECT_EQ(runtime_->Empty(*cpu_, SY_DTYPE_F32, {-1}).status().message(),
            "cannot create a tensor of shape [-1]: dimensions must be >= 0");
  EXPECT_EQ(runtime_->GetDevice("tpu").status().message(),
            "no device 'tpu'; devices present: cpu:0");
  Tensor a = MakeF32(*runtime_, *cpu_, {2}, {1, 2});
  float small[1];
  EXPECT_EQ(runtime_->ToHost(a, small, 4).message(),
            "ToHost: f32[2] on cpu:0 has 8 bytes but the destination holds 4");
}

}  // namespace
}  // namespace sy::core
