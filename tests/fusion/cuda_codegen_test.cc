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
#include "switchyard/plugin.h"

namespace sy::cuda::fusion {
namespace {

// A kernel in the ABI's form, built by hand.
struct Ir {
  std::string name = "k";
  int ndim = 1, reduce_ndim = 0;
  std::vector<int64_t> shape;
  std::vector<sy_fused_operand_t> in, out;
  std::vector<sy_fused_instr_t> instrs;
  int stages = 1;

  int Input(sy_dtype_t d, std::vector<int64_t> strides) { return Operand(in, d, strides); }
  int Output(sy_dtype_t d, std::vector<int64_t> strides) { return Operand(out, d, strides); }
  int Add(int op, sy_dtype_t d, int a = -1, int b = -1, int c = -1, int index = 0,
          int stage = 0, int row = 0, double imm = 0) {
    sy_fused_instr_t i{};
    i.op = op;
    i.dtype = d;
    i.a = a;
    i.b = b;
    i.c = c;
    i.index = index;
    i.stage = stage;
    i.row_level = row;
    i.imm = imm;
    instrs.push_back(i);
    stages = std::max(stages, stage + 1);
    return static_cast<int>(instrs.size()) - 1;
  }
  sy_fused_kernel_t Abi() const {
    sy_fused_kernel_t k{};
    k.struct_size = sizeof(k);
    k.name = name.c_str();
    k.ndim = ndim;
    k.reduce_ndim = reduce_ndim;
    for (int d = 0; d < ndim; ++d) k.shape[d] = shape[d];
    k.num_inputs = static_cast<int32_t>(in.size());
    k.num_outputs = static_cast<int32_t>(out.size());
    k.inputs = in.data();
    k.outputs = out.data();
    k.num_instrs = static_cast<int32_t>(instrs.size());
    k.num_stages = stages;
    k.instrs = instrs.data();
    return k;
  }

 private:
  static int Operand(std::vector<sy_fused_operand_t>& list, sy_dtype_t d,
                     const std::vector<int64_t>& strides) {
    sy_fused_operand_t o{};
    o.dtype = d;
    for (size_t i = 0; i < strides.size(); ++i) o.strides[i] = strides[i];
    list.push_back(o);
    return static_cast<int>(list.size()) - 1;
  }
};

sy_dtype_t Compute(sy_dtype_t d) { return d == SY_DTYPE_F64 ? SY_DTYPE_F64 : SY_DTYPE_F32; }

std::vector<int64_t> Contiguous(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t acc = 1;
  for (int i = static_cast<int>(shape.size()) - 1; i >= 0; --i) {
    strides[i] = acc;
    acc *= shape[i];
  }
  return strides;
}

// relu(sigmoid(tanh(x*y + 1)*2 - y)) + x over [rows, cols], y broadcast
// over rows, plus a bool output (x > result) and a where.
Ir Chain(sy_dtype_t d, int64_t rows, int64_t cols, std::vector<int64_t> x_strides) {
  Ir b;
  b.name = "chain";
  b.ndim = 2;
  b.shape = {rows, cols};
  b.Input(d, x_strides);
  b.Input(d, {0, 1});
  b.Output(d, {cols, 1});
  b.Output(SY_DTYPE_BOOL, {cols, 1});
  const sy_dtype_t c = Compute(d);
  const int x = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0));
  const int y = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 1));
  const int one = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 0, 0, 1.0);
  const int two = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 0, 0, 2.0);
  int a = b.Add(SY_FUSED_ADD, c, b.Add(SY_FUSED_MUL, c, x, y), one);
  a = b.Add(SY_FUSED_SUB, c, b.Add(SY_FUSED_MUL, c, b.Add(SY_FUSED_TANH, c, a), two), y);
  a = b.Add(SY_FUSED_ADD, c, b.Add(SY_FUSED_RELU, c, b.Add(SY_FUSED_SIGMOID, c, a)), x);
  b.Add(SY_FUSED_STORE, d, a, -1, -1, 0);
  const int gt = b.Add(SY_FUSED_GT, SY_DTYPE_BOOL, x, a);
  const int w = b.Add(SY_FUSED_WHERE, c, gt, x, y);
  b.Add(SY_FUSED_STORE, SY_DTYPE_BOOL, b.Add(SY_FUSED_NE, SY_DTYPE_BOOL, w, x), -1, -1, 1);
  return b;
}

// softmax over the last dim of [rows, n] in three stages.
Ir Softmax(sy_dtype_t d, int64_t rows, int64_t n) {
  Ir b;
  b.name = "softmax";
  b.ndim = 2;
  b.reduce_ndim = 1;
  b.shape = {rows, n};
  b.Input(d, {n, 1});
  b.Output(d, {n, 1});
  const sy_dtype_t c = Compute(d);
  auto x = [&](int stage) {
    return b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0, stage), -1, -1, 0,
                 stage);
  };
  const int m = b.Add(SY_FUSED_REDUCE_MAX, c, x(0));
  const int e1 = b.Add(SY_FUSED_EXP, c, b.Add(SY_FUSED_SUB, c, x(1), m, -1, 0, 1), -1, -1, 0, 1);
  const int sum = b.Add(SY_FUSED_REDUCE_SUM, c, e1, -1, -1, 0, 1);
  const int e2 = b.Add(SY_FUSED_EXP, c, b.Add(SY_FUSED_SUB, c, x(2), m, -1, 0, 2), -1, -1, 0, 2);
  b.Add(SY_FUSED_STORE, d, b.Add(SY_FUSED_DIV, c, e2, sum, -1, 0, 2), -1, -1, 0, 2);
  return b;
}

// rms_norm over the trailing `reduce_ndim` dims with a weight broadcast
// over rows, the per-row rstd as a second (f32) output, and a cast through
// i32 (truncation) on the way.
Ir RmsNorm(sy_dtype_t d, const std::vector<int64_t>& shape, int reduce_ndim) {
  Ir b;
  b.name = "rms_norm";
  b.ndim = static_cast<int>(shape.size());
  b.reduce_ndim = reduce_ndim;
  b.shape = shape;
  const std::vector<int64_t> st = Contiguous(shape);
  std::vector<int64_t> ws(shape.size(), 0), rs(shape.size(), 0);
  ws.back() = 1;
  int64_t acc = 1;
  for (int i = b.ndim - 1 - reduce_ndim; i >= 0; --i) {
    rs[i] = acc;
    acc *= shape[i];
  }
  b.Input(d, st);
  b.Input(d, ws);
  b.Output(d, st);
  b.Output(SY_DTYPE_F32, rs);
  const sy_dtype_t c = Compute(d);
  const int x0 = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0));
  const int s = b.Add(SY_FUSED_REDUCE_SUM, c, b.Add(SY_FUSED_SQUARE, c, x0));
  const int n = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 1, 1, 1.0 / 64);
  const int eps = b.Add(SY_FUSED_CONST, c, -1, -1, -1, 0, 1, 1, 1e-6);
  const int mean = b.Add(SY_FUSED_MUL, c, s, n, -1, 0, 1, 1);
  const int r = b.Add(SY_FUSED_RSQRT, c, b.Add(SY_FUSED_ADD, c, mean, eps, -1, 0, 1, 1), -1,
                      -1, 0, 1, 1);
  b.Add(SY_FUSED_STORE, SY_DTYPE_F32, b.Add(SY_FUSED_CAST, SY_DTYPE_F32, r, -1, -1, 0, 1, 1),
        -1, -1, 1, 1, 1);
  const int x1 = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0, 1), -1, -1, 0, 1);
  const int w = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 1, 1), -1, -1, 0, 1);
  const int y = b.Add(SY_FUSED_MUL, c, b.Add(SY_FUSED_MUL, c, x1, r, -1, 0, 1), w, -1, 0, 1);
  const int i = b.Add(SY_FUSED_CAST, SY_DTYPE_I32, y, -1, -1, 0, 1);
  const int f = b.Add(SY_FUSED_CAST, c, i, -1, -1, 0, 1);
  b.Add(SY_FUSED_STORE, d, b.Add(SY_FUSED_ADD, c, f, y, -1, 0, 1), -1, -1, 0, 1);
  return b;
}

// Every unary, binary and compare op on one value, rank 0, integer
// storage in and out.
Ir EveryOpRank0(sy_dtype_t in_dtype, sy_dtype_t out_dtype, sy_dtype_t c) {
  Ir b;
  b.name = "every-op";
  b.ndim = 0;
  b.Input(in_dtype, {});
  b.Output(out_dtype, {});
  const int x = b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, in_dtype));
  int v = x;
  for (int op = SY_FUSED_NEG; op <= SY_FUSED_GELU_TANH; ++op) v = b.Add(op, c, v);
  for (int op = SY_FUSED_ADD; op <= SY_FUSED_MINIMUM; ++op) v = b.Add(op, c, v, x);
  for (int op = SY_FUSED_EQ; op <= SY_FUSED_GE; ++op) {
    v = b.Add(SY_FUSED_WHERE, c, b.Add(op, SY_DTYPE_BOOL, v, x), v, x);
  }
  b.Add(SY_FUSED_STORE, out_dtype, v);
  return b;
}

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
