// Call plans (Note [Call plans] in dispatch/call_plan.h): a repeated call
// runs from its plan, and a plan never outlives what it was made from —
// pins, tuned verdicts, declines per bucket, plugin unloads, captures — nor
// serves a call whose arguments differ in any way. Every case calls twice
// or more, so the later calls take the planned path.
#include <cmath>
#include <string>
#include <vector>

#include "dispatcher/dispatch/call_plan.h"
#include "dispatcher/dispatch/capture.h"
#include "dispatcher/registry/kernel_table.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_util.h"

namespace sy::testing {
namespace {

class CallPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime_ = MakeRuntime({TestPlugin("test_good")});
    ASSERT_NE(runtime_, nullptr);
    cpu_ = runtime_->GetDevice("cpu").value();
  }
  OpHandle Op(const char* name) { return runtime_->FindOp(name).value(); }
  std::vector<float> Run(const char* op, std::vector<Tensor> inputs,
                         std::vector<Attr> attrs = {}) {
    auto out = runtime_->Call(Op(op), inputs, attrs);
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? ReadF32(*runtime_, (*out)[0]) : std::vector<float>{};
  }
  std::unique_ptr<Runtime> runtime_;
  Device* cpu_ = nullptr;
};

// a + alpha * b in float64 over a [rows, cols] output, each operand read
// through the given (row, column) strides: 0 where it is broadcast.
std::vector<double> AddReference(const std::vector<float>& a, std::vector<int64_t> as,
                                 const std::vector<float>& b, std::vector<int64_t> bs,
                                 std::vector<int64_t> out, double alpha) {
  std::vector<double> result(static_cast<size_t>(out[0] * out[1]));
  for (int64_t i = 0; i < out[0]; ++i) {
    for (int64_t j = 0; j < out[1]; ++j) {
      const double x = a[static_cast<size_t>(i * as[0] + j * as[1])];
      const double y = b[static_cast<size_t>(i * bs[0] + j * bs[1])];
      result[static_cast<size_t>(i * out[1] + j)] = x + alpha * y;
    }
  }
  return result;
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-6 * (1 + std::abs(want[i]))) << "element " << i;
  }
}

TEST_F(CallPlanTest, CallsThatDifferInAnyArgumentDoNotShareAPlan) {
  const std::vector<float> a = RandomFloats(20, 1), b = RandomFloats(20, 2);
  const std::vector<float> col = RandomFloats(4, 3), row = RandomFloats(5, 4);
  const Tensor a45 = MakeF32(*runtime_, *cpu_, {4, 5}, a);
  const Tensor b45 = MakeF32(*runtime_, *cpu_, {4, 5}, b);
  const Tensor c41 = MakeF32(*runtime_, *cpu_, {4, 1}, col);
  const Tensor r15 = MakeF32(*runtime_, *cpu_, {1, 5}, row);
  // b read transposed: a [5, 4] tensor viewed as [4, 5] with strides (1, 4).
  const Tensor b54 = MakeF32(*runtime_, *cpu_, {5, 4}, b);
  const Tensor bt = runtime_->Call(Op("transpose"), {b54}, {Attr(int64_t{0}), Attr(int64_t{1})})
                        .value()[0];
  const uint64_t planned_before = PlannedCallsOnThisThread();
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    ExpectNear(Run("add", {a45, b45}), AddReference(a, {5, 1}, b, {5, 1}, {4, 5}, 1));
    ExpectNear(Run("add.Scalar", {a45}, {Attr(2.5)}),
               AddReference(a, {5, 1}, {1}, {0, 0}, {4, 5}, 2.5));
    ExpectNear(Run("add.Scalar", {a45}, {Attr(int64_t{-3})}),
               AddReference(a, {5, 1}, {1}, {0, 0}, {4, 5}, -3));
    // An int list attribute, read from the caller's memory on every call.
    for (int64_t k = 0; k < 4; ++k) {
      const int64_t dim = k / 2;
      const std::vector<int64_t> dims = {dim};
      const std::vector<float> got = Run("sum", {a45}, {Attr(dims)});
      std::vector<double> want(dim == 0 ? 5 : 4, 0.0);
      for (int64_t i = 0; i < 4; ++i) {
        for (int64_t j = 0; j < 5; ++j) want[dim == 0 ? j : i] += a[i * 5 + j];
      }
      ExpectNear(got, want);
    }
    ExpectNear(Run("add", {c41, r15}), AddReference(col, {1, 0}, row, {0, 1}, {4, 5}, 1));
    ExpectNear(Run("add", {a45, r15}), AddReference(a, {5, 1}, row, {0, 1}, {4, 5}, 1));
    ExpectNear(Run("add", {a45, bt}), AddReference(a, {5, 1}, b, {1, 4}, {4, 5}, 1));
    ExpectNear(Run("add", {r15, c41}), AddReference(row, {0, 1}, col, {1, 0}, {4, 5}, 1));
  }
  // Each kind of call changes the plan of add, add.Scalar or sum; only the
  // second of each pair of sums (same dims, another vector) runs from one.
  EXPECT_EQ(PlannedCallsOnThisThread() - planned_before, 6u);
  // Another dtype: a plan for f32 does not serve f64.
  const std::vector<double> d = {1.25, -2.5, 3.0};
  const Tensor x64 =
      runtime_->FromHost(*cpu_, SY_DTYPE_F64, {3}, d.data(), d.size() * 8).value();
  for (int round = 0; round < 2; ++round) {
    Tensor y = runtime_->Call(Op("add"), {x64, x64}).value()[0];
    ASSERT_EQ(y.dtype(), SY_DTYPE_F64);
    std::vector<double> got(3);
    ASSERT_TRUE(runtime_->ToHost(y, got.data(), 24).ok());
    EXPECT_EQ(got, (std::vector<double>{2.5, -5.0, 6.0}));
  }
}

TEST_F(CallPlanTest, PlansFollowPinsAndTunedVerdicts) {
  const Tensor x = MakeF32(*runtime_, *cpu_, {2}, {1, 2});
  const uint64_t planned = PlannedCallsOnThisThread();
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{2, 4}));
  EXPECT_EQ(PlannedCallsOnThisThread(), planned + 1) << "the second call is planned";
  ASSERT_TRUE(runtime_->PinKernel("add", "cpu", "test_good::add_marker").ok());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{42, 42}));
  ASSERT_TRUE(runtime_->UnpinKernel("add", "cpu").ok());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{2, 4}));
  OpDef* add = Op("add").def();
  const DispatchKey key = MakeDispatchKey(cpu_->type().id(), {SY_DTYPE_F32, SY_DTYPE_F32});
  ASSERT_TRUE(runtime_->state().kernels.SetTunedChoice(add, key, std::nullopt, "add_marker", -1).ok());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{42, 42}));
  runtime_->state().kernels.ClearTunedChoices(add);
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Run("add", {x, x}), (std::vector<float>{2, 4}));
}

TEST_F(CallPlanTest, AnUnloadedPluginTakesItsPlansAlong) {
  const Tensor x = MakeF32(*runtime_, *cpu_, {3}, {-1, 0, 1});
  // test_good's relu (priority 10) writes 7.
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Run("relu", {x}), (std::vector<float>{7, 7, 7}));
  ASSERT_TRUE(runtime_->UnloadPlugin("test_good").ok());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Run("relu", {x}), (std::vector<float>{0, 0, 1}));
}

TEST_F(CallPlanTest, OutputErrorsAreTheSameWithAPlan) {
  const Tensor x = MakeF32(*runtime_, *cpu_, {2, 3}, RandomFloats(6, 5));
  const Tensor good = MakeF32(*runtime_, *cpu_, {2, 3}, std::vector<float>(6));
  const Tensor wrong_shape = MakeF32(*runtime_, *cpu_, {3, 2}, std::vector<float>(6));
  const std::vector<double> zeros(6);
  const Tensor wrong_dtype =
      runtime_->FromHost(*cpu_, SY_DTYPE_F64, {2, 3}, zeros.data(), 48).value();
  const std::vector<Tensor> bad = {wrong_shape, wrong_dtype, x};  // x: aliases
  std::vector<std::string> unplanned;
  for (const Tensor& out : bad) {
    absl::Status s = runtime_->CallOut(Op("exp"), {x}, {}, {out});
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    unplanned.emplace_back(s.message());
  }
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(runtime_->CallOut(Op("exp"), {x}, {}, {good}).ok());
  for (size_t k = 0; k < bad.size(); ++k) {
    absl::Status s = runtime_->CallOut(Op("exp"), {x}, {}, {bad[k]});
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), unplanned[k]);
  }
  // Too many outputs, and none.
  absl::Status two = runtime_->CallOut(Op("exp"), {x}, {}, {good, good});
  EXPECT_EQ(two.message(), "exp: produces 1 output(s) but 2 were passed");
  // The good output still gets exp(x) after all that.
  ASSERT_TRUE(runtime_->CallOut(Op("exp"), {x}, {}, {good}).ok());
  const std::vector<float> in = ReadF32(*runtime_, x), got = ReadF32(*runtime_, good);
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_NEAR(got[i], std::exp(static_cast<double>(in[i])), 1e-6 * std::exp(in[i]));
  }
}

// A plan checks a caller's output against contiguous strides: a strided
// output takes the whole path (right values; a self-overlapping one gets
// the whole path's error), and a stride on a dim of size 1, which
// contiguity ignores, does not cost the plan.
TEST_F(CallPlanTest, OutputLayoutsAreCheckedTheSameWithAPlan) {
  const std::vector<float> values = RandomFloats(6, 7);
  const Tensor x = MakeF32(*runtime_, *cpu_, {2, 3}, values);
  const Tensor good = MakeF32(*runtime_, *cpu_, {2, 3}, std::vector<float>(6));
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(runtime_->CallOut(Op("exp"), {x}, {}, {good}).ok());
  const Tensor base = MakeF32(*runtime_, *cpu_, {6}, std::vector<float>(6));
  const Tensor transposed = Tensor::View(base, {2, 3}, {1, 2}, 0);
  const Tensor overlapping = Tensor::View(base, {2, 3}, {0, 1}, 0);
  uint64_t planned = PlannedCallsOnThisThread();
  ASSERT_TRUE(runtime_->CallOut(Op("exp"), {x}, {}, {transposed}).ok());
  EXPECT_EQ(PlannedCallsOnThisThread(), planned) << "a strided output takes the whole path";
  std::vector<double> want(6);
  for (size_t i = 0; i < 6; ++i) want[i] = std::exp(static_cast<double>(values[i]));
  ExpectNear(ReadF32(*runtime_, transposed), want);
  absl::Status overlap = runtime_->CallOut(Op("exp"), {x}, {}, {overlapping});
  EXPECT_EQ(overlap.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(overlap.message()),
              ::testing::HasSubstr("may reach one element from two indices"));

  const Tensor row = MakeF32(*runtime_, *cpu_, {1, 6}, values);
  const Tensor dense = MakeF32(*runtime_, *cpu_, {1, 6}, std::vector<float>(6));
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(runtime_->CallOut(Op("exp"), {row}, {}, {dense}).ok());
  const Tensor odd = Tensor::View(base, {1, 6}, {99, 1}, 0);  // contiguous all the same
  planned = PlannedCallsOnThisThread();
  ASSERT_TRUE(runtime_->CallOut(Op("exp"), {row}, {}, {odd}).ok());
  EXPECT_EQ(PlannedCallsOnThisThread(), planned + 1);
  ExpectNear(ReadF32(*runtime_, odd), want);
}

// Records calls and answers with symbolic outputs, as a graph capture does.
class Recorder : public CallInterceptor {
 public:
  absl::StatusOr<TensorList> Record(const BoundCall& bound, const Resolution&,
                                    absl::Span<const Tensor* const>) override {
    ++recorded;
    TensorList outputs;
    for (const sy_tensor_meta_t& meta : bound.outputs) {
      outputs.push_back(Tensor::Symbolic(*bound.device, meta));
    }
    return outputs;
  }
  int recorded = 0;
};

TEST_F(CallPlanTest, ACaptureRecordsCallsThatHaveAPlan) {
  const Tensor x = MakeF32(*runtime_, *cpu_, {4}, {1, 2, 3, 4});
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(runtime_->Call(Op("exp"), {x}).ok());
  Recorder recorder;
  {
    ScopedInterception capture(&recorder);
    for (int i = 0; i < 2; ++i) {
      std::vector<Tensor> y = runtime_->Call(Op("exp"), {x}).value();
      EXPECT_TRUE(y[0].symbolic());
    }
  }
  EXPECT_EQ(recorder.recorded, 2);
  EXPECT_FALSE(runtime_->Call(Op("exp"), {x}).value()[0].symbolic());
}

// test_v11's neg declines calls under 64 bucketed elements (abi11_test.cc).
TEST(CallPlanDeclines, PlansKeepEachBucketsKernel) {
  std::unique_ptr<Runtime> runtime = MakeRuntime({TestPlugin("test_v11")});
  ASSERT_NE(runtime, nullptr);
  Device& cpu = *runtime->GetDevice("cpu").value();
  const OpHandle neg = runtime->FindOp("neg").value();
  const OpHandle counts = runtime->FindOp("test_v11::counts").value();
  const Tensor one = MakeF32(*runtime, cpu, {1}, {0});
  auto plugin_calls = [&] {
    Tensor out = runtime->Call(counts, {one}).value()[0];
    std::vector<int64_t> c(5);
    EXPECT_TRUE(runtime->ToHost(out, c.data(), 40).ok());
    return c[1];
  };
  const Tensor small = MakeF32(*runtime, cpu, {16}, std::vector<float>(16, 2));
  const Tensor big = MakeF32(*runtime, cpu, {64}, std::vector<float>(64, 3));
  const int64_t before = plugin_calls();
  const uint64_t planned = PlannedCallsOnThisThread();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(ReadF32(*runtime, runtime->Call(neg, {small}).value()[0]),
                std::vector<float>(16, -2));
    }
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(ReadF32(*runtime, runtime->Call(neg, {big}).value()[0]),
                std::vector<float>(64, -3));
    }
  }
  EXPECT_EQ(PlannedCallsOnThisThread() - planned, 6u) << "each second call";
  EXPECT_EQ(plugin_calls(), before + 6) << "only the big calls reach the plugin";
}

}  // namespace
}  // namespace sy::testing
