// matmul with NumPy semantics (1-D operands, broadcast batch dims), strided
// operands and shapes that cross every blocking edge, for each micro-kernel
// this machine can run; plus bad calls.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_fixture.h"

namespace sy::testing {
namespace {

// The micro-kernel the plugin should pick when capped at `isa`.
std::string ExpectedIsa(const std::string& isa) {
#if defined(__x86_64__) || defined(__i386__)
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f");
  if (isa != "generic" && isa != "avx2" && avx512) return "avx512";
  if (isa != "generic" && avx2) return "avx2";
#endif
  return "generic";
}

// Loads the plugin with SWITCHYARD_CPU_ISA set to the test's ISA.
class MatmulFixture : public CpuPluginTest {
 protected:
  void LoadWithIsa(const std::string& isa) {
    setenv("SWITCHYARD_CPU_ISA", isa.c_str(), 1);
    CpuPluginTest::SetUp();
    unsetenv("SWITCHYARD_CPU_ISA");
    ASSERT_NE(host_, nullptr);
    EXPECT_THAT(host_->log(),
                ::testing::Contains("2 [plugin] matmul uses the " +
                                    ExpectedIsa(isa) + " micro-kernel"));
  }
};

struct MatmulCase {
  std::vector<int64_t> a, b, out;
};

const MatmulCase kCases[] = {
    {{3}, {3}, {}},
    {{3}, {3, 4}, {4}},
    {{2, 3}, {3}, {2}},
    {{5, 7}, {7, 9}, {5, 9}},
    {{13, 17}, {17, 33}, {13, 33}},
    {{0, 3}, {3, 4}, {0, 4}},
    {{3, 0}, {0, 4}, {3, 4}},
    {{2, 3}, {3, 0}, {2, 0}},
    {{0}, {0}, {}},
    {{2, 5, 7}, {7, 3}, {2, 5, 3}},
    {{7}, {2, 7, 3}, {2, 3}},
    {{2, 4, 7}, {7}, {2, 4}},
    {{2, 1, 4, 5}, {3, 5, 6}, {2, 3, 4, 6}},
    {{1, 4, 5}, {3, 5, 6}, {3, 4, 6}},
    {{0, 4, 5}, {1, 5, 6}, {0, 4, 6}},   // 0 against 1 gives 0
    {{150, 300}, {300, 40}, {150, 40}},  // crosses MC and KC
    {{7, 300}, {300, 2100}, {7, 2100}},  // crosses NC
    {{1, 1}, {1, 1}, {1, 1}},
};

void PrintTo(const MatmulCase& c, std::ostream* os) {
  *os << ShapeString(c.a) << " @ " << ShapeString(c.b);
}

using MatmulParam = std::tuple<std::string, MatmulCase, int>;

// Layout combination k: 0 all contiguous; 1 a transposed; 2 b transposed,
// output padded; 3 everything padded; 4 output transposed, a padded.
Layout LayoutOf(int combo, int operand) {
  static constexpr Layout C = Layout::kContiguous, T = Layout::kTransposed,
                          P = Layout::kPadded;
  static constexpr Layout kTable[5][3] = {
      {C, C, C}, {T, C, C}, {C, T, P}, {P, P, P}, {P, C, T}};
  return kTable[combo][operand];
}

class MatmulTest : public MatmulFixture,
                   public ::testing::WithParamInterface<MatmulParam> {
 protected:
  void SetUp() override { LoadWithIsa(std::get<0>(GetParam())); }
};

TEST_P(MatmulTest, MatchesFloat64Reference) {
  const auto& [isa, c, combo] = GetParam();
  const TestTensor a = TestTensor::Random(c.a, 5, LayoutOf(combo, 0));
  const TestTensor b = TestTensor::Random(c.b, 6, LayoutOf(combo, 1));
  TestTensor out = TestTensor::Make(c.out, LayoutOf(combo, 2));
  const Status status = Run("matmul", {a.view(), b.view()}, out.view());
  ASSERT_TRUE(status.ok()) << status.message;

  const bool a1 = c.a.size() == 1, b1 = c.b.size() == 1;
  const int64_t k = c.a.back();
  const size_t batch = c.out.size() - (a1 ? 0 : 1) - (b1 ? 0 : 1);
  ForEachIndex(c.out, [&](std::span<const int64_t> i) {
    const int64_t row = a1 ? 0 : i[batch];
    const int64_t col = b1 ? 0 : i[c.out.size() - 1];
    // Index a and b: their batch dims align right with the output's; a
    // size-1 dim reads index 0. Returns where the k index goes.
    auto index = [&](const std::vector<int64_t>& shape, bool is_a,
                     std::vector<int64_t>* idx) -> size_t {
      idx->assign(shape.size(), 0);
      if (shape.size() == 1) return 0;
      const size_t nb = shape.size() - 2;
      for (size_t d = 0; d < nb; ++d) {
        (*idx)[d] = shape[d] == 1 ? 0 : i[batch - nb + d];
      }
      (*idx)[is_a ? nb : nb + 1] = is_a ? row : col;
      return is_a ? nb + 1 : nb;
    };
    std::vector<int64_t> ia, ib;
    const size_t ka = index(c.a, true, &ia), kb = index(c.b, false, &ib);
    double want = 0.0, scale = 0.0;
    for (int64_t kk = 0; kk < k; ++kk) {
      ia[ka] = kk;
      ib[kb] = kk;
      const double p = double(a.at(ia)) * b.at(ib);
      want += p;
      scale += std::fabs(p);
    }
    ASSERT_TRUE(Near(out.at(i), want, 1e-4, scale)) << ShapeString(i);
  });
  EXPECT_TRUE(out.OutsideUntouched());
}

std::string MatmulName(const ::testing::TestParamInfo<MatmulParam>& p) {
  const auto& [isa, c, combo] = p.param;
  std::string name = isa + "_a";
  for (int64_t d : c.a) name += std::to_string(d) + "x";
  name += "_b";
  for (int64_t d : c.b) name += std::to_string(d) + "x";
  return name + "_layout" + std::to_string(combo);
}

INSTANTIATE_TEST_SUITE_P(
    Cpu, MatmulTest,
    ::testing::Combine(::testing::Values("generic", "avx2", "avx512"),
                       ::testing::ValuesIn(kCases), ::testing::Range(0, 5)),
    MatmulName);

class MatmulErrorTest : public MatmulFixture {
 protected:
  void SetUp() override { LoadWithIsa(""); }
};

TEST_F(MatmulErrorTest, RejectsMismatchedContractionDims) {
  const TestTensor a = TestTensor::Random({2, 3}, 1);
  const TestTensor b = TestTensor::Random({4, 5}, 2);
  TestTensor out = TestTensor::Make({2, 5});
  Status status = Run("matmul", {a.view(), b.view()}, out.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: matmul: input 'a' has shape [2, 3] and input 'b' has "
            "shape [4, 5]: a's last dim (3) must equal b's second-to-last dim "
            "(4); transpose or reshape one of them");
  const TestTensor v = TestTensor::Random({4}, 3);
  TestTensor out2 = TestTensor::Make({2});
  status = Run("matmul", {a.view(), v.view()}, out2.view());
  EXPECT_EQ(status.message,
            "cpu plugin: matmul: input 'a' has shape [2, 3] and input 'b' has "
            "shape [4]: a's last dim (3) must equal b's only dim (4); "
            "transpose or reshape one of them");
}

TEST_F(MatmulErrorTest, RejectsBatchDimsThatDoNotBroadcast) {
  const TestTensor a = TestTensor::Random({2, 4, 3}, 1);
  const TestTensor b = TestTensor::Random({3, 3, 5}, 2);
  TestTensor out = TestTensor::Make({3, 4, 5});
  const Status status = Run("matmul", {a.view(), b.view()}, out.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: matmul: the batch dims of input 'a' [2] and input "
            "'b' [3] do not broadcast (2 vs 3); batch dims must be equal or 1");
}

TEST_F(MatmulErrorTest, RejectsScalarsAndWrongOutputs) {
  const TestTensor s = TestTensor::Random({}, 1);
  const TestTensor a = TestTensor::Random({2, 3}, 1);
  const TestTensor b = TestTensor::Random({3, 5}, 2);
  TestTensor out = TestTensor::Make({2, 5});
  Status status = Run("matmul", {a.view(), s.view()}, out.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: matmul: input 'b' is a scalar (rank 0); matmul needs "
            "rank >= 1 (use mul.Tensor to scale by a scalar)");
  TestTensor wrong = TestTensor::Make({5, 2});
  status = Run("matmul", {a.view(), b.view()}, wrong.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: matmul: output has shape [5, 2] but matmul of input "
            "'a' [2, 3] and input 'b' [3, 5] gives [2, 5]; allocate the output "
            "from matmul's shape function");
  EXPECT_TRUE(wrong.OutsideUntouched());
}

}  // namespace
}  // namespace sy::testing
