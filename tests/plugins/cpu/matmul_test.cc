// matmul with NumPy semantics (1-D operands, broadcast batch dims), strided
// operands and shapes that cross every blocking edge, for every dtype and
// each micro-kernel this machine can run; products large enough to be split
// across threads; plus bad calls.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_fixture.h"
#include "linalg_test_util.h"

namespace sy::testing {
namespace {

const char* const kIsas[] = {"generic", "avx2", "avx512"};

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

// Loads the plugin with SWITCHYARD_CPU_ISA set to `isa`; can reload.
class MatmulFixture : public CpuPluginTest {
 public:
  void LoadWithIsa(const std::string& isa) {
    if (host_ != nullptr) TearDown();
    setenv("SWITCHYARD_CPU_ISA", isa.c_str(), 1);
    CpuPluginTest::SetUp();
    unsetenv("SWITCHYARD_CPU_ISA");
    ASSERT_NE(host_, nullptr);
    EXPECT_THAT(host_->log(),
                ::testing::Contains("2 [plugin] matmul uses the " +
                                    ExpectedIsa(isa) + " micro-kernel"));
  }

  // Runs the matmul kernel registered for (dtype, dtype).
  Status RunMatmul(sy_dtype_t dtype, const sy_tensor_view_t& a,
                   const sy_tensor_view_t& b, const sy_tensor_view_t& out) {
    const sy_dtype_t dtypes[] = {dtype, dtype};
    const RegisteredKernel* kernel = host_->FindKernel("matmul", dtypes);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    const sy_tensor_view_t inputs[] = {a, b};
    return RunKernel(*kernel, inputs, {&out, 1}, {}, stream_);
  }
};

struct MatmulCase {
  std::vector<int64_t> a, b, out;
  // When set, `a` (or `b`) is this shape broadcast to the one above: batch
  // dims of stride 0, as an expand() view passes them.
  std::vector<int64_t> a_from = {}, b_from = {};
};

void PrintTo(const MatmulCase& c, std::ostream* os) {
  *os << ShapeString(c.a) << " @ " << ShapeString(c.b);
}

const MatmulCase kCases[] = {
    {{3}, {3}, {}},
    {{3}, {3, 4}, {4}},
    {{2, 3}, {3}, {2}},
    {{5, 7}, {7, 9}, {5, 9}},
    {{13, 17}, {17, 33}, {13, 33}},
    {{0, 3}, {3, 4}, {0, 4}},
    {{3, 0}, {0, 4}, {3, 4}},  // K = 0: zeros
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
    {{3, 4, 5}, {5, 6}, {3, 4, 6}, {4, 5}},  // a stretched
    {{2, 3, 4, 5}, {2, 3, 5, 6}, {2, 3, 4, 6}, {}, {2, 1, 5, 6}},
};

// Layout combination k: 0 all contiguous; 1 a transposed; 2 b transposed,
// output padded; 3 everything padded; 4 output transposed, a padded.
Layout LayoutOf(int combo, int operand) {
  static constexpr Layout C = Layout::kContiguous, T = Layout::kTransposed,
                          P = Layout::kPadded;
  static constexpr Layout kTable[5][3] = {
      {C, C, C}, {T, C, C}, {C, T, P}, {P, P, P}, {P, C, T}};
  return kTable[combo][operand];
}

template <class T>
TypedTensor<T> Operand(const std::vector<int64_t>& shape,
                       const std::vector<int64_t>& from, uint32_t seed,
                       Layout layout) {
  if (from.empty()) return TypedTensor<T>::Random(shape, seed, layout);
  return TypedTensor<T>::Random(from, seed, layout).BroadcastTo(shape);
}

// Checks `out` = a @ b elementwise against a long double reference (floats)
// or an exact wrapping one (integers). Floating tolerance: the f32/f64
// accumulation bound (K + 2) u Σ|a_ik b_kj|, plus half an ulp of the result
// for f16/bf16, which round once at the end.
template <class T>
void ExpectProduct(const MatmulCase& c, const TypedTensor<T>& a,
                   const TypedTensor<T>& b, const TypedTensor<T>& out) {
  const bool a1 = c.a.size() == 1, b1 = c.b.size() == 1;
  const int64_t k = c.a.back();
  const size_t batch = c.out.size() - (a1 ? 0 : 1) - (b1 ? 0 : 1);
  int failures = 0;
  ForEachIndex(c.out, [&](std::span<const int64_t> i) {
    if (failures > 5) return;
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
    const T got = out.at(i);
    if constexpr (kIsFloating<T>) {
      long double want = 0, scale = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        ia[ka] = kk;
        ib[kb] = kk;
        const long double p = ToLong(a.at(ia)) * ToLong(b.at(ib));
        want += p;
        scale += std::fabs(p);
      }
      double u = 0x1p-24, rounding = 0, tiny = 0;
      if constexpr (std::is_same_v<T, double>) u = 0x1p-53;
      if constexpr (std::is_same_v<T, plugin::Half>)
        rounding = 0x1p-11, tiny = 0x1p-24;
      if constexpr (std::is_same_v<T, plugin::BFloat16>) rounding = 0x1p-8;
      const long double tol =
          (k + 2) * u * scale * 1.01L + rounding * std::fabs(want) + tiny;
      const long double err = std::fabs(ToLong(got) - want);
      if (!(err <= tol)) {
        ADD_FAILURE() << "at " << ShapeString(i) << ": got "
                      << static_cast<double>(ToLong(got)) << ", want "
                      << static_cast<double>(want) << " (error "
                      << static_cast<double>(err) << " > "
                      << static_cast<double>(tol) << ")";
        ++failures;
      }
    } else {
      uint64_t want = 0;  // wraps: the exact product modulo 2^64
      for (int64_t kk = 0; kk < k; ++kk) {
        ia[ka] = kk;
        ib[kb] = kk;
        want +=
            static_cast<uint64_t>(a.at(ia)) * static_cast<uint64_t>(b.at(ib));
      }
      if (got != static_cast<T>(want)) {
        ADD_FAILURE() << "at " << ShapeString(i) << ": got " << int64_t(got)
                      << ", want " << int64_t(static_cast<T>(want));
        ++failures;
      }
    }
  });
}

template <class T>
void CheckCase(MatmulFixture& f, const MatmulCase& c, int combo,
               uint32_t seed) {
  SCOPED_TRACE(::testing::PrintToString(c) + " layout " +
               std::to_string(combo));
  const TypedTensor<T> a = Operand<T>(c.a, c.a_from, seed, LayoutOf(combo, 0));
  const TypedTensor<T> b =
      Operand<T>(c.b, c.b_from, seed + 1, LayoutOf(combo, 1));
  TypedTensor<T> out = TypedTensor<T>::Make(c.out, LayoutOf(combo, 2));
  const Status status =
      f.RunMatmul(plugin::kDtypeOf<T>, a.view(), b.view(), out.view());
  ASSERT_TRUE(status.ok()) << status.message;
  ExpectProduct(c, a, b, out);
  EXPECT_TRUE(out.OutsideUntouched());
}

// ---- Every dtype × micro-kernel × case × layout -----------------------------

template <class T>
class MatmulTypedTest : public MatmulFixture {
 protected:
  void SetUp() override {}
};

using MatmulTypes =
    ::testing::Types<float, double, plugin::Half, plugin::BFloat16, int32_t,
                     int64_t, int8_t, uint8_t>;
TYPED_TEST_SUITE(MatmulTypedTest, MatmulTypes);

TYPED_TEST(MatmulTypedTest, MatchesReferenceOnEveryMicroKernel) {
  for (const char* isa : kIsas) {
    SCOPED_TRACE(isa);
    this->LoadWithIsa(isa);
    uint32_t seed = 1;
    for (const MatmulCase& c : kCases) {
      for (int combo = 0; combo < 5; ++combo) {
        CheckCase<TypeParam>(*this, c, combo, seed += 2);
      }
    }
  }
}

// ---- Products the plugin splits across threads -----------------------------
// Sizes well above the parallel threshold, with M and N off every block
// size, so the tiles (row blocks, column blocks, both, and a prepacked or
// shared B) have ragged edges.

const MatmulCase kThreadedCases[] = {
    {{301, 257}, {257, 299}, {301, 299}},        // one product, row tiles
    {{7, 520}, {520, 1001}, {7, 1001}},          // few rows: column tiles
    {{3, 97, 130}, {3, 130, 71}, {3, 97, 71}},   // batch of 3
    {{4, 50, 64}, {64, 200}, {4, 50, 200}},      // shared B, folds into rows
    {{2, 3, 40, 64}, {64, 90}, {2, 3, 40, 90}},  // shared B (transposed a
                                                 // does not fold)
    {{130, 700}, {700}, {130}},                  // matrix-vector
    {{700}, {700, 130}, {130}},                  // vector-matrix
    {{6, 33, 40}, {6, 40, 35}, {6, 33, 35}, {}, {1, 40, 35}},
};

template <class T>
class MatmulThreadedTest : public MatmulFixture {
 protected:
  void SetUp() override {}
};

using ThreadedTypes =
    ::testing::Types<float, double, plugin::Half, plugin::BFloat16, int32_t>;
TYPED_TEST_SUITE(MatmulThreadedTest, ThreadedTypes);

// 1 thread, a count that divides nothing, and more threads than cores.
TYPED_TEST(MatmulThreadedTest, LargeProductsMatchReference) {
  for (int threads : {1, 3, 8}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    const ThreadCount count(threads);  // read at the first parallel call
    this->LoadWithIsa("");
    uint32_t seed = 100;
    for (const MatmulCase& c : kThreadedCases) {
      for (int combo : {0, 2}) {
        CheckCase<TypeParam>(*this, c, combo, seed += 2);
      }
    }
  }
}

// ---- Bad calls
// ---------------------------------------------------------------

class MatmulErrorTest : public MatmulFixture {
 protected:
  void SetUp() override { LoadWithIsa(""); }
};

TEST_F(MatmulErrorTest, RegistersEveryDtype) {
  for (sy_dtype_t d : {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16,
                       SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_I8, SY_DTYPE_U8}) {
    const sy_dtype_t dtypes[] = {d, d};
    const RegisteredKernel* k = host_->FindKernel("matmul", dtypes);
    ASSERT_NE(k, nullptr) << plugin::DtypeName(d);
    EXPECT_EQ(k->name, "matmul." + std::string(plugin::DtypeName(d)) + "." +
                           std::string(plugin::DtypeName(d)));
  }
  const sy_dtype_t bools[] = {SY_DTYPE_BOOL, SY_DTYPE_BOOL};
  EXPECT_EQ(host_->FindKernel("matmul", bools), nullptr);
}

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
  status = Run("matmul", {s.view(), b.view()}, out.view());
  EXPECT_EQ(status.message,
            "cpu plugin: matmul: input 'a' is a scalar (rank 0); matmul needs "
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

TEST_F(MatmulErrorTest, RejectsADtypeOtherThanTheKernels) {
  const TypedTensor<plugin::Half> a =
      TypedTensor<plugin::Half>::Random({2, 3}, 1);
  const TypedTensor<float> b = TypedTensor<float>::Random({3, 5}, 2);
  TypedTensor<plugin::Half> out = TypedTensor<plugin::Half>::Make({2, 5});
  const Status status = RunMatmul(SY_DTYPE_F16, a.view(), b.view(), out.view());
  EXPECT_EQ(status.code, SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(status.message,
            "cpu plugin: matmul: input 'b' has dtype f32 but this is the f16 "
            "kernel, which takes every tensor in f16; pass tensors of one "
            "dtype (the dispatcher picks the kernel by dtype)");
  EXPECT_TRUE(out.OutsideUntouched());
}

}  // namespace
}  // namespace sy::testing
