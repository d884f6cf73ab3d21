// Tests of the harness itself: that what it builds on is sound (dtype
// rounding, byte conversion, comparison) and that it notices a backend that
// is wrong or incomplete — a harness that cannot fail proves nothing.
#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>

#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"
#include "sdk/conformance/harness/case_runner.h"
#include "sdk/conformance/harness/dtypes.h"
#include "sdk/conformance/harness/harness.h"
#include "sdk/conformance/harness/op_specs.h"
#include "sdk/conformance/harness/random_inputs.h"
#include "sdk/conformance/harness/runtime_backend.h"
#include "sdk/conformance/harness/tolerance.h"

namespace sy::op_harness {
namespace {

std::unique_ptr<BackendUnderTest> CpuBackend() {
  RuntimeBackendOptions options;
  options.plugin_paths = {std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json"};
  Result<std::unique_ptr<BackendUnderTest>> backend = CreateRuntimeBackend(options);
  EXPECT_TRUE(backend.ok()) << backend.status().message;
  return backend.ok() ? std::move(*backend) : nullptr;
}

// Forwards everything to another backend; subclasses break one thing.
class Decorator : public BackendUnderTest {
 public:
  explicit Decorator(BackendUnderTest& inner) : inner_(inner) {}
  std::string DeviceLabel() const override { return inner_.DeviceLabel(); }
  uint32_t FloatFlags() const override { return inner_.FloatFlags(); }
  Result<DeviceTensor> Upload(const RefTensor& host) override { return inner_.Upload(host); }
  Result<RefTensor> Download(const DeviceTensor& t) override { return inner_.Download(t); }
  Result<std::vector<DeviceTensor>> Call(std::string_view op,
                                         std::span<const DeviceTensor> inputs,
                                         std::span<const AttrValue> attrs,
                                         std::span<const int32_t> list_sizes,
                                         CallMode mode) override {
    return inner_.Call(op, inputs, attrs, list_sizes, mode);
  }

 protected:
  BackendUnderTest& inner_;
};

// Changes one element of every result read back (the middle one).
class CorruptOneElement : public Decorator {
 public:
  using Decorator::Decorator;
  Result<RefTensor> Download(const DeviceTensor& t) override {
    Result<RefTensor> got = inner_.Download(t);
    if (got.ok() && got->numel() > 0) {
      double& v = got->values[got->values.size() / 2];
      v = got->dtype == SY_DTYPE_BOOL ? 1 - v : v + 1;
    }
    return got;
  }
};

// Reports the result with another dtype.
class WrongDtype : public Decorator {
 public:
  using Decorator::Decorator;
  Result<RefTensor> Download(const DeviceTensor& t) override {
    Result<RefTensor> got = inner_.Download(t);
    if (got.ok()) got->dtype = got->dtype == SY_DTYPE_F64 ? SY_DTYPE_F32 : SY_DTYPE_F64;
    return got;
  }
};

// Has no kernels at all: every non-view call is UNIMPLEMENTED.
class NoKernels : public Decorator {
 public:
  using Decorator::Decorator;
  Result<std::vector<DeviceTensor>> Call(std::string_view op,
                                         std::span<const DeviceTensor> inputs,
                                         std::span<const AttrValue> attrs,
                                         std::span<const int32_t> list_sizes,
                                         CallMode mode) override {
    if (op == "permute" || op == "slice" || op == "expand") {
      return inner_.Call(op, inputs, attrs, list_sizes, mode);
    }
    return Status::Error(SY_STATUS_UNIMPLEMENTED, "no kernel for " + std::string(op));
  }
};

// A device whose f32 arithmetic flushes subnormal results (flush-to-zero
// without denormals-are-zero): results read back with every f32 subnormal
// flushed.
// `declares` says whether it says so in its float_flags.
class FlushesF32Subnormals : public Decorator {
 public:
  FlushesF32Subnormals(BackendUnderTest& inner, bool declares)
      : Decorator(inner), declares_(declares) {}
  uint32_t FloatFlags() const override {
    return declares_ ? SY_FLOAT_FLUSHES_F32_SUBNORMALS : 0u;
  }
  Result<RefTensor> Download(const DeviceTensor& t) override {
    Result<RefTensor> got = inner_.Download(t);
    if (got.ok()) *got = FlushSubnormals(*std::move(got), SY_FLOAT_FLUSHES_F32_SUBNORMALS);
    return got;
  }

 private:
  bool declares_;
};

const OpTest& FindTest(const std::vector<OpTest>& all, const std::string& family,
                       const std::string& name) {
  for (const OpTest& t : all) {
    if (t.family == family && t.TestName() == name) return t;
  }
  ADD_FAILURE() << "no test " << family << "." << name;
  return all.front();
}

// Every run of every case of a few tests, through `backend`; the outcomes.
std::vector<RunReport> RunAll(BackendUnderTest& backend, const OpTest& test) {
  std::vector<RunReport> reports;
  const std::vector<OpCase> cases = test.cases();
  for (size_t c = 0; c < cases.size(); ++c) {
    for (const LayoutRun& run : LayoutRunsFor(cases[c])) {
      reports.push_back(RunCase(backend, test, cases[c], run, MixSeed(7, test.op, c, 0)));
    }
  }
  return reports;
}

const char* const kSampleTests[][2] = {
    {"Binary", "add_Tensor/f32"}, {"Reduce", "sum/f64"},
    {"Linalg", "matmul/f32"},     {"Compare", "lt_Tensor/i32"},
    {"Layout", "concat/f16"},     {"Unary", "exp/bf16"}};

TEST(HarnessSelfTest, CorrectBackendPasses) {
  std::unique_ptr<BackendUnderTest> cpu = CpuBackend();
  ASSERT_NE(cpu, nullptr);
  const std::vector<OpTest> all = AllOpTests();
  for (const auto& [family, name] : kSampleTests) {
    for (const RunReport& r : RunAll(*cpu, FindTest(all, family, name))) {
      EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
    }
  }
}

TEST(HarnessSelfTest, OneWrongElementFails) {
  std::unique_ptr<BackendUnderTest> cpu = CpuBackend();
  ASSERT_NE(cpu, nullptr);
  CorruptOneElement corrupt(*cpu);
  const std::vector<OpTest> all = AllOpTests();
  for (const auto& [family, name] : kSampleTests) {
    int failed = 0;
    for (const RunReport& r : RunAll(corrupt, FindTest(all, family, name))) {
      // Empty results have nothing to corrupt, and NaN + 1 is still NaN.
      if (r.outcome == Outcome::kPass) continue;
      ++failed;
      EXPECT_EQ(r.outcome, Outcome::kFail);
      EXPECT_NE(r.message.find("got"), std::string::npos) << r.message;
    }
    EXPECT_GT(failed, 0) << family << "." << name;
  }
}

TEST(HarnessSelfTest, WrongDtypeFails) {
  std::unique_ptr<BackendUnderTest> cpu = CpuBackend();
  ASSERT_NE(cpu, nullptr);
  WrongDtype wrong(*cpu);
  const std::vector<OpTest> all = AllOpTests();
  for (const RunReport& r : RunAll(wrong, FindTest(all, "Binary", "mul_Tensor/f32"))) {
    EXPECT_EQ(r.outcome, Outcome::kFail);
    EXPECT_NE(r.message.find("but the spec gives"), std::string::npos) << r.message;
  }
}

TEST(HarnessSelfTest, MissingKernelsAreReportedAsMissing) {
  std::unique_ptr<BackendUnderTest> cpu = CpuBackend();
  ASSERT_NE(cpu, nullptr);
  NoKernels none(*cpu);
  const std::vector<OpTest> all = AllOpTests();
  for (const RunReport& r : RunAll(none, FindTest(all, "Unary", "exp/f32"))) {
    EXPECT_EQ(r.outcome, Outcome::kMissing) << r.message;
    EXPECT_NE(r.message.find("UNIMPLEMENTED"), std::string::npos) << r.message;
  }
}

// What RunOpTest reports into the current test, captured.
std::vector<testing::TestPartResult> Reported(BackendUnderTest& backend,
                                              const OpTest& test, bool strict) {
  testing::TestPartResultArray results;
  {
    testing::ScopedFakeTestPartResultReporter reporter(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
        &results);
    HarnessOptions options;
    options.require_every_kernel = strict;
    RunOpTest(backend, test, options);
  }
  std::vector<testing::TestPartResult> out;
  for (int i = 0; i < results.size(); ++i) out.push_back(results.GetTestPartResult(i));
  return out;
}

TEST(HarnessSelfTest, MissingKernelPolicy) {
  std::unique_ptr<BackendUnderTest> cpu = CpuBackend();
  ASSERT_NE(cpu, nullptr);
  NoKernels none(*cpu);
  const std::vector<OpTest> all = AllOpTests();
  const OpTest& test = FindTest(all, "Unary", "exp/f32");

  // require_every_kernel: one failure naming the missing kernel.
  std::vector<testing::TestPartResult> strict = Reported(none, test, true);
  ASSERT_EQ(strict.size(), 1u);
  EXPECT_TRUE(strict[0].failed());
  EXPECT_NE(std::string(strict[0].message()).find("found no kernel"), std::string::npos)
      << strict[0].message();

  // Otherwise: the test is skipped, with the reason.
  std::vector<testing::TestPartResult> lenient = Reported(none, test, false);
  ASSERT_EQ(lenient.size(), 1u);
  EXPECT_TRUE(lenient[0].skipped());
  EXPECT_NE(std::string(lenient[0].message()).find("not provided by this backend"),
            std::string::npos)
      << lenient[0].message();

  // And a backend that has the kernels reports nothing.
  EXPECT_TRUE(Reported(*cpu, test, true).empty());
}

TEST(HarnessSelfTest, BytesRoundTripInEveryDtype) {
  std::mt19937_64 rng(11);
  for (sy_dtype_t dtype : kAllDtypes) {
    const RefTensor t = RandomTensor(dtype, {4, 33}, Domain::kGeneral, {}, rng);
    const RefTensor back = FromBytes(dtype, t.shape, ToBytes(t));
    ASSERT_EQ(back.values.size(), t.values.size());
    for (size_t i = 0; i < t.values.size(); ++i) {
      EXPECT_EQ(back.values[i], t.values[i]) << DtypeName(dtype) << " at " << i;
    }
    for (double v : EdgeValues(dtype, EdgeSet::kExtreme)) {
      EXPECT_TRUE(RoundTo(dtype, v) == v || std::isnan(v)) << DtypeName(dtype) << " " << v;
    }
  }
}

TEST(HarnessSelfTest, RoundingIsIdempotentAndMonotonic) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> dist(-70000, 70000);
  for (sy_dtype_t dtype : kAllDtypes) {
    double previous_in = -INFINITY, previous_out = -INFINITY;
    std::vector<double> xs(2000);
    for (double& x : xs) x = dist(rng);
    std::sort(xs.begin(), xs.end());
    for (double x : xs) {
      const double r = RoundTo(dtype, x);
      EXPECT_EQ(RoundTo(dtype, r), r) << DtypeName(dtype) << " " << x;
      if (IsFloating(dtype)) {
        EXPECT_GE(r, previous_out) << DtypeName(dtype) << " " << previous_in << " " << x;
        if (std::isfinite(r)) {
          EXPECT_LE(std::fabs(r - x), std::fabs(x) * Epsilon(dtype)) << DtypeName(dtype) << " " << x;
        }
      }
      previous_in = x;
      previous_out = r;
    }
  }
}

TEST(HarnessSelfTest, PromotionIsSymmetricAndFollowsCategories) {
  for (sy_dtype_t a : kAllDtypes) {
    EXPECT_EQ(Promote(a, a), a);
    for (sy_dtype_t b : kAllDtypes) {
      const sy_dtype_t p = Promote(a, b);
      EXPECT_EQ(p, Promote(b, a));
      if (IsFloating(a) || IsFloating(b)) {
        EXPECT_TRUE(IsFloating(p));
      }
      // The result holds both operands' sizes (except f16 with bf16, whose
      // answer f32 is larger still).
      EXPECT_GE(DtypeSize(p), std::min(DtypeSize(a), DtypeSize(b)));
    }
  }
}

TEST(HarnessSelfTest, ComparisonRules) {
  const Tolerance tol{1e-6, 0, 0};
  auto compare = [&](double got, double expected, sy_dtype_t dtype = SY_DTYPE_F32) {
    RefResult e{RefTensor{dtype, {1}, {expected}}, {}};
    return CompareValues(RefTensor{dtype, {1}, {got}}, e, tol).ok();
  };
  EXPECT_TRUE(compare(NAN, NAN));
  EXPECT_FALSE(compare(NAN, 1));
  EXPECT_FALSE(compare(1, NAN));
  EXPECT_TRUE(compare(INFINITY, INFINITY));
  EXPECT_FALSE(compare(-INFINITY, INFINITY));
  EXPECT_FALSE(compare(3.4e38, INFINITY));
  EXPECT_TRUE(compare(-0.0, 0.0));
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> dist(-100, 100);
  for (int i = 0; i < 1000; ++i) {
    const double x = dist(rng);
    EXPECT_TRUE(compare(x * (1 + 0.9e-6), x));
    EXPECT_FALSE(compare(x * (1 + 1.1e-6), x));
  }
  EXPECT_FALSE(compare(3, 4, SY_DTYPE_I64));
  EXPECT_FALSE(compare(2, 1, SY_DTYPE_BOOL));  // a bool byte must be 0 or 1
}

TEST(HarnessSelfTest, FlushedSubnormalsPassOnlyOnADeviceThatDeclaresThem) {
  std::unique_ptr<BackendUnderTest> cpu = CpuBackend();
  ASSERT_NE(cpu, nullptr);
  const std::vector<OpTest> all = AllOpTests();
  const OpTest& add = FindTest(all, "Binary", "add_Tensor/f32");
  // The edge-value cases hold subnormals: flushing them is wrong on a
  // device that does not declare it…
  FlushesF32Subnormals silent(*cpu, /*declares=*/false);
  const std::vector<RunReport> undeclared = RunAll(silent, add);
  EXPECT_TRUE(std::any_of(undeclared.begin(), undeclared.end(), [](const RunReport& r) {
    return r.outcome == Outcome::kFail;
  }));
  // …and what flushing gives, element by element, on one that does.
  FlushesF32Subnormals declared(*cpu, /*declares=*/true);
  for (const RunReport& r : RunAll(declared, add)) {
    EXPECT_EQ(r.outcome, Outcome::kPass) << r.message;
  }
  // Declaring does not excuse anything else.
  CorruptOneElement corrupt(declared);
  const std::vector<RunReport> wrong = RunAll(corrupt, add);
  EXPECT_TRUE(std::any_of(wrong.begin(), wrong.end(), [](const RunReport& r) {
    return r.outcome == Outcome::kFail &&
           r.message.find("the flushed reference disagrees too") != std::string::npos;
  }));
}

TEST(HarnessSelfTest, FlushSubnormalsKeepsSignsAndOtherDtypes) {
  const double sub32 = MinSubnormal(SY_DTYPE_F32);
  RefTensor f32 = RefTensor::Make(SY_DTYPE_F32, {5}, {sub32, -sub32, 0.0, 1.0, MinNormal(SY_DTYPE_F32)});
  const RefTensor flushed = FlushSubnormals(f32, SY_FLOAT_FLUSHES_F32_SUBNORMALS);
  EXPECT_EQ(flushed.values[0], 0.0);
  EXPECT_TRUE(std::signbit(flushed.values[1]) && flushed.values[1] == 0.0);
  EXPECT_EQ(flushed.values[3], 1.0);
  EXPECT_EQ(flushed.values[4], MinNormal(SY_DTYPE_F32));
  // f64 keeps its subnormals under the f32 flag; f16 only under its own.
  const RefTensor f64 = RefTensor::Make(SY_DTYPE_F64, {1}, {MinSubnormal(SY_DTYPE_F64)});
  EXPECT_EQ(FlushSubnormals(f64, SY_FLOAT_FLUSHES_F32_SUBNORMALS).values[0],
            MinSubnormal(SY_DTYPE_F64));
  const RefTensor f16 = RefTensor::Make(SY_DTYPE_F16, {1}, {MinSubnormal(SY_DTYPE_F16)});
  EXPECT_EQ(FlushSubnormals(f16, SY_FLOAT_FLUSHES_F32_SUBNORMALS).values[0],
            MinSubnormal(SY_DTYPE_F16));
  EXPECT_EQ(FlushSubnormals(f16, SY_FLOAT_FLUSHES_F16_SUBNORMALS).values[0], 0.0);
}

}  // namespace
}  // namespace sy::op_harness
