// Fused kernels on the cuda plugin (NVRTC-compiled; docs/fusion.md, "CUDA"),
// on a GPU: the 8-op chain and the row reductions against the unfused graph
// on the same device and against float64 references computed here, over
// row lengths that take the warp and the block kernels, aligned and
// unaligned inputs (the vector and the scalar entry); the kernel cache in
// memory, on disk (load_fused) and past corrupt entries; the pattern kernel
// (matmul → add → gelu in cuBLASLt's epilogue); and, in a process of its
// own without NVRTC, groups that run unfused and say why.
//
// Without a CUDA device every test skips with "no CUDA device: …".
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "autotune/tuner.h"
#include "autotune/tuning_key.h"
#include "fusion/backend/backends.h"
#include "fusion/backend/kernel_cache.h"
#include "fusion/graph.h"
#include "fusion_test_util.h"
#include "gtest/gtest.h"

namespace sy::fusion::testing {
namespace {

const sy_dtype_t kFloatDtypes[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16};

std::string Name(sy_dtype_t d) { return std::string(core::DTypeName(d)); }

using Body = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

class CudaFusion : public ::testing::Test {
 public:
  Tensor Op(const std::string& op, std::vector<Tensor> in, std::vector<Attr> attrs = {}) {
    return Call(*rt_, op, std::move(in), std::move(attrs));
  }

 protected:
  void SetUp() override {
    rt_ = MakeRuntime({CudaManifest()});
    ASSERT_NE(rt_, nullptr);
    absl::StatusOr<Device*> cuda = rt_->GetDevice("cuda:0");
    if (!cuda.ok()) GTEST_SKIP() << "no CUDA device: " << cuda.status().message();
    cuda_ = *cuda;
    CompilerOptions options;
    options.disk_cache = false;
    compiler_ = std::make_unique<Compiler>(*rt_, options);
  }
  void TearDown() override {
    compiler_.reset();
    rt_.reset();
  }

  // This suite tests the generated kernels, so a composite alone (one
  // softmax) is fused too, not handed to the plugin's own kernel (Note
  // [Native single ops]).
  static CompileOptions FusedForm() {
    CompileOptions options;
    options.native_single_ops = false;
    return options;
  }

  // Compiles `body` fused (with `options`) and unfused, launches both on
  // `inputs` and compares them; returns the fused outputs as doubles.
  std::vector<std::vector<double>> Check(Compiler& compiler, const std::vector<Tensor>& inputs,
                                         const Body& body, double tol, const std::string& what,
                                         CompileStats* stats = nullptr,
                                         CompileOptions options = FusedForm()) {
    absl::StatusOr<Graph> graph = CaptureGraph(*rt_, inputs, body);
    EXPECT_TRUE(graph.ok()) << what << ": " << graph.status();
    if (!graph.ok()) return {};
    CompileOptions unfused_options;
    unfused_options.fuse = false;
    absl::StatusOr<CompiledGraph> fused = compiler.Compile(*graph, options);
    absl::StatusOr<CompiledGraph> unfused = compiler.Compile(*graph, unfused_options);
    EXPECT_TRUE(fused.ok()) << what << ": " << fused.status();
    EXPECT_TRUE(unfused.ok()) << what << ": " << unfused.status();
    if (!fused.ok() || !unfused.ok()) return {};
    if (stats != nullptr) *stats = fused->stats();
    description_ = fused->Describe();
    absl::StatusOr<std::vector<Tensor>> got = fused->Launch(inputs);
    absl::StatusOr<std::vector<Tensor>> want = unfused->Launch(inputs);
    EXPECT_TRUE(got.ok()) << what << ": " << got.status() << "\n" << fused->Describe();
    EXPECT_TRUE(want.ok()) << what << ": " << want.status();
    if (!got.ok() || !want.ok()) return {};
    std::vector<std::vector<double>> out;
    for (size_t i = 0; i < got->size() && i < want->size(); ++i) {
      EXPECT_EQ((*got)[i].shape(), (*want)[i].shape()) << what;
      out.push_back(Read(*rt_, (*got)[i]));
      ExpectClose(out.back(), Read(*rt_, (*want)[i]), tol,
                  what + " output " + std::to_string(i) + "\n" + fused->Describe(true));
    }
    return out;
  }

  // softmax, log_softmax, rms_norm and layer_norm over `rows` rows of `n`
  // (inputs in [-4, 4]) fused against unfused, and softmax against float64.
  void CheckRowOps(sy_dtype_t dtype, int64_t rows, int64_t n) {
    const std::vector<double> xs = RandomValues(static_cast<size_t>(rows * n), 7, -4, 4);
    const Tensor x = FromValues(*rt_, *cuda_, dtype, {rows, n}, xs);
    const Tensor w = Random(*rt_, *cuda_, dtype, {n}, 8);
    const Tensor b = Random(*rt_, *cuda_, dtype, {n}, 9);
    const std::string what = Name(dtype) + " " + std::to_string(rows) + " rows of " +
                             std::to_string(n);
    // Sums over long rows differ in order from the eager kernels.
    const double tol = Tolerance(dtype) * (n > 4096 ? 8 : 2);
    CompileStats stats;
    std::vector<std::vector<double>> got = Check(
        *compiler_, {x, w, b},
        [&](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{
              Op("softmax", {in[0]}), Op("log_softmax", {in[0]}),
              Op("rms_norm", {in[0], in[1]}, {Attr(1e-5)}),
              Op("layer_norm", {in[0], in[1], in[2]}, {Attr({n}), Attr(1e-5)})};
        },
        tol, what, &stats);
    EXPECT_EQ(stats.unfused_groups, 0) << what << "\n" << description_;
    ASSERT_EQ(got.size(), 4u) << what;
    // softmax against float64 on the same (rounded) inputs.
    std::vector<double> want(xs.size());
    for (int64_t r = 0; r < rows; ++r) {
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < n; ++j) m = std::max(m, RoundTo(dtype, xs[r * n + j]));
      for (int64_t j = 0; j < n; ++j) s += std::exp(RoundTo(dtype, xs[r * n + j]) - m);
      for (int64_t j = 0; j < n; ++j) {
        want[r * n + j] = RoundTo(dtype, std::exp(RoundTo(dtype, xs[r * n + j]) - m) / s);
      }
    }
    ExpectClose(got[0], want, tol, what + " softmax vs float64");
  }

  std::unique_ptr<Runtime> rt_;
  Device* cuda_ = nullptr;
  std::unique_ptr<Compiler> compiler_;
  std::string description_;
};

double Chain(double x, double y) {
  const double s = 1 / (1 + std::exp(-(std::tanh(x * y + 1) * 2 - y)));
  return std::max(s, 0.0) + x;
}

Body ChainBody(CudaFusion* t) {
  return [t](const std::vector<Tensor>& in) {
    Tensor a = t->Op("add.Scalar", {t->Op("mul.Tensor", {in[0], in[1]})}, {Attr(1.0)});
    a = t->Op("sub.Tensor", {t->Op("mul.Scalar", {t->Op("tanh", {a})}, {Attr(2.0)}), in[1]});
    return std::vector<Tensor>{t->Op("add.Tensor", {t->Op("relu", {t->Op("sigmoid", {a})}), in[0]})};
  };
}

TEST_F(CudaFusion, ChainMatchesEagerAndFloat64) {
  // Both take the 16-byte entry as a flat walk (x and y contiguous);
  // [33, 129]'s 4257 elements leave a scalar tail in every dtype.
  for (std::vector<int64_t> shape : {std::vector<int64_t>{64, 1000}, {33, 129}}) {
    for (sy_dtype_t dtype : kFloatDtypes) {
      const size_t n = static_cast<size_t>(Numel(shape));
      const std::vector<double> xs = RandomValues(n, 3), ys = RandomValues(n, 4);
      const Tensor x = FromValues(*rt_, *cuda_, dtype, shape, xs);
      const Tensor y = FromValues(*rt_, *cuda_, dtype, shape, ys);
      CompileStats stats;
      const std::string what = "chain " + Name(dtype) + " " + std::to_string(shape[1]);
      std::vector<std::vector<double>> got =
          Check(*compiler_, {x, y}, ChainBody(this), Tolerance(dtype) * 2, what, &stats);
      EXPECT_EQ(stats.fused_groups, 1) << what << "\n" << description_;
      EXPECT_EQ(stats.unfused_groups, 0) << what << "\n" << description_;
      ASSERT_EQ(got.size(), 1u) << what;
      std::vector<double> want(n);
      for (size_t i = 0; i < n; ++i) {
        want[i] = RoundTo(dtype, Chain(RoundTo(dtype, xs[i]), RoundTo(dtype, ys[i])));
      }
      // f16/bf16 round at the store (Note [16-bit intermediates]); the
      // float64 reference after every op, as the eager kernels do: a few
      // ulp of the dtype.
      const double tol = dtype == SY_DTYPE_F64 ? 1e-13 : dtype == SY_DTYPE_F32 ? 2e-6
                                                                              : Tolerance(dtype) * 4;
      ExpectClose(got[0], want, tol, what + " vs float64");
    }
  }
}

TEST_F(CudaFusion, UnalignedInputsTakeTheScalarEntry) {
  // A slice that starts one element in: 4-byte aligned, not 16.
  const Tensor base = Random(*rt_, *cuda_, SY_DTYPE_F32, {64, 1025}, 5);
  const Tensor x = Op("slice", {base}, {Attr(1), Attr(1), Attr(1025), Attr(1)});  // [64, 1024]
  const Tensor y = Random(*rt_, *cuda_, SY_DTYPE_F32, {64, 1024}, 6);
  Check(*compiler_, {x, y}, ChainBody(this), 2e-5, "unaligned chain");
  Check(*compiler_, {x, y},
        [&](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{Op("softmax", {Op("mul.Tensor", {in[0], in[1]})})};
        },
        2e-5, "unaligned softmax");
}

// Row reductions at lengths the warp kernel (≤ 1024, with the row kept in
// registers up to 32 values a thread) and the block kernel (longer) take.
TEST_F(CudaFusion, RowReductionsAtEveryRowLength) {
  // 7, 1025, 4097 and 50,257 (GPT-2's vocabulary): rows that start at
  // every alignment (Note [Shifted rows] in plugins/cuda/fused/vector_width.h).
  const int64_t lengths[] = {1, 7, 256, 1000, 1024, 1025, 4096, 4097, 50257, 65536, 262144};
  for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16, SY_DTYPE_F64}) {
    for (int64_t n : lengths) {
      CheckRowOps(dtype, std::max<int64_t>(2, std::min<int64_t>(64, (1 << 20) / n)), n);
    }
  }
}

// RowReductionsAtEveryRowLength's rows fit in one wave of blocks; these
// take more than one on a GPU of 132 SMs (H100, H200), and a row count no
// wave divides, so the last wave is part full: bf16 rows of 4096 run 16
// blocks of 128 an SM at most (2112 at once), f16 rows of 16384 six blocks
// of 256 and 32 KiB (792), rows of 65536 six blocks of 32 KiB an SM, in
// clusters of 4 (bf16: 198 at once) or 8 (f32: 99) — ncu's block limits
// on the H200.
TEST_F(CudaFusion, RowsOverManyWaves) {
  CheckRowOps(SY_DTYPE_BF16, 4099, 4096);
  CheckRowOps(SY_DTYPE_F16, 1003, 16384);
  CheckRowOps(SY_DTYPE_BF16, 251, 65536);
  CheckRowOps(SY_DTYPE_F32, 251, 65536);
}

TEST_F(CudaFusion, KernelCacheInMemoryOnDiskAndPastCorruptEntries) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("sy_cuda_fusion_cache_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CompilerOptions options;
  options.disk_cache = true;
  options.cache_dir = dir.string();
  Compiler compiler(*rt_, options);
  const Tensor x = Random(*rt_, *cuda_, SY_DTYPE_F32, {128, 512}, 10);
  const Tensor y = Random(*rt_, *cuda_, SY_DTYPE_F32, {128, 512}, 11);
  const Body body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{Op("softmax", {ChainBody(this)(in)[0]})};
  };
  CompileStats stats;
  Check(compiler, {x, y}, body, 2e-5, "first compile", &stats);
  EXPECT_GE(stats.kernels_compiled, 1) << description_;
  Check(compiler, {x, y}, body, 2e-5, "from memory", &stats);
  EXPECT_EQ(stats.kernels_compiled, 0) << description_;
  EXPECT_GE(stats.kernels_from_memory, 1) << description_;
  // A new process would find the CUBIN on disk: load_fused, no NVRTC.
  compiler.kernel_cache().ClearMemory();
  Check(compiler, {x, y}, body, 2e-5, "from disk", &stats);
  EXPECT_EQ(stats.kernels_compiled, 0) << description_;
  EXPECT_GE(stats.kernels_from_disk, 1) << description_;
  // Truncated entries are misses: compiled again, still right.
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::filesystem::resize_file(entry.path(), entry.file_size() / 2);
    ++files;
  }
  EXPECT_GE(files, 1);
  compiler.kernel_cache().ClearMemory();
  Check(compiler, {x, y}, body, 2e-5, "past corrupt entries", &stats);
  EXPECT_GE(stats.kernels_compiled, 1) << description_;
  EXPECT_EQ(stats.kernels_from_disk, 0) << description_;
  std::filesystem::remove_all(dir);
}

// One graph on two GPUs of the same kind: each gets its own kernel (the
// in-memory cache is per device). Sharing device 0's module made the second
// GPU's launch an illegal address on both (switchyard demo on 2 H200s).
TEST_F(CudaFusion, EachGpuGetsItsOwnKernel) {
  absl::StatusOr<Device*> second = rt_->GetDevice("cuda:1");
  if (!second.ok()) GTEST_SKIP() << "needs two CUDA devices: " << second.status().message();
  const Body body = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{Op("mul.Tensor", {Op("exp", {in[0]}), in[0]})};
  };
  for (Device* device : {cuda_, *second}) {
    const Tensor x = Random(*rt_, *device, SY_DTYPE_F32, {64, 96}, 21);
    CompileStats stats;
    Check(*compiler_, {x}, body, 1e-5, "exp(x)*x on " + device->label(), &stats);
    EXPECT_EQ(stats.fused_groups, 1) << description_;
    if (device != cuda_) {
      EXPECT_EQ(stats.kernels_from_memory, 0) << description_;
    }
  }
  EXPECT_EQ(rt_->Synchronize(*cuda_), absl::OkStatus());
  EXPECT_EQ(rt_->Synchronize(**second), absl::OkStatus());
}

TEST_F(CudaFusion, MatmulBiasGeluRunsAsTheEpilogueKernel) {
  for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    const Tensor a = Random(*rt_, *cuda_, dtype, {64, 128}, 12, -1, 1);
    const Tensor b = Random(*rt_, *cuda_, dtype, {128, 96}, 13, -1, 1);
    const Tensor bias = Random(*rt_, *cuda_, dtype, {96}, 14);
    CompileOptions options = FusedForm();
    options.patterns = CompileOptions::Patterns::kAlways;
    CompileStats stats;
    // GEMMs accumulate in another order: looser than elementwise.
    Check(*compiler_, {a, b, bias},
          [&](const std::vector<Tensor>& in) {
            const Tensor m = Op("add.Tensor", {Op("matmul", {in[0], in[1]}), in[2]});
            return std::vector<Tensor>{Op("gelu", {m}, {Attr("tanh")})};
          },
          dtype == SY_DTYPE_F32 ? 1e-3 : 3e-2, "matmul_bias_gelu " + Name(dtype), &stats,
          options);
    EXPECT_EQ(stats.patterns, 1) << description_;
    EXPECT_NE(description_.find("cuda::matmul_bias_gelu"), std::string::npos) << description_;
  }
}

// conv2d → relu becomes cuda::conv2d_relu (ReLU on cuDNN's accumulator),
// with and without a bias, NCHW and channels-last, and conv2d's stride,
// padding and dilation carried over (with the replacement's defaults the
// shapes would differ and the match would stay).
TEST_F(CudaFusion, Conv2dReluRunsAsTheFusedConvolution) {
  for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    for (bool nhwc : {false, true}) {
      for (bool bias : {true, false}) {
        const std::string what = "conv2d_relu " + Name(dtype) + (nhwc ? " NHWC" : " NCHW") +
                                 (bias ? " bias" : "");
        // x [2, 8, 13, 13]: a channels-last view of N H W C storage, or a
        // contiguous copy of it.
        const Tensor channels_last =
            Op("permute", {Random(*rt_, *cuda_, dtype, {2, 13, 13, 8}, 31, -1, 1)},
               {Attr(std::vector<int64_t>{0, 3, 1, 2})});
        const Tensor x = nhwc ? channels_last : Op("contiguous", {channels_last});
        const Tensor w = Random(*rt_, *cuda_, dtype, {16, 8, 3, 3}, 32, -0.5, 0.5);
        const Tensor b = Random(*rt_, *cuda_, dtype, {16}, 33);
        // Attr refers to its list: the lists live as long as the attributes.
        const std::vector<int64_t> stride = {2, 1}, padding = {1, 2}, dilation = {1, 2};
        const std::vector<Attr> attrs = {Attr(stride), Attr(padding), Attr(dilation)};
        CompileOptions options = FusedForm();
        options.patterns = CompileOptions::Patterns::kAlways;
        CompileStats stats;
        std::vector<Tensor> inputs = {x, w};
        if (bias) inputs.push_back(b);
        Check(*compiler_, inputs,
              [&](const std::vector<Tensor>& in) {
                std::vector<Tensor> args = in;
                if (!bias) args.push_back(Tensor());
                return std::vector<Tensor>{Op("relu", {Op("conv2d", args, attrs)})};
              },
              dtype == SY_DTYPE_F32 ? 1e-4 : 3e-2, what, &stats, options);
        // In channels-last, relu keeps conv2d's layout (Note [Elementwise
        // output layout]) and so does cuda::conv2d_relu (its schema asks
        // for conv2d's rule, ABI 1.4): the match is replaced in both.
        EXPECT_EQ(stats.patterns, 1) << what << "\n" << description_;
        EXPECT_NE(description_.find(bias ? "pattern conv2d_bias_relu" : "pattern conv2d_relu"),
                  std::string::npos)
            << description_;
      }
    }
  }
}

// No GPU needed: the cuda plugin registers its device table (with the
// hooks) even where it finds no device, so the host sees its compiler and
// patterns on any machine. Also run without NVRTC (compiler "nvrtc (absent)").
TEST(CudaFusionHooks, HangOnTheCudaDeviceTable) {
  std::unique_ptr<Runtime> rt = MakeRuntime({CudaManifest()});
  ASSERT_NE(rt, nullptr);
  const Backends backends = FindBackends(rt->state());
  const FusionBackend* cuda = nullptr;
  for (const FusionBackend& b : backends.fusion) {
    if (b.device_type != nullptr && b.device_type->name() == "cuda") cuda = &b;
  }
  ASSERT_NE(cuda, nullptr) << "no fusion hooks for cuda; notes: "
                           << (backends.notes.empty() ? "none" : backends.notes[0]);
  EXPECT_EQ(cuda->plugin_name, "cuda");
  EXPECT_TRUE(cuda->row_reductions);
  EXPECT_TRUE(cuda->Accepts(SY_DTYPE_BF16));
  EXPECT_TRUE(cuda->Accepts(SY_DTYPE_I64));
  const char* nvrtc_case = std::getenv("SWITCHYARD_TEST_NVRTC_CASE");
  if (nvrtc_case != nullptr && std::string(nvrtc_case) == "missing") {
    EXPECT_EQ(cuda->compiler, "nvrtc (absent)");
  } else {
    EXPECT_EQ(cuda->compiler.rfind("nvrtc ", 0), 0u) << cuda->compiler;
    EXPECT_NE(cuda->compiler.find(" codegen 16"), std::string::npos) << cuda->compiler;
    // Kernels shaped by SWITCHYARD_CUDA_FUSED_ROWS have disk-cache keys of
    // their own (cuda_fusion_test.row_shapes).
    const char* rows = std::getenv("SWITCHYARD_CUDA_FUSED_ROWS");
    const std::string suffix = rows != nullptr ? std::string(" rows ") + rows : "codegen 16";
    EXPECT_EQ(cuda->compiler.substr(cuda->compiler.size() - suffix.size()), suffix)
        << cuda->compiler;
  }
  std::vector<std::string> patterns;
  for (const PatternEntry& p : backends.patterns) {
    if (p.device_type == "cuda") patterns.push_back(p.pattern->name);
  }
  std::sort(patterns.begin(), patterns.end());
  EXPECT_EQ(patterns, (std::vector<std::string>{"conv2d_bias_relu", "conv2d_relu",
                                                "linear_bias_gelu_tanh", "linear_gelu_tanh",
                                                "matmul_bias", "matmul_bias_gelu_tanh"}));
  for (const std::string& note : backends.notes) {
    EXPECT_EQ(note.find("cuda"), std::string::npos) << note;
  }
}

// Note [Online softmax]: softmax and log_softmax reduce their max and sum
// as one (max, sum) pair. Rows with −inf entries (masked), a row all −inf,
// a row with a NaN and a row with +inf must come out as the unfused graph
// has them (NaN where it has NaN, 0 for masked entries), at lengths that
// take the warp, the block and the cluster kernels (f32 at 262144: 16
// blocks), where a thread's own elements can all be −inf while the row's
// are not. ctest runs it again as cuda_fusion_test.online_rows, with
// online=1.
TEST_F(CudaFusion, SoftmaxRowsWithMaskedAndNonFiniteEntries) {
  for (int64_t n : {int64_t{7}, int64_t{1000}, int64_t{4096}, int64_t{50257}, int64_t{65536},
                    int64_t{262144}}) {
    for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
      const int64_t rows = 6;
      std::vector<double> xs = RandomValues(static_cast<size_t>(rows * n), 23, -4, 4);
      for (int64_t j = 0; j < n; ++j) {
        if (j % 3 != 1) xs[0 * n + j] = -INFINITY;  // row 0: two of three masked
        if (j >= n / 2) xs[1 * n + j] = -INFINITY;  // row 1: its second half masked
        xs[2 * n + j] = -INFINITY;                   // row 2: all masked
      }
      xs[3 * n + n / 3] = NAN;       // row 3: one NaN
      xs[4 * n + n - 1] = INFINITY;  // row 4: one +inf; row 5 finite
      const Tensor x = FromValues(*rt_, *cuda_, dtype, {rows, n}, xs);
      for (const char* op : {"softmax", "log_softmax"}) {
        const std::string what = Name(dtype) + " " + op + " rows of " + std::to_string(n);
        CompileStats stats;
        std::vector<std::vector<double>> got = Check(
            *compiler_, {x},
            [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{Op(op, {in[0]})}; },
            Tolerance(dtype) * 8, what, &stats);
        EXPECT_EQ(stats.fused_groups, 1) << what << "\n" << description_;
        ASSERT_EQ(got.size(), 1u) << what;
        // Row 0's masked entries are exactly 0 (softmax) or −inf.
        for (int64_t j = 0; j < n; j += 3) {
          EXPECT_EQ(got[0][j], std::string(op) == "softmax" ? 0.0 : -INFINITY) << what;
        }
        EXPECT_TRUE(std::isnan(got[0][2 * n])) << what << ": an all −inf row is NaN";
        EXPECT_TRUE(std::isnan(got[0][3 * n])) << what << ": a NaN makes its row NaN";
        EXPECT_FALSE(std::isnan(got[0][5 * n])) << what;
      }
    }
  }
}

// Note [Packed 16-bit max] and [Paired 16-bit stores] (cuda_codegen.cc): a
// row's max and min over f16 and bf16 elements compare the elements two to
// an instruction, and 16-bit results are rounded two to an instruction.
// The max and min must equal float64's exactly — whichever half of a word
// holds the extreme, the NaN, or a row that is all −inf — and x − max,
// x − min and softmax (f16's stores) match the unfused graph, at lengths
// that take the warp, block and cluster kernels.
TEST_F(CudaFusion, SixteenBitMaxAndMinAreExact) {
  for (sy_dtype_t dtype : {SY_DTYPE_F16, SY_DTYPE_BF16}) {
    for (int64_t n : {int64_t{1000}, int64_t{4096}, int64_t{65536}}) {
      const int64_t rows = 5;
      std::vector<double> xs = RandomValues(static_cast<size_t>(rows * n), 31, -4, 4);
      xs[0 * n + n / 2] = 9.5;                     // row 0: the max in an even lane
      xs[0 * n + n / 2 + 3] = -9.5;                // and the min in an odd one
      xs[1 * n + n - 1] = NAN;                     // row 1: a NaN in the last (odd) lane
      for (int64_t j = 0; j < n; ++j) xs[2 * n + j] = -INFINITY;  // row 2: all −inf
      xs[3 * n + 2] = NAN;                         // row 3: a NaN in an even lane
      const Tensor x = FromValues(*rt_, *cuda_, dtype, {rows, n}, xs);
      const std::string what = Name(dtype) + " rows of " + std::to_string(n);
      CompileStats stats;
      std::vector<std::vector<double>> got = Check(
          *compiler_, {x},
          [&](const std::vector<Tensor>& in) {
            const Tensor m = Op("max", {in[0]}, {Attr({-1}), Attr(true)});
            const Tensor l = Op("min", {in[0]}, {Attr({-1}), Attr(true)});
            return std::vector<Tensor>{m, l, Op("sub.Tensor", {in[0], m}),
                                       Op("sub.Tensor", {in[0], l}), Op("softmax", {in[0]})};
          },
          Tolerance(dtype) * 8, what, &stats);
      EXPECT_EQ(stats.unfused_groups, 0) << what << "\n" << description_;
      ASSERT_EQ(got.size(), 5u) << what;
      for (int64_t r = 0; r < rows; ++r) {
        double want_max = -INFINITY, want_min = INFINITY;
        bool nan = false;
        for (int64_t j = 0; j < n; ++j) {
          const double v = RoundTo(dtype, xs[r * n + j]);
          nan = nan || std::isnan(v);
          want_max = std::max(want_max, v);
          want_min = std::min(want_min, v);
        }
        if (nan) {
          EXPECT_TRUE(std::isnan(got[0][r])) << what << " row " << r;
          EXPECT_TRUE(std::isnan(got[1][r])) << what << " row " << r;
        } else {
          EXPECT_EQ(got[0][r], want_max) << what << " row " << r;
          EXPECT_EQ(got[1][r], want_min) << what << " row " << r;
        }
      }
    }
  }
}

// bf16 has f32's exponent range, so softmax of x − max between −92 and
// −87 is a bf16 subnormal (2^-133 … 2^-126). The exps of the sum may flush
// there (Note [16-bit results], sy_exp16_ftz: the sum holds 1), those of
// the output must not: every entry comes out nonzero, within an ulp of
// float64's, at lengths that take the warp, block and cluster kernels.
TEST_F(CudaFusion, Bf16SoftmaxKeepsSubnormalResults) {
  for (int64_t n : {int64_t{7}, int64_t{1000}, int64_t{4096}, int64_t{65536}}) {
    const int64_t rows = 3;
    std::vector<double> xs(static_cast<size_t>(rows * n));
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < n; ++j) xs[r * n + j] = -87.5 - 0.25 * static_cast<double>((j + r) % 18);
      xs[r * n + (r * 5) % n] = 0;  // the row's max, so the sum is 1 and a little
    }
    const Tensor x = FromValues(*rt_, *cuda_, SY_DTYPE_BF16, {rows, n}, xs);
    const std::string what = "bf16 softmax rows of " + std::to_string(n);
    std::vector<std::vector<double>> got = Check(
        *compiler_, {x},
        [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{Op("softmax", {in[0]})}; },
        Tolerance(SY_DTYPE_BF16), what);
    ASSERT_EQ(got.size(), 1u) << what;
    int checked = 0;
    for (int64_t i = 0; i < rows * n; ++i) {
      const double v = RoundTo(SY_DTYPE_BF16, xs[i]);
      if (v == 0) continue;
      // The sum is 1 within 2^-100; bf16's subnormals are 2^-133 apart.
      const double want = RoundTo(SY_DTYPE_BF16, std::exp(v));
      ASSERT_GT(got[0][i], 0.0) << what << ", entry " << i << " (x = " << v << ")";
      EXPECT_NEAR(got[0][i], want, std::max(want * 0x1p-7, 0x1p-133)) << what << ", entry " << i;
      ++checked;
    }
    EXPECT_GE(checked, rows * (n - 1)) << what;
  }
}

// Run by ctest as cuda_fusion_test.row_shapes (SWITCHYARD_CUDA_FUSED_ROWS=
// block=256: clusters of 256-thread blocks from rows of 8192 f32 on),
// .shared_rows (shared=1: rows kept in shared memory) and
// .bad_row_shapes (block=300): other row-kernel shapes give the same
// softmax; a value that does not parse leaves the groups unfused, saying
// why.
TEST_F(CudaFusion, RowShapesFromTheEnvironment) {
  const char* rows = std::getenv("SWITCHYARD_CUDA_FUSED_ROWS");
  if (rows == nullptr) {
    GTEST_SKIP() << "runs as cuda_fusion_test.row_shapes, .shared_rows, .cluster16_rows, "
                    ".online_rows and .bad_row_shapes";
  }
  const bool bad = std::string(rows) == "block=300";
  for (int64_t n : {int64_t{4096}, int64_t{16384}, int64_t{65536}, int64_t{262144}}) {
    for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
      const Tensor x = Random(*rt_, *cuda_, dtype, {3, n}, 17);
      const std::string what = Name(dtype) + " softmax rows of " + std::to_string(n);
      CompileStats stats;
      Check(*compiler_, {x},
            [&](const std::vector<Tensor>& in) {
              return std::vector<Tensor>{Op("softmax", {in[0]})};
            },
            Tolerance(dtype) * 8, what, &stats);
      EXPECT_EQ(stats.unfused_groups, bad ? 1 : 0) << what << "\n" << description_;
      if (bad) {
        EXPECT_NE(description_.find("SWITCHYARD_CUDA_FUSED_ROWS: 'block=300' in 'block=300' is "
                                    "not kept=<bytes, 4 to 1024>, block=<a power of two"),
                  std::string::npos) << description_;
      }
    }
  }
}

// Launch configurations through the autotuner (Note [Row kernel shapes],
// docs/fusion.md "Launch configurations"): with autotuning on, every
// configuration of long softmax and rms_norm rows is compiled, run and
// checked against configuration 0 — none may be wrong or fail — and the
// winner's graph matches the unfused one; a second compile takes the
// stored choice without measuring. The row kernels and their verdicts are
// printed for the device run's log.
TEST(CudaLaunchTuning, EveryRowConfigurationMatchesTheDefaultAndTheWinnerIsKept) {
  core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {CpuManifest(), CudaManifest()};
  options.cpu_fallback = false;
  autotune::TunerOptions tuner_options;
  tuner_options.in_memory = true;
  options.tuner_factory = autotune::MakeTunerFactory(tuner_options);
  options.autotune = core::AutotuneMode::kOn;
  absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::Create(options);
  ASSERT_TRUE(rt.ok()) << rt.status();
  absl::StatusOr<Device*> cuda = (*rt)->GetDevice("cuda:0");
  if (!cuda.ok()) GTEST_SKIP() << "no CUDA device: " << cuda.status().message();
  auto* tuner = static_cast<autotune::Tuner*>((*rt)->tuner());
  CompilerOptions compiler_options;
  compiler_options.disk_cache = false;
  compiler_options.launch.tuner = tuner;
  compiler_options.launch.measure.budget_ms = 30;
  CompileOptions fused;
  fused.native_single_ops = false;  // the generated row kernels, not the plugin's ops
  CompileOptions unfused;
  unfused.fuse = false;
  for (sy_dtype_t dtype : {SY_DTYPE_F32, SY_DTYPE_BF16}) {
    for (int64_t n : {int64_t{4096}, int64_t{65536}, int64_t{262144}}) {
      const std::string what = Name(dtype) + " rows of " + std::to_string(n);
      const Tensor x = Random(**rt, **cuda, dtype, {4, n}, 21);
      const Tensor w = Random(**rt, **cuda, dtype, {n}, 22);
      absl::StatusOr<Graph> graph =
          CaptureGraph(**rt, {x, w}, [&](const std::vector<Tensor>& in) {
            return std::vector<Tensor>{Call(**rt, "softmax", {in[0]}),
                                       Call(**rt, "rms_norm", {in[0], in[1]}, {Attr(1e-5)})};
          });
      ASSERT_TRUE(graph.ok()) << what << ": " << graph.status();
      for (int pass = 0; pass < 2; ++pass) {
        Compiler compiler(**rt, compiler_options);
        absl::StatusOr<CompiledGraph> tuned = compiler.Compile(*graph, fused);
        absl::StatusOr<CompiledGraph> plain = compiler.Compile(*graph, unfused);
        ASSERT_TRUE(tuned.ok()) << what << ": " << tuned.status();
        ASSERT_TRUE(plain.ok()) << what << ": " << plain.status();
        const CompileStats& stats = tuned->stats();
        EXPECT_EQ(stats.unfused_groups, 0) << what << "\n" << tuned->Describe();
        EXPECT_EQ(pass == 0 ? stats.launch_cached : stats.launch_measured, 0) << what;
        std::printf("%s, pass %d: %d measured, %d from the cache, %.1f ms tuning\n%s",
                    what.c_str(), pass, stats.launch_measured, stats.launch_cached,
                    stats.launch_tune_ms, tuned->Describe().c_str());
        absl::StatusOr<std::vector<Tensor>> got = tuned->Launch({x, w});
        absl::StatusOr<std::vector<Tensor>> want = plain->Launch({x, w});
        ASSERT_TRUE(got.ok()) << what << ": " << got.status();
        ASSERT_TRUE(want.ok()) << what << ": " << want.status();
        for (size_t i = 0; i < got->size(); ++i) {
          ExpectClose(Read(**rt, (*got)[i]), Read(**rt, (*want)[i]), Tolerance(dtype) * 8,
                      what + " output " + std::to_string(i));
        }
      }
    }
  }
  // No configuration of any kernel was wrong or failed.
  absl::StatusOr<std::vector<autotune::Verdict>> verdicts = tuner->cache().List("");
  ASSERT_TRUE(verdicts.ok()) << verdicts.status();
  int fused_verdicts = 0;
  for (const autotune::Verdict& v : *verdicts) {
    if (v.key.op != autotune::kFusedLaunchOp) continue;
    ++fused_verdicts;
    std::printf("verdict %s: %s (%.1f us)\n  %s\n", v.kernel.c_str(), v.variant_name.c_str(),
                v.time_ns / 1e3, v.detail.c_str());
    EXPECT_EQ(v.detail.find("\"outcome\":\"wrong\""), std::string::npos) << v.detail;
    EXPECT_EQ(v.detail.find("\"outcome\":\"failed\""), std::string::npos) << v.detail;
  }
  EXPECT_GT(fused_verdicts, 0);
}

// Run by ctest as cuda_fusion_test.without_nvrtc, with SWITCHYARD_NVRTC_LIBRARY
// naming a missing file (tests/fusion/CMakeLists.txt).
TEST_F(CudaFusion, WithoutNvrtcGroupsRunUnfusedAndSayWhy) {
  const char* expect = std::getenv("SWITCHYARD_TEST_NVRTC_CASE");
  if (expect == nullptr || std::string(expect) != "missing") {
    GTEST_SKIP() << "runs as cuda_fusion_test.without_nvrtc";
  }
  const Tensor x = Random(*rt_, *cuda_, SY_DTYPE_F32, {16, 300}, 15);
  const Tensor y = Random(*rt_, *cuda_, SY_DTYPE_F32, {16, 300}, 16);
  CompileStats stats;
  Check(*compiler_, {x, y}, ChainBody(this), 2e-6, "without NVRTC", &stats);
  EXPECT_EQ(stats.fused_groups, 0) << description_;
  EXPECT_GE(stats.unfused_groups, 1) << description_;
  EXPECT_NE(description_.find("NVRTC could not be loaded"), std::string::npos) << description_;
}

}  // namespace
}  // namespace sy::fusion::testing
