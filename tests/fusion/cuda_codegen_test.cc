// The cuda plugin's code generator (plugins/cuda/fused/cuda_codegen.h) and
// NVRTC loader, on machines without a GPU: hand-written kernels that reach
// every path of the generator — elementwise with and without 16-byte
// accesses (per row, or flat with a scalar tail), rows given to a warp
// (with the row kept in registers), a block or a thread-block cluster
// (sm_90) with the shapes of bench_fusion's sweep, several reduced dims,
// per-row outputs, empty rows, rank 0, every storage dtype, the row-shape
// options — are generated and compiled by NVRTC for sm_80 and sm_90 (and
// bf16's bit-operation rounding for sm_75).
// NVRTC's own failures come back as errors that say what to do:
// NvrtcLoading.* run in processes of their own (ctest sets
// SWITCHYARD_NVRTC_LIBRARY and SWITCHYARD_TEST_NVRTC_CASE) and skip otherwise.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "fused/bound_for_16.h"
#include "fused/cuda_codegen.h"
#include "fused/nvrtc_compiler.h"
#include "fused/online_softmax.h"
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

// How often `what` occurs in `source`.
int Count(const std::string& source, const std::string& what) {
  int n = 0;
  for (size_t p = source.find(what); p != std::string::npos; p = source.find(what, p + 1)) ++n;
  return n;
}

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
    GeneratedKernel gen = Generate(ir, what);
    if (sm80) CompileFor(Generate(ir, what, 80), ir, what, 80);
    CompileFor(gen, ir, what, 90);
    return gen;
  }

  // The source for `arch` (what the plugin generates for such a device).
  static GeneratedKernel Generate(const Ir& ir, const std::string& what, int arch = 90) {
    GeneratedKernel gen;
    std::string error;
    CodegenOptions options;
    options.arch = arch;
    // The opt-in shared memory per block of such a device, less the 1 KiB
    // the plugin leaves for static buffers (fused_kernels.cc).
    options.row_max_shared = (arch >= 90 ? 227 : arch >= 80 ? 163 : 64) * 1024 - 1024;
    const sy_fused_kernel_t k = ir.Abi();
    EXPECT_TRUE(GenerateCuda(k, options, &gen, &error)) << what << ": " << error;
    return gen;
  }

  void CompileFor(const GeneratedKernel& gen, const Ir& ir, const std::string& what, int arch) {
    std::string cubin, error;
    EXPECT_TRUE(nvrtc_->Compile(gen.source, arch, EntryName(ir.Abi().name), &cubin, &error))
        << what << " sm_" << arch << ": " << error << "\n" << gen.source;
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

// (With y broadcast over rows, the walk is per row: VEC must divide them.)
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

// Operands all contiguous over the domain: a flat walk, 16 bytes at a time
// whatever the innermost extent, and a scalar tail for numel % VEC — odd
// bf16 rows are not read element by element.
TEST_F(CudaCodegen, ContiguousOperandsWalkFlatWithAScalarTail) {
  for (sy_dtype_t d : {SY_DTYPE_BF16, SY_DTYPE_F32}) {
    Ir ir = Chain(d, 3, 255, {255, 1});
    ir.in[1].strides[0] = 255;  // y contiguous too (Chain broadcasts it)
    const GeneratedKernel g = Compile(ir, "flat chain", d == SY_DTYPE_BF16);
    const int vec = d == SY_DTYPE_BF16 ? 8 : 4;
    EXPECT_EQ(g.vec, vec);
    EXPECT_EQ(g.vector.entry, "sy_chain");
    EXPECT_EQ(g.aligned_operands, (std::vector<int>{0, 1, 2, 3}));
    const std::string t = d == SY_DTYPE_BF16 ? "unsigned short, 8" : "float, 4";
    EXPECT_NE(g.source.find("*reinterpret_cast<const sy_vec<" + t + ">*>(in0 + oin0 + i)"),
              std::string::npos) << g.source;
    // 765 elements: 95 groups of 8 and 5 left (bf16), 191 of 4 and 1 (f32).
    const int64_t groups = 765 / vec, tail = 765 % vec;
    EXPECT_NE(g.source.find("g < " + std::to_string(groups) + "LL;"), std::string::npos);
    EXPECT_NE(g.source.find("if (blockIdx.x == 0 && threadIdx.x < " + std::to_string(tail) +
                            ")"), std::string::npos) << g.source;
    EXPECT_NE(g.source.find("const sy_i64 t = " + std::to_string(groups * vec) +
                            "LL + threadIdx.x;"), std::string::npos);
    EXPECT_NE(g.source.find("out0[t] = "), std::string::npos);
    // bf16 results are rounded in pairs at the store (Note [Paired 16-bit stores]).
    const std::string store = d == SY_DTYPE_BF16 ? "sy_store_pairs<true>(" : "sy_store(";
    EXPECT_NE(g.source.find(store + "out0 + oout0 + i, y0);"), std::string::npos) << g.source;
    EXPECT_NE(g.source.find("sy_store(out1 + oout1 + i, y1);"), std::string::npos) << g.source;
  }
  // No tail when VEC divides numel.
  Ir even = Chain(SY_DTYPE_F32, 4, 6, {6, 1});
  even.in[1].strides[0] = 6;
  const GeneratedKernel g = Compile(even, "flat, no tail");
  EXPECT_EQ(g.vec, 4);
  EXPECT_EQ(g.source.find("the scalar tail"), std::string::npos);
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
      // A block per row, or a cluster of blocks (long rows, sm_90).
      EXPECT_EQ(g.scalar.grid, 5 * g.scalar.cluster) << n;
      EXPECT_GE(g.scalar.block, 128) << n;
      EXPECT_LE(g.scalar.block, 1024) << n;
    }
  }
}

// Note [Row kernel shapes]: over bench_fusion's sweep (rows × cols = 2^26)
// softmax and rms_norm read their row from memory once, 16 bytes at a
// time (f32: 4, bf16: 8 elements), and keep it as stored: in registers
// (at most 128 bytes per thread) or in shared memory (Note [Rows kept in
// shared memory]). The shapes are the defaults the H100 measured: f32
// rows in registers in blocks of up to 1024 threads, then a cluster per
// row (sm_90) — 16 blocks of 512 where 8 of 1024 would be needed (262144)
// —, except rows a cluster of 256-thread blocks holds (65536), which go to
// shared memory; bf16 rows in shared memory, blocks of up to 256 threads
// before a cluster of up to 8.
TEST_F(CudaCodegen, RowsOfTheSweepAreReadOnceInSixteenByteVectors) {
  struct Want {
    int64_t n;
    int block, cluster;
    bool shared;
  };
  const Want f32[] = {{256, 256, 1, false},     {1024, 256, 1, false},
                      {4096, 128, 1, false},    {16384, 512, 1, false},
                      {65536, 256, 8, true},    {262144, 512, 16, false}};
  const Want bf16_wants[] = {{256, 256, 1, false},  {1024, 256, 1, false},
                             {4096, 128, 1, true},  {16384, 256, 1, true},
                             {65536, 256, 4, true}, {262144, 512, 8, true}};
  for (sy_dtype_t d : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    const bool bf16 = d == SY_DTYPE_BF16;
    const std::string t = bf16 ? "unsigned short, 8" : "float, 4";
    for (const Want& want : bf16 ? bf16_wants : f32) {
      const int64_t rows = (int64_t{1} << 26) / want.n;
      const std::string what = std::string(bf16 ? "bf16 " : "f32 ") + std::to_string(want.n);
      // Softmax compiles at every length; rms_norm's source is checked.
      const GeneratedKernel s = want.n == 262144 || want.n == 1024 || want.n == 16384
                                    ? Compile(Softmax(d, rows, want.n), "softmax " + what)
                                    : Generate(Softmax(d, rows, want.n), "softmax " + what);
      const GeneratedKernel r = Generate(RmsNorm(d, {rows, want.n}, 1), "rms_norm " + what);
      const std::string slot =
          want.shared ? "c0[it * " + std::to_string(want.block) + "]" : "c0[it]";
      for (const GeneratedKernel* g : {&s, &r}) {
        EXPECT_EQ(g->vec, bf16 ? 8 : 4) << what;
        const std::string& src = g->source;
        const size_t vector_entry = src.find(" " + g->vector.entry + "(");
        ASSERT_NE(vector_entry, std::string::npos) << what;
        // x is read once, 16 bytes at a time, and kept (both entries).
        const std::string load = "*reinterpret_cast<const sy_vec<" + t + ">*>(in0 + oin0)";
        EXPECT_EQ(src.find(load), src.rfind(load)) << what << "\n" << src;
        EXPECT_GT(src.find(load), vector_entry) << what;
        if (want.shared) {
          EXPECT_NE(src.find("sy_vec<" + t + ">* const c0 = reinterpret_cast<sy_vec<" + t +
                             ">*>(sy_keep + 0) + threadIdx.x;"),
                    std::string::npos)
              << what << "\n" << src;
          EXPECT_EQ(g->vector.smem, want.n * (bf16 ? 2 : 4) / want.cluster) << what;
        } else {
          EXPECT_NE(src.find("sy_vec<" + t + "> c0["), std::string::npos) << what << "\n" << src;
          EXPECT_EQ(g->vector.smem, 0) << what;
        }
        EXPECT_NE(src.find("const sy_vec<" + t + "> x0 = " + slot + ";"), std::string::npos)
            << what;
        // The scalar entry (unaligned rows) keeps one element per slot:
        // in registers, all of f32's row.
        if (!bf16 || want.shared) {
          EXPECT_EQ(src.find("__ldg(in0 + oin0)"), src.rfind("__ldg(in0 + oin0)")) << what;
        }
        EXPECT_NE(src.find(slot + " = x0;"), std::string::npos) << what;
        // Outputs are written 16 bytes at a time, by one st.global.v4
        // (sy_store), never as the vector assigned through a pointer: NVCC
        // split that into one 2-byte store per bf16 element after the
        // division's branch (seen in the PTX).
        EXPECT_NE(src.find(std::string(bf16 ? "sy_store_pairs<true>(" : "sy_store(") +
                           "out0 + oout0, y0);"), std::string::npos) << what;
        EXPECT_EQ(src.find("= y0;"), std::string::npos) << what;
        EXPECT_NE(src.find("asm volatile(\"st.global.v4.b32 [%0], {%1, %2, %3, %4};\""),
                  std::string::npos);
      }
      const int block = want.block, cluster = want.cluster;
      EXPECT_EQ(s.vector.block, block) << what;
      EXPECT_EQ(s.vector.cluster, cluster) << what;
      EXPECT_EQ(s.scalar.cluster, cluster) << what;
      EXPECT_EQ(s.vector.grid, (want.n <= 1024 ? rows / 8 : rows) * cluster) << what;
      const bool clustered = s.source.find("__cluster_dims__(" + std::to_string(cluster) +
                                           ", 1, 1)") != std::string::npos;
      EXPECT_EQ(clustered, cluster > 1) << what;
      // softmax reduces its max and its sum in two stages by default; the
      // (max, sum) pair is a launch configuration (Note [Online softmax]).
      EXPECT_EQ(s.source.find("sy_cluster_reduce<") != std::string::npos, cluster > 1) << what;
      EXPECT_EQ(s.source.find("sy_online()"), std::string::npos) << what;
      if (cluster > 1) {
        // A row's threads count across the cluster, so per-row values are
        // stored by its first block's first thread only.
        EXPECT_NE(s.source.find("const sy_i64 row = blockIdx.x / " + std::to_string(cluster) +
                                ";"), std::string::npos) << what;
        EXPECT_NE(s.source.find("const int lane = (int)(blockIdx.x % " +
                                std::to_string(cluster) + ") * " + std::to_string(block) +
                                " + threadIdx.x;"), std::string::npos) << what;
        EXPECT_NE(r.source.find("if (lane == 0) out1[row_oout1] = "), std::string::npos) << what;
      }
    }
  }
}

// Note [Shifted rows]: rows of a length VEC does not divide start at every
// alignment; softmax's (x and the output at the same offsets) still take
// the 16-byte form: each row's head and tail element by element on the
// first lanes, its aligned steps as an aligned row's — in the warp, block
// and cluster kernels, in registers and in shared memory. rms_norm's
// weight is read at other offsets (one row for all rows): scalar, as
// before.
TEST_F(CudaCodegen, OddRowsShiftTheirVectorSteps) {
  struct Case {
    sy_dtype_t dtype;
    int64_t rows, n;
  };
  for (const Case& c : {Case{SY_DTYPE_F32, 37, 7}, Case{SY_DTYPE_BF16, 5, 1025},
                        Case{SY_DTYPE_F32, 3, 50257}, Case{SY_DTYPE_BF16, 3, 50257}}) {
    const std::string what = std::to_string(c.n) + (c.dtype == SY_DTYPE_BF16 ? " bf16" : " f32");
    const GeneratedKernel g = Compile(Softmax(c.dtype, c.rows, c.n), what);
    const int vec = c.dtype == SY_DTYPE_BF16 ? 8 : 4;
    EXPECT_EQ(g.vec, vec) << what;
    EXPECT_FALSE(g.vector.entry.empty()) << what;
    EXPECT_EQ(g.aligned_operands, (std::vector<int>{0, 1})) << what;
    const std::string& src = g.source;
    const size_t vector_entry = src.find(" " + g.vector.entry + "(");
    ASSERT_NE(vector_entry, std::string::npos) << what;
    const std::string body = src.substr(vector_entry);
    const std::string v = std::to_string(vec), n = std::to_string(c.n);
    EXPECT_NE(body.find("const sy_i64 sy_head = min((" + v + " - row_oin0 % " + v + ") % " + v +
                        ", " + n + "LL);"),
              std::string::npos) << what << "\n" << body;
    EXPECT_NE(body.find("const sy_i64 oin0 = row_oin0 + (sy_head + j) * 1LL;"),
              std::string::npos) << what;
    EXPECT_NE(body.find("if (lane < sy_edges)"), std::string::npos) << what;
    // The head and tail keep x in an edge register; the steps in c0.
    if (c.n > 7) {
      EXPECT_NE(body.find("ce0 = x0;"), std::string::npos) << what << "\n" << body;
      EXPECT_TRUE(body.find("const unsigned short x0 = ce0;") != std::string::npos ||
                  body.find("const float x0 = ce0;") != std::string::npos)
          << what;
    }
    // The scalar entry (unaligned bases; generated first) has none of it.
    const size_t scalar_entry = src.find(" " + g.scalar.entry + "(");
    ASSERT_LT(scalar_entry, vector_entry) << what;
    const std::string scalar = src.substr(scalar_entry, vector_entry - scalar_entry);
    EXPECT_EQ(scalar.find("sy_head"), std::string::npos) << what;
  }
  // The cluster kernel of f32 rows of 50,257 (sm_90): registers, 8 × 1024.
  const GeneratedKernel cl = Generate(Softmax(SY_DTYPE_F32, 3, 50257), "cluster");
  EXPECT_GT(cl.vector.cluster, 1);
  const GeneratedKernel rms = Compile(RmsNorm(SY_DTYPE_F32, {3, 1001}, 1), "rms_norm 1001");
  EXPECT_EQ(rms.vec, 1);
  EXPECT_TRUE(rms.vector.entry.empty());
}

// Before sm_90 there are no clusters: a row one block cannot keep is read
// again per stage (correct, slower); the source compiles for sm_80.
TEST_F(CudaCodegen, LongRowsWithoutClustersAreReadPerStage) {
  const Ir ir = Softmax(SY_DTYPE_F32, 3, 262144);
  const GeneratedKernel g = Generate(ir, "softmax sm_80", 80);
  EXPECT_EQ(g.vector.cluster, 1);
  EXPECT_EQ(g.vector.block, 1024);
  EXPECT_EQ(g.vector.grid, 3);
  EXPECT_EQ(g.source.find("__cluster_dims__"), std::string::npos);
  EXPECT_EQ(g.source.find("c0["), std::string::npos) << g.source;
  CompileFor(g, ir, "softmax sm_80", 80);
  // f64 keeps 16 elements per thread: 262144 needs more than 8 × 1024,
  // 65536 a cluster of 8 × 512 (reducing doubles across it).
  const GeneratedKernel f64 = Generate(Softmax(SY_DTYPE_F64, 3, 262144), "f64");
  EXPECT_EQ(f64.vector.cluster, 1);
  EXPECT_EQ(f64.source.find("c0["), std::string::npos);
  const GeneratedKernel f64c = Compile(Softmax(SY_DTYPE_F64, 3, 65536), "f64 cluster");
  EXPECT_EQ(f64c.vector.cluster, 8);
  EXPECT_EQ(f64c.vector.block, 512);
  EXPECT_NE(f64c.source.find("sy_cluster_reduce<8, 16>(a2, sy_max(), sy_parts_d + 0, sy_bars + 0"),
            std::string::npos) << f64c.source;
}

// SWITCHYARD_CUDA_FUSED_ROWS's options reshape the row kernels (a tuning
// knob until the autotuner picks shapes); bad values name the bad part.
TEST(CudaRowOptions, ReshapeRowKernelsAndRefuseBadValues) {
  CodegenOptions o;
  std::string error;
  ASSERT_TRUE(ParseRowOptions("kept=64,block=256", &o, &error)) << error;
  EXPECT_EQ(o.row_kept_bytes, 64);
  EXPECT_EQ(o.row_max_block, 256);
  ASSERT_TRUE(ParseRowOptions("block=1024", &o, &error)) << error;
  EXPECT_EQ(o.row_max_block, 1024);
  EXPECT_EQ(o.row_kept_bytes, 64);  // left as it was
  for (const char* bad : {"block=300", "block=2048", "kept=2", "kept=", "threads=256",
                          "block=256,kept=x", "cluster=3", "cluster=32", "shared=2"}) {
    CodegenOptions fresh;
    EXPECT_FALSE(ParseRowOptions(bad, &fresh, &error)) << bad;
    EXPECT_NE(error.find("is not kept=<bytes, 4 to 1024>, block=<a power of two, 32 to "
                         "1024>, cluster=<1, 2, 4, 8 or 16>, shared=<0 or 1> or online=<0 or "
                         "1>"),
              std::string::npos)
        << error;
    EXPECT_EQ(fresh.row_max_block, 0) << bad;  // unchanged: the per-dtype default
  }
  EXPECT_FALSE(ParseRowOptions("block=300", &o, &error));
  EXPECT_EQ(error.find("'block=300' in 'block=300'"), 0u) << error;

  // f32 rows of 16384 keep 32 values a thread: 512 threads, one block by
  // default; with block=256 a cluster of 2 × 256; with kept=64, 1024
  // threads as a cluster of 2 × 512.
  const Ir ir = Softmax(SY_DTYPE_F32, 4, 16384);
  const sy_fused_kernel_t k = ir.Abi();  // views into ir
  GeneratedKernel g;
  CodegenOptions shaped;
  ASSERT_TRUE(GenerateCuda(k, shaped, &g, &error)) << error;
  EXPECT_EQ(g.vector.block, 512);
  EXPECT_EQ(g.vector.cluster, 1);
  shaped.row_max_block = 256;
  ASSERT_TRUE(GenerateCuda(k, shaped, &g, &error)) << error;
  EXPECT_EQ(g.vector.block, 256);
  EXPECT_EQ(g.vector.cluster, 2);
  EXPECT_EQ(g.vector.grid, 8);
  shaped.row_max_block = 512;
  shaped.row_kept_bytes = 64;
  ASSERT_TRUE(GenerateCuda(k, shaped, &g, &error)) << error;
  EXPECT_EQ(g.vector.block, 512);
  EXPECT_EQ(g.vector.cluster, 2);
  EXPECT_NE(g.source.find("sy_vec<float, 4> c0[4];"), std::string::npos) << g.source;
  // cluster=1: no clusters; one block of 1024 threads.
  ASSERT_TRUE(ParseRowOptions("cluster=1", &shaped, &error)) << error;
  ASSERT_TRUE(GenerateCuda(k, shaped, &g, &error)) << error;
  EXPECT_EQ(g.vector.cluster, 1);
  EXPECT_EQ(g.vector.block, 1024);
  EXPECT_EQ(g.source.find("__cluster_dims__"), std::string::npos);

  // f32 rows of 262144 need 8 blocks of 1024 and take 16 of 512 (two
  // blocks an SM) by default; a block or cluster asked for is kept.
  const Ir long_ir = Softmax(SY_DTYPE_F32, 4, 262144);
  for (const char* rows : {"", "cluster=8", "block=1024", "cluster=16,block=1024"}) {
    CodegenOptions long_shaped;
    ASSERT_TRUE(std::string(rows).empty() || ParseRowOptions(rows, &long_shaped, &error))
        << error;
    ASSERT_TRUE(GenerateCuda(long_ir.Abi(), long_shaped, &g, &error)) << error;
    const bool split = std::string(rows).empty();
    EXPECT_EQ(g.vector.block, split ? 512 : 1024) << rows;
    EXPECT_EQ(g.vector.cluster, split ? 16 : 8) << rows;
    EXPECT_EQ(g.scalar.cluster, g.vector.cluster) << rows;
    EXPECT_EQ(g.vector.grid, 4 * g.vector.cluster) << rows;
  }

  // A part that is set applies to every dtype: cluster=4 gives bf16 rows
  // of 262144 (4096 threads) the clusters their default does not.
  const Ir bf16_ir = Softmax(SY_DTYPE_BF16, 4, 262144);
  const sy_fused_kernel_t bk = bf16_ir.Abi();
  CodegenOptions bf16_shaped;
  ASSERT_TRUE(GenerateCuda(bk, bf16_shaped, &g, &error)) << error;
  EXPECT_EQ(g.vector.cluster, 1);
  ASSERT_TRUE(ParseRowOptions("cluster=4", &bf16_shaped, &error)) << error;
  ASSERT_TRUE(GenerateCuda(bk, bf16_shaped, &g, &error)) << error;
  EXPECT_EQ(g.vector.cluster, 4);
  EXPECT_EQ(g.vector.block, 1024);
}

// The per-dtype defaults (Note [Row kernel shapes]): in registers, 16-bit
// rows no clusters, f32 blocks of 1024 before a cluster of 8, f64 512 and
// 8; in shared memory 256 and 8, where 16-bit rows go by default.
TEST(CudaRowOptions, DefaultsFollowTheKeptDtype) {
  EXPECT_EQ(DefaultRowShape(2).max_cluster, 1);
  EXPECT_EQ(DefaultRowShape(2).max_block, 1024);
  EXPECT_EQ(DefaultRowShape(4).max_cluster, 8);
  EXPECT_EQ(DefaultRowShape(4).max_block, 1024);
  EXPECT_EQ(DefaultRowShape(8).max_cluster, 8);
  EXPECT_EQ(DefaultRowShape(8).max_block, 512);
  EXPECT_EQ(SharedRowShape().max_block, 256);
  EXPECT_EQ(SharedRowShape().max_cluster, 8);
  // f16 rows are 16-bit rows too: 65536 in shared memory is a cluster of
  // 4 × 256 threads, 32 KiB each; with shared=0, one block of 1024.
  const Ir ir = Softmax(SY_DTYPE_F16, 2, 65536);
  const sy_fused_kernel_t k = ir.Abi();
  GeneratedKernel g;
  std::string error;
  ASSERT_TRUE(GenerateCuda(k, CodegenOptions{}, &g, &error)) << error;
  EXPECT_EQ(g.vector.cluster, 4);
  EXPECT_EQ(g.vector.block, 256);
  EXPECT_EQ(g.vector.grid, 8);
  EXPECT_EQ(g.vector.smem, 32768);
  CodegenOptions registers;
  registers.row_shared = 0;
  ASSERT_TRUE(GenerateCuda(k, registers, &g, &error)) << error;
  EXPECT_EQ(g.vector.cluster, 1);
  EXPECT_EQ(g.vector.block, 1024);
  EXPECT_EQ(g.vector.grid, 2);
  EXPECT_EQ(g.vector.smem, 0);
  EXPECT_NE(g.source.find("c0["), std::string::npos) << g.source;  // kept
}

// Launch configurations (Note [Row kernel shapes]): the default first, then
// only alternatives that make another kernel; one configuration for warp
// rows, elementwise kernels and shapes pinned by the environment.
TEST(CudaRowOptions, LaunchConfigurationsAreTheDefaultThenDistinctAlternatives) {
  auto names_of = [](const std::vector<LaunchConfig>& configs) {
    std::vector<std::string> names;
    for (const LaunchConfig& c : configs) names.push_back(c.name);
    return names;
  };
  const Ir ir = Softmax(SY_DTYPE_F32, 4, 65536);
  const sy_fused_kernel_t k = ir.Abi();
  const std::vector<LaunchConfig> configs = LaunchConfigs(k, CodegenOptions{}, false);
  EXPECT_EQ(names_of(configs),
            (std::vector<std::string>{"default: block 256, cluster 8, 32768 B shared",
                                      "registers: block 1024, cluster 2",
                                      "online reduction: block 256, cluster 8, 32768 B shared",
                                      "no cluster: block 1024",
                                      "block <= 512: block 512, cluster 4",
                                      "kept 64 B: block 1024, cluster 4"}));
  EXPECT_EQ(configs[0].options.row_max_cluster, 0);  // the base, as given
  std::vector<std::string> sources;
  for (const LaunchConfig& c : configs) {
    GeneratedKernel g;
    std::string error;
    ASSERT_TRUE(GenerateCuda(k, c.options, &g, &error)) << c.name << ": " << error;
    EXPECT_EQ(std::count(sources.begin(), sources.end(), g.source), 0) << c.name;
    sources.push_back(g.source);
  }

  // bf16 rows too long for shared memory (48 KiB without opting in) stay
  // in registers without clusters by default; clusters are an alternative.
  const Ir bf16 = Softmax(SY_DTYPE_BF16, 4, 262144);
  const std::vector<std::string> bf16_names = names_of(LaunchConfigs(bf16.Abi(), {}, false));
  ASSERT_GE(bf16_names.size(), 3u);
  EXPECT_EQ(bf16_names[0], "default: block 1024");
  EXPECT_EQ(bf16_names[1], "online reduction: block 1024");
  EXPECT_EQ(bf16_names[2], "cluster 8: block 1024, cluster 4");
  EXPECT_LE(bf16_names.size(), static_cast<size_t>(kMaxLaunchConfigs));

  // Before sm_90 no configuration takes a cluster.
  CodegenOptions sm80;
  sm80.arch = 80;
  for (const std::string& name : names_of(LaunchConfigs(k, sm80, false))) {
    EXPECT_EQ(name.find("cluster"), std::string::npos) << name;
  }
  // One configuration: warp rows, elementwise kernels, a pinned shape.
  EXPECT_EQ(LaunchConfigs(Softmax(SY_DTYPE_F32, 4, 1024).Abi(), {}, false).size(), 1u);
  EXPECT_EQ(LaunchConfigs(Chain(SY_DTYPE_F32, 64, 4096, {4096, 1}).Abi(), {}, false).size(), 1u);
  EXPECT_EQ(LaunchConfigs(k, CodegenOptions{}, true).size(), 1u);
}

// Note [Rows kept in shared memory]: with shared=1 a block row keeps its
// kept inputs in dynamic shared memory, one v-wide slot per thread and
// step, and its launch asks for exactly those bytes; a share larger than
// row_max_shared keeps the row in registers instead. Both entries compile.
TEST_F(CudaCodegen, RowsKeptInSharedMemory) {
  CodegenOptions o;
  std::string error;
  ASSERT_TRUE(ParseRowOptions("shared=1", &o, &error)) << error;
  EXPECT_TRUE(o.row_shared);
  o.row_max_shared = 227 * 1024;
  // bf16 rows of 16384: 256 threads of 8 steps of 8 elements, 32 KiB.
  const Ir bf16 = Softmax(SY_DTYPE_BF16, 4, 16384);
  GeneratedKernel g;
  ASSERT_TRUE(GenerateCuda(bf16.Abi(), o, &g, &error)) << error;
  EXPECT_EQ(g.vector.block, 256);
  EXPECT_EQ(g.vector.smem, 16384 * 2);
  EXPECT_EQ(g.scalar.smem, 16384 * 2);
  EXPECT_NE(g.source.find("extern __shared__ __align__(16) unsigned char sy_keep[];"),
            std::string::npos) << g.source;
  EXPECT_NE(g.source.find("c0[it * 256] = x0;"), std::string::npos) << g.source;
  EXPECT_NE(g.source.find("= c0[it * 256];"), std::string::npos) << g.source;
  CompileFor(g, bf16, "bf16 16384 shared", 90);
  // f32 rows of 262144 over a cluster of 8: 128 KiB a block.
  const Ir f32 = Softmax(SY_DTYPE_F32, 2, 262144);
  ASSERT_TRUE(GenerateCuda(f32.Abi(), o, &g, &error)) << error;
  EXPECT_EQ(g.vector.cluster, 8);
  EXPECT_EQ(g.vector.smem, 262144 * 4 / 8);
  CompileFor(g, f32, "f32 262144 shared, cluster", 90);
  // Blocks of at most 256 threads before a cluster of up to 16 (sm_90's
  // non-portable size): 16 × 512 threads, 64 KiB a block.
  CodegenOptions sixteen = o;
  ASSERT_TRUE(ParseRowOptions("shared=1,block=256,cluster=16", &sixteen, &error)) << error;
  ASSERT_TRUE(GenerateCuda(f32.Abi(), sixteen, &g, &error)) << error;
  EXPECT_EQ(g.vector.cluster, 16);
  EXPECT_EQ(g.vector.block, 512);
  EXPECT_EQ(g.vector.grid, 2 * 16);
  EXPECT_EQ(g.vector.smem, 262144 * 4 / 16);
  EXPECT_NE(g.source.find("__cluster_dims__(16, 1, 1)"), std::string::npos) << g.source;
  CompileFor(g, f32, "f32 262144 shared, cluster of 16", 90);
  // Too large a share: registers, as without the option.
  o.row_max_shared = 16 * 1024;
  ASSERT_TRUE(GenerateCuda(bf16.Abi(), o, &g, &error)) << error;
  EXPECT_EQ(g.vector.smem, 0);
  EXPECT_EQ(g.source.find("sy_keep"), std::string::npos);
  // Warp rows and rows with nothing kept never use it.
  o.row_max_shared = 227 * 1024;
  ASSERT_TRUE(GenerateCuda(Softmax(SY_DTYPE_BF16, 4, 1024).Abi(), o, &g, &error)) << error;
  EXPECT_EQ(g.vector.smem, 0);
}

// Note [Online softmax]: softmax's max and sum reduce once, as a (max,
// sum) pair, in the block and cluster kernels (rows of 4096 and 65536),
// with the sum's stage run on the thread's own max; warp rows (512) and
// online=0 keep the IR's two reductions. Both forms compile.
TEST_F(CudaCodegen, SoftmaxReducesItsMaxAndSumOnceAsAPair) {
  const auto has = [](const GeneratedKernel& g, const std::string& text) {
    return g.source.find(text) != std::string::npos;
  };
  for (int64_t n : {int64_t{512}, int64_t{4096}, int64_t{65536}}) {
    for (sy_dtype_t d : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
      const Ir ir = Softmax(d, 4, n);
      for (bool asked : {true, false}) {
        const bool online = asked && n > 1024;
        const std::string what = std::string(d == SY_DTYPE_F32 ? "f32" : "bf16") + " rows of " +
                                 std::to_string(n) + (online ? " online" : " in two stages");
        CodegenOptions o;
        o.row_max_shared = 227 * 1024 - 1024;
        std::string error;
        ASSERT_TRUE(ParseRowOptions(asked ? "online=1" : "online=0", &o, &error)) << error;
        GeneratedKernel g;
        ASSERT_TRUE(GenerateCuda(ir.Abi(), o, &g, &error)) << what << ": " << error;
        EXPECT_EQ(has(g, "sy_online()"), online) << what << "\n" << g.source;
        EXPECT_EQ(has(g, "sy_online_base(a"), online) << what;
        EXPECT_EQ(has(g, "sy_max()"), !online) << what << "\n" << g.source;
        EXPECT_EQ(has(g, "sy_sum()"), !online) << what;
        if (n == 65536) {
          EXPECT_EQ(has(g, "sy_parts_ms"), online) << what;
        }
        CompileFor(g, ir, what, 90);
      }
    }
  }
}

// Softmax's IR with one change: 0 none, 1 the exps of the sum's stage are
// stored too, 2 the sum's stage sums exp(x + x − max), 3 exp(max − x).
Ir SoftmaxVariant(int variant) {
  Ir b;
  b.name = "softmax";
  b.ndim = 2;
  b.reduce_ndim = 1;
  b.shape = {4, 4096};
  const sy_dtype_t f = SY_DTYPE_F32;
  b.Input(f, {4096, 1});
  b.Output(f, {4096, 1});
  if (variant == 1) b.Output(f, {4096, 1});
  const auto x = [&](int stage) { return b.Add(SY_FUSED_LOAD, f, -1, -1, -1, 0, stage); };
  const int m = b.Add(SY_FUSED_REDUCE_MAX, f, x(0));
  int v = x(1);
  if (variant == 2) v = b.Add(SY_FUSED_ADD, f, v, v, -1, 0, 1);
  const int d = variant == 3 ? b.Add(SY_FUSED_SUB, f, m, v, -1, 0, 1)
                             : b.Add(SY_FUSED_SUB, f, v, m, -1, 0, 1);
  const int e = b.Add(SY_FUSED_EXP, f, d, -1, -1, 0, 1);
  if (variant == 1) b.Add(SY_FUSED_STORE, f, e, -1, -1, 1, 1);
  const int sum = b.Add(SY_FUSED_REDUCE_SUM, f, e, -1, -1, 0, 1);
  const int e2 = b.Add(SY_FUSED_EXP, f, b.Add(SY_FUSED_SUB, f, x(2), m, -1, 0, 2), -1, -1, 0, 2);
  b.Add(SY_FUSED_STORE, f, b.Add(SY_FUSED_DIV, f, e2, sum, -1, 0, 2), -1, -1, 0, 2);
  return b;
}

// The pairs are found only where the sum's stage sums exp(X − max) of the
// max's own X and does nothing else, and never in f64.
TEST(OnlineSoftmax, PairsOnlyWhereTheSumStageIsThatSumAlone) {
  const std::vector<OnlinePair> pairs = FindOnlinePairs(SoftmaxVariant(0).Abi());
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0].max, 1);
  EXPECT_EQ(pairs[0].sum, 5);
  EXPECT_EQ(FindOnlinePairs(Softmax(SY_DTYPE_BF16, 4, 4096).Abi()).size(), 1u);
  EXPECT_EQ(FindOnlinePairs(SoftmaxVariant(1).Abi()).size(), 0u) << "the exps are an output";
  EXPECT_EQ(FindOnlinePairs(SoftmaxVariant(2).Abi()).size(), 0u) << "another value than the max's";
  EXPECT_EQ(FindOnlinePairs(SoftmaxVariant(3).Abi()).size(), 0u) << "exp(max - x)";
  EXPECT_EQ(FindOnlinePairs(Softmax(SY_DTYPE_F64, 4, 4096).Abi()).size(), 0u) << "f64";
  EXPECT_EQ(FindOnlinePairs(RmsNorm(SY_DTYPE_F32, {4, 4096}, 1).Abi()).size(), 0u) << "rms_norm";
}

// Note [f32 values bound for 16 bits]: softmax of bf16 computing in f32
// (the decomposition's form) takes the 16-bit spelling for its exps and
// division; an f32 result, a difference or an f32 output of the sum keeps
// the accurate functions.
TEST(BoundFor16Bits, ExpsAndDivisionsThatOnlyReach16BitResults) {
  auto bound_ops = [](const Ir& ir) {
    const sy_fused_kernel_t k = ir.Abi();
    const std::vector<bool> bound = BoundFor16Bits(k);
    std::vector<std::pair<int, int>> ops;  // (op, stage) of each bound value
    for (int i = 0; i < k.num_instrs; ++i) {
      if (bound[i]) ops.push_back({k.instrs[i].op, k.instrs[i].stage});
    }
    return ops;
  };
  using Ops = std::vector<std::pair<int, int>>;
  // The sum's exp, the sum, the output's exp and the division.
  EXPECT_EQ(bound_ops(Softmax(SY_DTYPE_BF16, 4, 4096)),
            (Ops{{SY_FUSED_EXP, 1}, {SY_FUSED_REDUCE_SUM, 1}, {SY_FUSED_EXP, 2}, {SY_FUSED_DIV, 2}}));
  EXPECT_EQ(bound_ops(Softmax(SY_DTYPE_F16, 4, 4096)).size(), 4u);
  EXPECT_TRUE(bound_ops(Softmax(SY_DTYPE_F32, 4, 4096)).empty()) << "f32 results";
  // Stored in bf16 as computed (the lowered graph): nothing is f32.
  EXPECT_TRUE(bound_ops(Softmax(SY_DTYPE_BF16, 4, 4096, true)).empty());
  // The sum also an f32 output: its exps are not bound, the output's are.
  Ir with_sum = Softmax(SY_DTYPE_BF16, 4, 4096);
  with_sum.Output(SY_DTYPE_F32, {1, 0});
  int sum = -1;
  for (size_t i = 0; i < with_sum.instrs.size(); ++i) {
    if (with_sum.instrs[i].op == SY_FUSED_REDUCE_SUM) sum = static_cast<int>(i);
  }
  ASSERT_GE(sum, 0);
  with_sum.Add(SY_FUSED_STORE, SY_DTYPE_F32, sum, -1, -1, 1, 1, 1);
  EXPECT_EQ(bound_ops(with_sum), (Ops{{SY_FUSED_EXP, 2}, {SY_FUSED_DIV, 2}}));
  // exp(x) − 1 and exp(x) > 1 in bf16: a difference and a compare.
  for (int32_t op : {SY_FUSED_SUB, SY_FUSED_GT}) {
    Ir b;
    b.shape = {64};
    b.Input(SY_DTYPE_BF16, {1});
    b.Output(SY_DTYPE_BF16, {1});
    const int x = b.Add(SY_FUSED_CAST, SY_DTYPE_F32, b.Add(SY_FUSED_LOAD, SY_DTYPE_BF16));
    const int one = b.Add(SY_FUSED_CONST, SY_DTYPE_F32, -1, -1, -1, 0, 0, 0, 1.0);
    const int y = b.Add(op, op == SY_FUSED_GT ? SY_DTYPE_BOOL : SY_DTYPE_F32,
                        b.Add(SY_FUSED_EXP, SY_DTYPE_F32, x), one);
    b.Add(SY_FUSED_STORE, SY_DTYPE_BF16, b.Add(SY_FUSED_CAST, SY_DTYPE_BF16, y));
    // The difference itself is bound (it is only cast to bf16); the exp is not.
    EXPECT_EQ(bound_ops(b), (op == SY_FUSED_SUB ? Ops{{SY_FUSED_SUB, 0}} : Ops{})) << op;
  }
}

// The spelling that follows (Note [f32 values bound for 16 bits]): bf16
// softmax computing in f32 at a cluster row, and f32's accurate one.
TEST_F(CudaCodegen, F32SoftmaxBoundFor16BitsTakesTheSixteenBitSpelling) {
  const GeneratedKernel bf16 = Compile(Softmax(SY_DTYPE_BF16, 64, 65536), "bf16 via f32");
  EXPECT_EQ(Count(bf16.source, "= sy_exp16_ftz(v"), 2) << bf16.source;
  EXPECT_EQ(Count(bf16.source, "= __expf(v"), 2) << bf16.source;
  EXPECT_EQ(Count(bf16.source, "= sy_div16_by_sum(v"), 2) << bf16.source;
  EXPECT_EQ(Count(bf16.source, "= expf(v"), 0) << bf16.source;
  const GeneratedKernel f32 = Generate(Softmax(SY_DTYPE_F32, 64, 65536), "f32");
  EXPECT_EQ(Count(f32.source, "= expf(v"), 4) << f32.source;
  EXPECT_EQ(Count(f32.source, "= sy_div16"), 0) << f32.source;
}

// bf16 rounds with one instruction from sm_80 on (most of a bf16 kernel's
// arithmetic), with bit operations before; max and min too; both compile.
TEST_F(CudaCodegen, Bf16RoundsInHardwareFromSm80) {
  const Ir ir = Softmax(SY_DTYPE_BF16, 4, 64);
  const GeneratedKernel g = Generate(ir, "bf16");
  EXPECT_NE(g.source.find("cvt.rn.bf16.f32"), std::string::npos);
  EXPECT_NE(g.source.find("#if __CUDA_ARCH__ >= 800"), std::string::npos);
  // So do NaN-propagating max and min (softmax's max).
  EXPECT_NE(g.source.find("max.NaN.f32"), std::string::npos);
  CompileFor(g, ir, "bf16 sm_75", 75);
  CompileFor(g, ir, "bf16 sm_80", 80);
}

// f16 and bf16 values are rounded where the graph makes them 16 bits — a
// cast, and the store — and kept in f32 between (Note [16-bit
// intermediates]); their ops use the hardware's approximations of exp,
// tanh, sigmoid and division (Note [16-bit results]); f32 results keep the
// accurate functions. The fusion tests check the values on a GPU.
TEST_F(CudaCodegen, SixteenBitValuesRoundAtCastsAndStoresOnly) {
  const char* approximated[] = {"__expf(", "sy_tanh16(", "sy_sigmoid16(", "sy_div16("};
  for (sy_dtype_t d : {SY_DTYPE_F16, SY_DTYPE_BF16}) {
    const GeneratedKernel g = Compile(EveryOpRank0(d, d, d), "every op, 16-bit results");
    const std::string round = d == SY_DTYPE_F16 ? "= sy_rh(" : "= sy_rb(";
    // EveryOpRank0 casts its input to d once; its 30-odd ops round nothing.
    // (Two entry points: the vector one and the scalar one.)
    const int entries = g.vector.entry.empty() ? 1 : 2;
    EXPECT_EQ(Count(g.source, round), entries) << g.source;
    for (const char* f : approximated) {
      EXPECT_NE(g.source.find(std::string("= ") + f), std::string::npos) << f << "\n" << g.source;
    }
  }
  const GeneratedKernel f32 =
      Compile(EveryOpRank0(SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_F32), "every op, f32");
  for (const char* f : approximated) {
    EXPECT_EQ(f32.source.find(std::string("= ") + f), std::string::npos) << f;
  }
  EXPECT_NE(f32.source.find("= expf("), std::string::npos) << f32.source;
}

// Note [16-bit results]: in 16-bit row kernels a division by one value of
// the row (softmax's sum) multiplies by that value's reciprocal, taken once
// a row (sy_rcp16_of), bf16 elements of a vector convert from the 32-bit
// word that holds them (sy_b2f_at), and the exps of softmax's sum (only
// those) flush subnormal results (sy_exp16_ftz): fewer instructions an
// element. Elementwise ops and f32 rows are as they were.
TEST_F(CudaCodegen, SixteenBitRowsSpendFewerInstructionsAnElement) {
  auto has = [](const GeneratedKernel& g, const std::string& what) {
    return g.source.find(what) != std::string::npos;
  };
  for (sy_dtype_t d : {SY_DTYPE_F16, SY_DTYPE_BF16}) {
    for (int64_t n : {1024, 4096, 65536}) {  // warp, block and cluster rows
      const std::string what =
          std::string(d == SY_DTYPE_F16 ? "f16" : "bf16") + " softmax rows of " + std::to_string(n);
      const GeneratedKernel g = Compile(Softmax(d, 64, n, /*as_the_pass_lowers_it=*/true), what);
      // Once a row in each entry (vector and scalar), before the loop.
      const std::string rcp = "= sy_rcp16_of(r";
      const size_t first = g.source.find(rcp);
      ASSERT_NE(first, std::string::npos) << what << "\n" << g.source;
      const size_t second = g.source.find(rcp, first + 1);
      EXPECT_NE(second, std::string::npos) << what;
      EXPECT_EQ(g.source.find(rcp, second + 1), std::string::npos) << what;
      // The divisor is softmax's sum, at least 1: no scaling.
      EXPECT_TRUE(has(g, "= sy_div16_by_sum(v")) << what;
      EXPECT_FALSE(has(g, "= sy_div16_by(v")) << what;
      EXPECT_FALSE(has(g, "= sy_div16(v")) << what;
      // bf16 vectors convert from words; the scalar entry's element is one value.
      EXPECT_EQ(has(g, "= sy_b2f_at(x0, e);"), d == SY_DTYPE_BF16) << what;
      EXPECT_EQ(has(g, "= sy_b2f(x0);"), d == SY_DTYPE_BF16) << what;
      EXPECT_EQ(has(g, "= sy_h2f(x0.v[e]);"), d == SY_DTYPE_F16) << what;
      // In each entry the sum's exp (stage 1) flushes, then the
      // output's (stage 2) does not.
      auto at = [&](const std::string& text) {
        std::vector<size_t> found;
        for (size_t p = g.source.find(text); p != std::string::npos; p = g.source.find(text, p + 1)) {
          found.push_back(p);
        }
        return found;
      };
      const std::vector<size_t> ftz = at("= sy_exp16_ftz(v"), exact = at("= __expf(v");
      ASSERT_EQ(ftz.size(), 2u) << what;
      ASSERT_EQ(exact.size(), 2u) << what;
      EXPECT_TRUE(ftz[0] < exact[0] && exact[0] < ftz[1] && ftz[1] < exact[1]) << what;
    }
  }
  const GeneratedKernel f32 = Compile(Softmax(SY_DTYPE_F32, 64, 4096), "f32 softmax");
  EXPECT_FALSE(has(f32, "= sy_rcp16_of(")) << f32.source;
  EXPECT_FALSE(has(f32, "= sy_div16_by(")) << f32.source;
  EXPECT_FALSE(has(f32, "= sy_exp16_ftz(")) << f32.source;
  // An elementwise division's divisor varies by element.
  const GeneratedKernel every = Generate(EveryOpRank0(SY_DTYPE_BF16, SY_DTYPE_BF16,
                                                      SY_DTYPE_BF16), "every op, bf16");
  EXPECT_TRUE(has(every, "= sy_div16(")) << every.source;
  EXPECT_TRUE(has(every, "= __expf(")) << every.source;
  EXPECT_FALSE(has(every, "= sy_exp16_ftz(")) << every.source;
  EXPECT_FALSE(has(every, "= sy_rcp16_of(")) << every.source;
}

// y = combine(x, reduce(x)) over rows of n in dtype d, the reduction in
// f32 and the combine in d, as the pass lowers it (x − max(x), x − min(x),
// x / sum(x)).
Ir RowOfOneReduction(sy_dtype_t d, int64_t n, int32_t reduce, int32_t combine) {
  Ir b;
  b.name = "row";
  b.ndim = 2;
  b.reduce_ndim = 1;
  b.shape = {64, n};
  b.Input(d, {n, 1});
  b.Output(d, {n, 1});
  const sy_dtype_t c = SY_DTYPE_F32;
  auto x = [&](int stage) {
    return b.Add(SY_FUSED_CAST, c, b.Add(SY_FUSED_LOAD, d, -1, -1, -1, 0, stage), -1, -1, 0,
                 stage);
  };
  const int r = b.Add(reduce, c, x(0));
  b.Add(SY_FUSED_STORE, d, b.Add(combine, d, x(1), r, -1, 0, 1), -1, -1, 0, 1);
  return b;
}

// Note [Packed 16-bit max]: a row's max or min over an f16 or bf16 input
// read 16 bytes at a time compares the words that hold it (vector entry,
// sm_80 on: max.NaN.bf16x2 and kin); the scalar entry, f32 rows, sums and
// sm_75 take the element loop. Note [Paired 16-bit stores]: 16-bit results
// of a vector entry are rounded two to an instruction at the store. The
// values are checked on a GPU (cuda_fusion_test SixteenBitMaxAndMinAreExact).
TEST_F(CudaCodegen, SixteenBitMaxAndMinCompareWordsAndStoresRoundInPairs) {
  struct Case {
    sy_dtype_t d;
    int32_t reduce;
    const char* op;  // sy_pair_reduce's kOp
  };
  const Case cases[] = {{SY_DTYPE_BF16, SY_FUSED_REDUCE_MAX, "0"},
                        {SY_DTYPE_BF16, SY_FUSED_REDUCE_MIN, "1"},
                        {SY_DTYPE_F16, SY_FUSED_REDUCE_MAX, "2"},
                        {SY_DTYPE_F16, SY_FUSED_REDUCE_MIN, "3"}};
  for (const Case& c : cases) {
    for (int64_t n : {1024, 4096, 65536}) {  // warp, block and cluster rows
      const std::string what = std::string(c.d == SY_DTYPE_F16 ? "f16 " : "bf16 ") +
                               (c.reduce == SY_FUSED_REDUCE_MAX ? "max" : "min") + " rows of " +
                               std::to_string(n);
      const Ir ir = RowOfOneReduction(c.d, n, c.reduce, SY_FUSED_SUB);
      const GeneratedKernel g = n == 4096 ? Compile(ir, what, /*sm80=*/true) : Generate(ir, what);
      const bool max = c.reduce == SY_FUSED_REDUCE_MAX;
      const std::string identity = c.d == SY_DTYPE_BF16 ? (max ? "0xff80ff80u" : "0x7f807f80u")
                                                        : (max ? "0xfc00fc00u" : "0x7c007c00u");
      EXPECT_EQ(Count(g.source, "unsigned p2 = " + identity + ";"), 1) << what << "\n" << g.source;
      EXPECT_EQ(Count(g.source, std::string("p2 = sy_pair_reduce<") + c.op + ">(p2, x0);"), 1)
          << what;
      EXPECT_EQ(Count(g.source, std::string("a2 = ") + (max ? "sy_maxf" : "sy_minf") +
                                    "(a2, sy_pair_result<" + c.op + ">(p2));"), 1) << what;
      // The scalar entry accumulates element by element.
      EXPECT_EQ(Count(g.source, std::string("a2 = ") + (max ? "sy_maxf" : "sy_minf") + "(a2, v"),
                1) << what;
      const std::string store = c.d == SY_DTYPE_BF16 ? "sy_store_pairs<true>(" : "sy_store_pairs<false>(";
      EXPECT_EQ(Count(g.source, store + "out0 + oout0, y0);"), 1) << what;
      EXPECT_EQ(Count(g.source, "sy_vec<float, 8> y0;"), 1) << what;
    }
  }
  // Before sm_80, none of it.
  const GeneratedKernel old = Generate(RowOfOneReduction(SY_DTYPE_BF16, 4096, SY_FUSED_REDUCE_MAX,
                                                         SY_FUSED_SUB), "bf16 sm_75", 75);
  EXPECT_EQ(Count(old.source, "= sy_pair_reduce<"), 0) << old.source;
  // f32 rows and sums keep the element loop.
  const GeneratedKernel f32 = Generate(
      RowOfOneReduction(SY_DTYPE_F32, 4096, SY_FUSED_REDUCE_MAX, SY_FUSED_SUB), "f32 max");
  EXPECT_EQ(Count(f32.source, "= sy_pair_reduce<"), 0) << f32.source;
  EXPECT_EQ(Count(f32.source, "sy_store_pairs<true>(out0"), 0) << f32.source;
  EXPECT_EQ(Count(f32.source, "sy_store(out0 + oout0, y0);"), 1) << f32.source;
  const GeneratedKernel sum = Compile(
      RowOfOneReduction(SY_DTYPE_BF16, 4096, SY_FUSED_REDUCE_SUM, SY_FUSED_DIV), "bf16 sum");
  EXPECT_EQ(Count(sum.source, "= sy_pair_reduce<"), 0) << sum.source;
  // A division by a row's sum that is not softmax's may be below 1 or
  // subnormal: the reciprocal keeps its scaling.
  EXPECT_EQ(Count(sum.source, "= sy_div16_by(v"), 2) << sum.source;
  EXPECT_EQ(Count(sum.source, "= sy_div16_by_sum("), 0) << sum.source;
}

// Note [Unguarded row steps]: a step inside the row for every lane has no
// bound check; a row with a part-filled last step checks only from there.
TEST_F(CudaCodegen, RowStepsInsideEveryLanesRowAreNotBoundChecked) {
  for (sy_dtype_t d : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    const std::string t = d == SY_DTYPE_F32 ? "f32" : "bf16";
    // Warp, block, cluster rows whose steps all lie inside the row.
    for (int64_t n : {1024, 16384, 65536}) {
      const std::string what = t + " softmax rows of " + std::to_string(n);
      const GeneratedKernel g = Generate(Softmax(d, 64, n), what);
      EXPECT_EQ(Count(g.source, "if (j < "), 0) << what << "\n" << g.source;
      EXPECT_EQ(Count(g.source, "if (it < "), 0) << what;
    }
    // 16000 = 7.8 steps of a block's lanes (both entries, every stage):
    // the last step alone is checked.
    const GeneratedKernel part = Compile(Softmax(d, 64, 16000), t + " softmax rows of 16000");
    EXPECT_EQ(Count(part.source, " || j < 16000LL)"), Count(part.source, "if (it < ")) << t;
    EXPECT_GE(Count(part.source, "if (it < "), 4) << part.source;
    EXPECT_EQ(Count(part.source, "if (j < "), 0) << t;
    // Each of the 3 stages: in the vector entry no lane's first step is
    // whole (5 steps of 8 or 10 of 4 for 32 lanes); in the scalar entry
    // the first is (40 elements for 32 lanes).
    const GeneratedKernel short_rows = Generate(Softmax(d, 64, 40), t + " softmax rows of 40");
    EXPECT_EQ(Count(short_rows.source, "if (j < 40LL)"), 3) << short_rows.source;
    EXPECT_EQ(Count(short_rows.source, "if (it < 1 || j < 40LL)"), 3) << t;
  }
}

// Note [Cluster reductions by pushes] (cuda_prelude.cc): a cluster row's
// reductions each have a barrier readied with the bytes of every warp's
// partial; only the first waits at the cluster barrier, and none after.
TEST_F(CudaCodegen, ClusterRowsPushTheirPartialsToEveryBlock) {
  // Softmax's two reductions (max, then sum) in either entry, of 4-byte
  // partials.
  const Ir ir = Softmax(SY_DTYPE_BF16, 64, 65536);
  const GeneratedKernel softmax = Generate(ir, "softmax");
  const int ranks = softmax.vector.cluster, warps = softmax.vector.block / 32;
  ASSERT_GT(ranks, 1) << "the row should spread over a cluster";
  ASSERT_EQ(softmax.scalar.block, softmax.vector.block);
  const std::string call =
      "= sy_cluster_reduce<" + std::to_string(ranks) + ", " + std::to_string(warps) + ">(";
  EXPECT_EQ(Count(softmax.source, call), 4) << softmax.source;
  EXPECT_EQ(Count(softmax.source, "sy_bars + 0, a"), 2) << "the max, with its own value";
  EXPECT_EQ(Count(softmax.source, "sy_bars + 1, 0.f, false)"), 2) << "the sum";
  EXPECT_EQ(Count(softmax.source, ", true);"), 2);
  const std::string bytes = std::to_string(ranks * warps * 4) + "u);";
  EXPECT_EQ(Count(softmax.source, "sy_bar_init(sy_bars + 0, " + bytes), 2) << softmax.source;
  EXPECT_EQ(Count(softmax.source, "sy_bar_init(sy_bars + 1, " + bytes), 2);
  EXPECT_EQ(Count(softmax.source, "sy_cluster_begin();"), 2);
  EXPECT_EQ(Count(softmax.source, "sy_buf_"), 0) << "no block reduction";
  // Online, the (max, sum) pair is one reduction of 8-byte partials.
  CodegenOptions online;
  online.arch = 90;
  online.row_max_shared = 227 * 1024 - 1024;
  std::string error;
  ASSERT_TRUE(ParseRowOptions("online=1", &online, &error)) << error;
  GeneratedKernel pair;
  ASSERT_TRUE(GenerateCuda(ir.Abi(), online, &pair, &error)) << error;
  EXPECT_EQ(Count(pair.source, "sy_parts_ms + 0, sy_bars + 0, "), 2) << pair.source;
  const int pair_parts = pair.vector.cluster * pair.vector.block / 32;
  EXPECT_EQ(Count(pair.source, "sy_bar_init(sy_bars + 0, " + std::to_string(pair_parts * 8) + "u);"),
            2);
  EXPECT_EQ(Count(pair.source, "sy_bars + 1"), 0);
  // rms_norm's one reduction is its first.
  const GeneratedKernel rms = Generate(RmsNorm(SY_DTYPE_F32, {64, 65536}, 1), "rms_norm");
  ASSERT_GT(rms.vector.cluster, 1);
  EXPECT_EQ(Count(rms.source, ", true);"), 2) << rms.source;
  EXPECT_EQ(Count(rms.source, ", false);"), 0) << rms.source;
  // Block rows have no cluster reduction at all.
  const GeneratedKernel block = Generate(Softmax(SY_DTYPE_BF16, 64, 16384), "block softmax");
  EXPECT_EQ(block.vector.cluster, 1);
  EXPECT_EQ(Count(block.source, "sy_cluster_"), 0) << block.source;
  EXPECT_EQ(Count(block.source, "sy_bar"), 0) << block.source;
}

// A row kept in shared memory leaves room for its cluster reductions'
// partials: where the row's share and the partials do not both fit the
// block's limit, the row is kept in registers instead.
TEST_F(CudaCodegen, SharedRowsLeaveRoomForTheClusterPartials) {
  const Ir ir = Softmax(SY_DTYPE_BF16, 4, 262144);
  const GeneratedKernel roomy = Generate(ir, "bf16 softmax");
  ASSERT_GT(roomy.vector.smem, 0) << "kept in shared memory by default";
  ASSERT_GT(roomy.vector.cluster, 1);
  // Two f32 reductions of ranks × warps partials, and their barriers.
  const int64_t partials =
      int64_t{2} * roomy.vector.cluster * (roomy.vector.block / 32) * 4 + 2 * 8;
  for (const int64_t spare : {int64_t{0}, int64_t{-1}}) {
    CodegenOptions o;
    o.arch = 90;
    o.row_max_shared = static_cast<int>(roomy.vector.smem + partials + spare);
    GeneratedKernel g;
    std::string error;
    ASSERT_TRUE(GenerateCuda(ir.Abi(), o, &g, &error)) << error;
    const bool fits = spare == 0;
    EXPECT_EQ(g.vector.smem, fits ? roomy.vector.smem : 0) << spare;
    EXPECT_EQ(g.source.find("sy_keep[]") != std::string::npos, fits) << spare;
  }
}

// A row's input kept in registers by the first stage holds converted
// values; later stages read it as it is. Converting it again (a float read
// as f16 bits) made every f16/bf16 softmax value 1/n on the H100.
TEST_F(CudaCodegen, RegisterCachedInputsAreNotConvertedTwice) {
  // The registers hold storage values, which each stage's LOAD converts.
  for (sy_dtype_t d : {SY_DTYPE_F16, SY_DTYPE_BF16}) {
    const GeneratedKernel gen = Compile(Softmax(d, 15, 67), "softmax cached");
    ASSERT_NE(gen.source.find("unsigned short c0[3];"), std::string::npos) << gen.source;
    EXPECT_NE(gen.source.find("c0[it] = x0;"), std::string::npos) << gen.source;
    EXPECT_NE(gen.source.find("const unsigned short x0 = c0[it];"), std::string::npos)
        << gen.source;
    const std::string convert = d == SY_DTYPE_F16 ? "sy_h2f(x0)" : "sy_b2f(x0)";
    EXPECT_NE(gen.source.find("const float v3 = " + convert + ";"), std::string::npos)
        << gen.source;
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
