// Fused kernels on the vulkan plugin (GLSL through shaderc; docs/vulkan.md,
// "Fusion"), beyond the fused-vs-unfused graphs of fused_ops_test.cc: the
// hooks on the device table and the dtypes they advertise; the kernel
// cache (a second compile comes from memory, a cleared memory from the
// disk through load_fused and the SPIR-V bytes); a group with a dtype the
// hooks refuse (SWITCHYARD_VULKAN_FUSION_DTYPES, in a ctest process of its
// own) runs unfused with the reason in the graph's description; and the
// softmax rows against a float64 reference.
//
// Without a Vulkan device (no lavapipe) every test skips with
// "no Vulkan device: …".
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "fusion/backend/backends.h"
#include "fusion/backend/kernel_cache.h"
#include "fusion/graph.h"
#include "fusion_test_util.h"
#include "gtest/gtest.h"

namespace sy::fusion::testing {
namespace {

using Body = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

bool RestrictedRun() { return std::getenv("SWITCHYARD_VULKAN_FUSION_DTYPES") != nullptr; }

class VulkanFusion : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = MakeRuntime({VulkanManifest()});
    ASSERT_NE(rt_, nullptr);
    absl::StatusOr<Device*> dev = rt_->GetDevice("vulkan:0");
    if (!dev.ok()) GTEST_SKIP() << "no Vulkan device: " << dev.status().message();
    vk_ = *dev;
  }

  Tensor Op(const std::string& op, std::vector<Tensor> in, std::vector<Attr> attrs = {}) {
    return Call(*rt_, op, std::move(in), std::move(attrs));
  }

  // Compiles and launches `body` fused with `compiler`; the outputs as
  // doubles, the stats in *stats and the description in description_.
  std::vector<std::vector<double>> Run(Compiler& compiler, const std::vector<Tensor>& inputs,
                                       const Body& body, CompileStats* stats) {
    absl::StatusOr<Graph> graph = CaptureGraph(*rt_, inputs, body);
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return {};
    absl::StatusOr<CompiledGraph> fused = compiler.Compile(*graph);
    EXPECT_TRUE(fused.ok()) << fused.status();
    if (!fused.ok()) return {};
    description_ = fused->Describe();
    *stats = fused->stats();
    absl::StatusOr<std::vector<Tensor>> out = fused->Launch(inputs);
    EXPECT_TRUE(out.ok()) << out.status() << "\n" << description_;
    std::vector<std::vector<double>> got;
    if (out.ok()) {
      for (const Tensor& t : *out) got.push_back(Read(*rt_, t));
    }
    return got;
  }

  // softmax(x · y + 1) over rows of n, and its float64 reference.
  Body SoftmaxBody() {
    return [this](const std::vector<Tensor>& in) {
      const Tensor a = Op("add.Scalar", {Op("mul.Tensor", {in[0], in[1]})}, {Attr(1.0)});
      return std::vector<Tensor>{Op("softmax", {a})};
    };
  }
  static std::vector<double> SoftmaxReference(sy_dtype_t dtype, const std::vector<double>& xs,
                                              const std::vector<double>& ys, int64_t rows,
                                              int64_t n) {
    std::vector<double> want(xs.size());
    for (int64_t r = 0; r < rows; ++r) {
      std::vector<double> a(n);
      double m = -INFINITY, s = 0;
      for (int64_t j = 0; j < n; ++j) {
        const size_t k = r * n + j;
        a[j] = RoundTo(dtype, RoundTo(dtype, RoundTo(dtype, xs[k]) * RoundTo(dtype, ys[k])) + 1);
        m = std::max(m, a[j]);
      }
      for (int64_t j = 0; j < n; ++j) s += std::exp(a[j] - m);
      for (int64_t j = 0; j < n; ++j) want[r * n + j] = std::exp(a[j] - m) / s;
    }
    return want;
  }

  std::unique_ptr<Runtime> rt_;
  Device* vk_ = nullptr;
  std::string description_;
};

TEST_F(VulkanFusion, HooksHangOnTheVulkanDeviceTable) {
  const Backends backends = FindBackends(rt_->state());
  const FusionBackend* vk = nullptr;
  for (const FusionBackend& b : backends.fusion) {
    if (b.device_type != nullptr && b.device_type->name() == "vulkan") vk = &b;
  }
  ASSERT_NE(vk, nullptr) << "no fusion hooks for vulkan; notes: "
                         << (backends.notes.empty() ? "none" : backends.notes[0]);
  EXPECT_EQ(vk->plugin_name, "vulkan");
  EXPECT_TRUE(vk->row_reductions);
  EXPECT_EQ(vk->compiler.rfind("shaderc (SPIR-V ", 0), 0u) << vk->compiler;
  EXPECT_NE(vk->compiler.find(" glsl codegen 2"), std::string::npos) << vk->compiler;
  EXPECT_TRUE(vk->Accepts(SY_DTYPE_F32));
  // The plugin holds no f64 or bf16 tensors: never advertised.
  EXPECT_FALSE(vk->Accepts(SY_DTYPE_F64));
  EXPECT_FALSE(vk->Accepts(SY_DTYPE_BF16));
  // lavapipe has 16- and 8-bit storage, shaderFloat64 and shaderInt64.
  if (!RestrictedRun() && vk_->properties().name.find("lavapipe") != std::string::npos) {
    EXPECT_TRUE(vk->Accepts(SY_DTYPE_F16));
    EXPECT_TRUE(vk->Accepts(SY_DTYPE_BOOL));
    EXPECT_TRUE(vk->Accepts(SY_DTYPE_I64));
  }
  if (RestrictedRun()) {
    EXPECT_FALSE(vk->Accepts(SY_DTYPE_F16));
  }
}

TEST_F(VulkanFusion, SoftmaxRowsMatchFloat64AndTheCacheServesMemoryThenDisk) {
  if (RestrictedRun()) GTEST_SKIP() << "runs without SWITCHYARD_VULKAN_FUSION_DTYPES";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("sy_vulkan_fusion_cache_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CompilerOptions options;
  options.disk_cache = true;
  options.cache_dir = dir.string();
  Compiler compiler(*rt_, options);
  // 300 > 256: each invocation of the row's workgroup takes two elements.
  const int64_t rows = 5, n = 300;
  const std::vector<double> xs = RandomValues(rows * n, 21), ys = RandomValues(rows * n, 22);
  const Tensor x = FromValues(*rt_, *vk_, SY_DTYPE_F32, {rows, n}, xs);
  const Tensor y = FromValues(*rt_, *vk_, SY_DTYPE_F32, {rows, n}, ys);
  const std::vector<double> want = SoftmaxReference(SY_DTYPE_F32, xs, ys, rows, n);
  CompileStats stats;
  std::vector<std::vector<double>> got = Run(compiler, {x, y}, SoftmaxBody(), &stats);
  ASSERT_EQ(got.size(), 1u) << description_;
  ExpectClose(got[0], want, 2e-6, "compiled");
  EXPECT_EQ(stats.fused_groups, 1) << description_;
  EXPECT_EQ(stats.unfused_groups, 0) << description_;
  EXPECT_GE(stats.kernels_compiled, 1) << description_;
  got = Run(compiler, {x, y}, SoftmaxBody(), &stats);
  EXPECT_EQ(stats.kernels_compiled, 0) << description_;
  EXPECT_GE(stats.kernels_from_memory, 1) << description_;
  // A new process would find the SPIR-V on disk: load_fused, no shaderc.
  compiler.kernel_cache().ClearMemory();
  got = Run(compiler, {x, y}, SoftmaxBody(), &stats);
  EXPECT_EQ(stats.kernels_compiled, 0) << description_;
  EXPECT_GE(stats.kernels_from_disk, 1) << description_;
  ASSERT_EQ(got.size(), 1u);
  ExpectClose(got[0], want, 2e-6, "loaded from disk");
  std::filesystem::remove_all(dir);
}

// Integer and bool operands enter a group through casts (i32 and i64
// compute in double, bool in float) and a bool leaves it (a compare),
// checked against values computed here.
TEST_F(VulkanFusion, IntegerAndBoolOperandsThroughCasts) {
  if (RestrictedRun()) GTEST_SKIP() << "runs without SWITCHYARD_VULKAN_FUSION_DTYPES";
  const int64_t n = 300;
  std::vector<double> is(n), js(n);
  for (int64_t k = 0; k < n; ++k) {
    is[k] = static_cast<double>((k * 7919) % 2001) - 1000;  // -1000 … 1000
    js[k] = static_cast<double>(k % 5 == 0);
  }
  for (sy_dtype_t int_dtype : {SY_DTYPE_I32, SY_DTYPE_I64}) {
    const Tensor i = FromValues(*rt_, *vk_, int_dtype, {n}, is);
    const Tensor b = FromValues(*rt_, *vk_, SY_DTYPE_BOOL, {n}, js);
    const Body body = [&](const std::vector<Tensor>& in) {
      const Tensor f = Op("cast", {in[0]}, {Attr::DType(SY_DTYPE_F32)});
      const Tensor g = Op("cast", {in[1]}, {Attr::DType(SY_DTYPE_F32)});
      const Tensor h = Op("add.Tensor", {Op("mul.Scalar", {f}, {Attr(0.75)}), g});
      return std::vector<Tensor>{Op("cast", {h}, {Attr::DType(int_dtype)}),
                                 Op("gt.Scalar", {h}, {Attr(10.0)}), h};
    };
    CompilerOptions options;
    options.disk_cache = false;
    Compiler compiler(*rt_, options);
    CompileStats stats;
    const std::vector<std::vector<double>> got = Run(compiler, {i, b}, body, &stats);
    ASSERT_EQ(got.size(), 3u) << description_;
    EXPECT_EQ(stats.fused_groups, 1) << description_;
    // Every op but the cast back to the integer, which the pass leaves to
    // its kernel: the integer and bool loads are the group's.
    EXPECT_EQ(stats.fused_ops, 5) << description_;
    EXPECT_EQ(stats.unfused_groups, 0) << description_;
    std::vector<double> want_int(n), want_gt(n), want_h(n);
    for (int64_t k = 0; k < n; ++k) {
      const double h = static_cast<float>(static_cast<float>(is[k] * 0.75) + js[k]);
      want_h[k] = h;
      want_int[k] = std::trunc(h);
      want_gt[k] = h > 10 ? 1 : 0;
    }
    const std::string what = std::string(core::DTypeName(int_dtype));
    ExpectClose(got[0], want_int, 0, what + " cast back");
    ExpectClose(got[1], want_gt, 0, what + " compare");
    ExpectClose(got[2], want_h, 0, what + " f32");
  }
}

// Run by ctest as vulkan_fusion_test.refused_dtype, with
// SWITCHYARD_VULKAN_FUSION_DTYPES=f32 (tests/fusion/CMakeLists.txt).
TEST_F(VulkanFusion, ARefusedDtypeRunsUnfusedAndSaysWhy) {
  if (!RestrictedRun()) GTEST_SKIP() << "runs as vulkan_fusion_test.refused_dtype";
  const int64_t rows = 3, n = 40;
  const std::vector<double> xs = RandomValues(rows * n, 23), ys = RandomValues(rows * n, 24);
  for (sy_dtype_t dtype : {SY_DTYPE_F16, SY_DTYPE_F32}) {
    const Tensor x = FromValues(*rt_, *vk_, dtype, {rows, n}, xs);
    const Tensor y = FromValues(*rt_, *vk_, dtype, {rows, n}, ys);
    CompilerOptions options;
    options.disk_cache = false;
    Compiler compiler(*rt_, options);
    CompileStats stats;
    const std::vector<std::vector<double>> got = Run(compiler, {x, y}, SoftmaxBody(), &stats);
    ASSERT_EQ(got.size(), 1u) << description_;
    ExpectClose(got[0], SoftmaxReference(dtype, xs, ys, rows, n),
                dtype == SY_DTYPE_F16 ? 4e-3 : 2e-6, "refused dtype");
    if (dtype == SY_DTYPE_F16) {
      // x·y + 1 stays with the f16 kernels, and says why; (softmax of f16
      // decomposes into casts around an f32 softmax, which still fuses).
      EXPECT_NE(description_.find("mul.Tensor on vulkan:0 → kernel vulkan::vulkan.mul.Tensor.f16"),
                std::string::npos)
          << description_;
      EXPECT_NE(description_.find("(not fused: reads f16, which plugin 'vulkan' (shaderc"),
                std::string::npos)
          << description_;
    } else {
      EXPECT_EQ(stats.fused_groups, 1) << description_;  // f32 still fuses
    }
  }
}

}  // namespace
}  // namespace sy::fusion::testing
