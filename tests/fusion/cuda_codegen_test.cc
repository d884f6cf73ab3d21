// The cuda plugin's code generator (plugins/cuda/fused/cuda_codegen.h) and
// NVRTC loader, on machines without a GPU: hand-written kernels that reach
// every path of the generator — elementwise with and without 16-byte
// accesses, rows given to a warp (with the row kept in registers) or to a
// block, several reduced dims, per-row outputs, empty rows, rank 0, every
// storage dtype — are generated and compiled by NVRTC for sm_80 and sm_90.
// NVRTC's own failures come back as errors that say what to do:
// NvrtcLoading.* run in processes of their own (ctest sets
// SWITCHYARD_NVRTC_LIBRARY and SWITCHYARD_TEST_NVRTC_CASE) and skip otherwise.
#include <cstdlib>
#include <string>
#include <vector>

#include "fused/cuda_codegen.h"
#include "fused/nvrtc_compiler.h"
#include "gtest/gtest.h"
#include "ir_kernels.h"
#include "switchyard/plugin.h"

namespace sy::cuda::fusion {
namespace {

using ::sy::fusion::testing::Chain;
using ::sy::fusion::testing::Compute;
using ::sy::fusion::testing::Contiguous;
using ::sy::fusion::testing::EveryOpRank0;
using ::sy::fusion::testing::Ir;
using ::sy::fusion::testing::RmsNorm;
using ::sy::fusion::testing::Softmax;

const sy_dtype_t kFloat[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16};

class CudaCodegen : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    nvrtc_ = NvrtcCompiler::Get(&why);
    if (nvrtc_ == nullptr) GTEST_SKIP() << "NVRTC is not loadable here: " << why;
  }

  // Generates `ir` and compiles it for sm_90 (and sm_80 when asked: the
  // oldest architecture the plugin is built for). Each NVRTC compile costs
  // 50-100 ms of CI time, hence few cases.
  GeneratedKernel Compile(const Ir& ir, const std::string& what, bool sm80 = false) {
    GeneratedKernel gen;
    std::string error;
    const sy_fused_kernel_t k = ir.Abi();
    EXPECT_TRUE(GenerateCuda(k, CodegenOptions{}, &gen, &error)) << what << ": " << error;
    for (int arch : {90, 80}) {
      if (arch == 80 && !sm80) continue;
      std::string cubin;
      EXPECT_TRUE(nvrtc_->Compile(gen.source, arch, EntryName(k.name), &cubin, &error))
          << what << " sm_" << arch << ": " << error << "\n" << gen.source;
    }
    return gen;
  }

  const NvrtcCompiler* nvrtc_ = nullptr;
};

TEST_F(CudaCodegen, ElementwiseVectorWidthFollowsTheWidestOperand) {
  for (sy_dtype_t d : kFloat) {
    const GeneratedKernel g = Compile(Chain(d, 64, 256, {256, 1}), "chain", true);
    // 16 bytes of the widest dtype; the bool output is narrower.
    const int want = d == SY_DTYPE_F64 ? 2 : d == SY_DTYPE_F32 ? 4 : 8;
    EXPECT_EQ(g.vec, want);
    EXPECT_EQ(g.vector.entry, "sy_chain");
    EXPECT_EQ(g.scalar.entry, "sy_chain_s");
    // x, y (unit along the innermost dim) and both outputs are aligned.
    EXPECT_EQ(g.aligned_operands, (std::vector<int>{0, 1, 2, 3}));
  }
}

TEST_F(CudaCodegen, StridedOrOddShapedOperandsGetTheScalarEntryOnly) {
  // x transposed (stride 64 along the innermost dim).
  const GeneratedKernel t = Compile(Chain(SY_DTYPE_F32, 64, 256, {1, 64}), "transposed");
  EXPECT_EQ(t.vec, 1);
  EXPECT_TRUE(t.vector.entry.empty());
  // Rows of 255: no width divides them.
  const GeneratedKernel o = Compile(Chain(SY_DTYPE_F32, 64, 255, {255, 1}), "odd rows");
  EXPECT_EQ(o.vec, 1);
  // Rows of 6 f32: 2-wide accesses stay 8-byte aligned, 4-wide would not.
  const GeneratedKernel s = Compile(Chain(SY_DTYPE_F32, 64, 6, {6, 1}), "rows of 6");
  EXPECT_EQ(s.vec, 2);
}

TEST_F(CudaCodegen, RowsOfUpTo1024GoToAWarpLongerOnesToABlock) {
  for (sy_dtype_t d : kFloat) {
    for (int64_t n : {7, 1024}) {
      const GeneratedKernel g = Compile(Softmax(d, 37, n), "softmax " + std::to_string(n));
      EXPECT_EQ(g.scalar.block, 256) << n;
      EXPECT_EQ(g.scalar.grid, (37 + 7) / 8) << n;  // 8 rows per block
    }
    for (int64_t n : {4096, 262144}) {
      const GeneratedKernel g = Compile(Softmax(d, 5, n), "softmax " + std::to_string(n));
      EXPECT_EQ(g.scalar.grid, 5) << n;  // a block per row
      EXPECT_GE(g.scalar.block, 128) << n;
      EXPECT_LE(g.scalar.block, 1024) << n;
    }
  }
}

// A row's input kept in registers by the first stage holds converted
// values; later stages read it as it is. Converting it again (a float read
// as f16 bits) made every f16/bf16 softmax value 1/n on the H100.
TEST_F(CudaCodegen, RegisterCachedInputsAreNotConvertedTwice) {
  for (sy_dtype_t d : {SY_DTYPE_F16, SY_DTYPE_BF16}) {
    const GeneratedKernel gen = Compile(Softmax(d, 15, 67), "softmax cached");
    ASSERT_NE(gen.source.find("c0[it][0] = v0;"), std::string::npos) << gen.source;
    EXPECT_NE(gen.source.find("const float v3 = c0[it][0];"), std::string::npos) << gen.source;
    EXPECT_EQ(gen.source.find("(c0[it]"), std::string::npos) << gen.source;
  }
}

TEST_F(CudaCodegen, SeveralReducedDimsPerRowOutputsAndEmptyRows) {
  for (sy_dtype_t d : kFloat) {
    Compile(RmsNorm(d, {4, 6, 8, 8}, 2), "rms_norm over two dims");
    Compile(RmsNorm(d, {16, 4096}, 1), "rms_norm, long rows");
    Compile(RmsNorm(d, {3, 0}, 1), "rms_norm, empty rows");
    Compile(RmsNorm(d, {0, 64}, 1), "rms_norm, no rows");
  }
}

TEST_F(CudaCodegen, EveryOpAndStorageDtype) {
  const sy_dtype_t storage[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16,
                                SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_I8,  SY_DTYPE_U8,
                                SY_DTYPE_BOOL};
  for (sy_dtype_t in : storage) Compile(EveryOpRank0(in, in, SY_DTYPE_F32), "every op");
  Compile(EveryOpRank0(SY_DTYPE_F64, SY_DTYPE_F64, SY_DTYPE_F64), "every op, f64", true);
}

TEST_F(CudaCodegen, CastsToIntegersTruncate) {
  Ir b = RmsNorm(SY_DTYPE_F32, {2, 64}, 1);
  GeneratedKernel g;
  std::string error;
  const sy_fused_kernel_t k = b.Abi();
  ASSERT_TRUE(GenerateCuda(k, CodegenOptions{}, &g, &error)) << error;
  // i32 values compute in double.
  EXPECT_NE(g.source.find("= trunc((double)(v"), std::string::npos) << g.source;
}

TEST_F(CudaCodegen, MalformedKernelsAreRefusedWithAReason) {
  Ir b = Chain(SY_DTYPE_F32, 4, 4, {4, 1});
  b.instrs[0].op = 99;
  GeneratedKernel g;
  std::string error;
  sy_fused_kernel_t k = b.Abi();
  EXPECT_FALSE(GenerateCuda(k, CodegenOptions{}, &g, &error));
  EXPECT_EQ(error, "an instruction has an unknown op or stage");
  b.instrs[0].op = SY_FUSED_LOAD;
  b.in[0].dtype = 77;
  k = b.Abi();
  EXPECT_FALSE(GenerateCuda(k, CodegenOptions{}, &g, &error));
  EXPECT_EQ(error, "an operand has an unknown dtype");
}

TEST_F(CudaCodegen, NvrtcFailuresComeBackWithItsLog) {
  std::string cubin, error;
  EXPECT_FALSE(nvrtc_->Compile("extern \"C\" __global__ void f() { undeclared_thing(); }", 90,
                               "broken", &cubin, &error));
  EXPECT_NE(error.find("NVRTC failed to compile the generated kernel"), std::string::npos)
      << error;
  EXPECT_NE(error.find("undeclared_thing"), std::string::npos) << error;
  EXPECT_NE(error.find("please report it"), std::string::npos) << error;
}

// Run by ctest with SWITCHYARD_NVRTC_LIBRARY set (tests/fusion/CMakeLists.txt).
TEST(NvrtcLoading, AMissingLibrarySaysHowToFix) {
  const char* expect = std::getenv("SWITCHYARD_TEST_NVRTC_CASE");
  if (expect == nullptr || std::string(expect) != "missing") {
    GTEST_SKIP() << "runs as cuda_codegen_test.nvrtc_missing";
  }
  std::string why;
  EXPECT_EQ(NvrtcCompiler::Get(&why), nullptr);
  EXPECT_NE(why.find("NVRTC could not be loaded (/nonexistent/libnvrtc.so.13: "),
            std::string::npos) << why;
  EXPECT_NE(why.find("install the CUDA toolkit's NVRTC (cuda-nvrtc) or set "
                     "SWITCHYARD_NVRTC_LIBRARY to libnvrtc.so's path"),
            std::string::npos) << why;
}

TEST(NvrtcLoading, ALibraryThatIsNotNvrtcIsNamed) {
  const char* expect = std::getenv("SWITCHYARD_TEST_NVRTC_CASE");
  if (expect == nullptr || std::string(expect) != "not-nvrtc") {
    GTEST_SKIP() << "runs as cuda_codegen_test.nvrtc_wrong_library";
  }
  std::string why;
  EXPECT_EQ(NvrtcCompiler::Get(&why), nullptr);
  EXPECT_NE(why.find("libm.so.6 lacks nvrtcGetCUBIN or another function the plugin needs"),
            std::string::npos) << why;
}

}  // namespace
}  // namespace sy::cuda::fusion
