// Fused results equal unfused ones: each graph is compiled twice, with and
// without fusion, launched on random inputs, and compared element by
// element within the dtype's tolerance — for every fusable op and dtype,
// the reduce-then-broadcast patterns, broadcast, strided and empty inputs,
// and intermediates that are outputs. The chain is also checked against a
// float64 reference computed here.
//
// Every test runs on each device of kDevices: cpu (the evaluator), cuda
// where the plugin is built (NVRTC-compiled kernels; "no CUDA device: …"
// skips without a GPU), and vulkan where the plugin is built with its
// fusion hooks (GLSL through shaderc; lavapipe in CI, "no Vulkan device: …"
// skips without one). On vulkan only the dtypes the plugin has kernels for
// run (f32, f16: there is no unfused f64 or bf16 to compare with). On cpu, with the cuda plugin built, every fused
// kernel's IR also goes through the CUDA code generator and NVRTC
// (cuda_source_check.h): the generated source of every graph here is
// compiled for sm_90 on machines without a GPU.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "fusion/graph.h"
#include "cuda_source_check.h"
#include "fusion_test_util.h"
#include "gtest/gtest.h"

namespace sy::fusion::testing {
namespace {

const sy_dtype_t kFloatDtypes[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16, SY_DTYPE_BF16};
const sy_dtype_t kVulkanFloatDtypes[] = {SY_DTYPE_F32, SY_DTYPE_F16};

std::string Name(sy_dtype_t d) { return std::string(core::DTypeName(d)); }

class FusedOps : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const std::string device = GetParam();
    std::vector<std::string> extra;
    if (device == "cuda") extra.push_back(CudaManifest());
    if (device == "vulkan") extra.push_back(VulkanManifest());
    rt_ = MakeRuntime(extra);
    ASSERT_NE(rt_, nullptr);
    absl::StatusOr<Device*> dev = rt_->GetDevice(device == "cpu" ? device : device + ":0");
    if (!dev.ok()) {
      GTEST_SKIP() << "no " << (device == "cuda" ? "CUDA" : "Vulkan")
                   << " device: " << dev.status().message();
    }
    dev_ = *dev;
    CompilerOptions options;
    options.disk_cache = false;
    compiler_ = std::make_unique<Compiler>(*rt_, options);
  }
  void TearDown() override {
    compiler_.reset();
    rt_.reset();
  }

  // Captures `body` on `inputs`, runs it fused and unfused, and compares.
  // Returns the fused graph's stats.
  CompileStats Check(const std::vector<Tensor>& inputs,
                     const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body,
                     double tol, const std::string& what,
                     const CompileOptions& fused_options = {}) {
    absl::StatusOr<Graph> graph = CaptureGraph(*rt_, inputs, body);
    EXPECT_TRUE(graph.ok()) << what << ": " << graph.status();
    if (!graph.ok()) return {};
    CompileOptions unfused_options;
    unfused_options.fuse = false;
    absl::StatusOr<CompiledGraph> fused = compiler_->Compile(*graph, fused_options);
    absl::StatusOr<CompiledGraph> unfused = compiler_->Compile(*graph, unfused_options);
    EXPECT_TRUE(fused.ok()) << what << ": " << fused.status();
    EXPECT_TRUE(unfused.ok()) << what << ": " << unfused.status();
    if (!fused.ok() || !unfused.ok()) return {};
    absl::StatusOr<std::vector<Tensor>> got = fused->Launch(inputs);
    absl::StatusOr<std::vector<Tensor>> want = unfused->Launch(inputs);
    EXPECT_TRUE(got.ok()) << what << ": " << got.status() << "\n" << fused->Describe();
    EXPECT_TRUE(want.ok()) << what << ": " << want.status();
    if (!got.ok() || !want.ok()) return {};
    EXPECT_EQ(got->size(), want->size());
    for (size_t i = 0; i < got->size() && i < want->size(); ++i) {
      EXPECT_EQ((*got)[i].dtype(), (*want)[i].dtype()) << what;
      EXPECT_EQ((*got)[i].shape(), (*want)[i].shape()) << what;
      ExpectClose(Read(*rt_, (*got)[i]), Read(*rt_, (*want)[i]), tol,
                  what + " output " + std::to_string(i) + "\n" + fused->Describe(true));
    }
    if (getenv("FUSION_TEST_VERBOSE")) std::cerr << what << "\n" << fused->Describe(true);
    // On a GPU the kernels ran; elsewhere NVRTC at least compiles them.
    if (std::string(GetParam()) == "cpu") {
      for (const FusedKernel* kernel : fused->fused_kernels()) {
        ExpectCudaSourceCompiles(*kernel, what);
      }
    }
    if (std::string(GetParam()) != "cpu") {
      EXPECT_EQ(fused->stats().unfused_groups, 0) << what << "\n" << fused->Describe();
    }
    return fused->stats();
  }

  // The float dtypes the device has unfused kernels for.
  absl::Span<const sy_dtype_t> FloatDtypes() const {
    if (std::string(GetParam()) == "vulkan") return kVulkanFloatDtypes;
    return kFloatDtypes;
  }

  Tensor Op(const std::string& op, std::vector<Tensor> in, std::vector<Attr> attrs = {}) {
    return Call(*rt_, op, std::move(in), std::move(attrs));
  }

  std::unique_ptr<Runtime> rt_;
  Device* dev_ = nullptr;
  std::unique_ptr<Compiler> compiler_;
};

TEST_P(FusedOps, EightOpChainInOneKernel) {
  for (sy_dtype_t dtype : FloatDtypes()) {
    const Tensor x = Random(*rt_, *dev_, dtype, {37, 129}, 1);
    const Tensor y = Random(*rt_, *dev_, dtype, {37, 129}, 2);
    const CompileStats stats = Check(
        {x, y},
        [&](const std::vector<Tensor>& in) {
          Tensor a = Op("mul.Tensor", {in[0], in[1]});
          a = Op("add.Scalar", {a}, {Attr(1.0)});
          a = Op("tanh", {a});
          a = Op("mul.Scalar", {a}, {Attr(2.0)});
          a = Op("sub.Tensor", {a, in[1]});
          a = Op("sigmoid", {a});
          a = Op("relu", {a});
          return std::vector<Tensor>{Op("add.Tensor", {a, in[0]})};
        },
        Tolerance(dtype), "chain " + Name(dtype));
    EXPECT_EQ(stats.fused_groups, 1) << Name(dtype);
    EXPECT_EQ(stats.fused_ops, 8) << Name(dtype);
  }
}

TEST_P(FusedOps, ChainMatchesFloat64Reference) {
  const std::vector<double> xs = RandomValues(1000, 3), ys = RandomValues(1000, 4);
  const Tensor x = FromValues(*rt_, *dev_, SY_DTYPE_F32, {1000}, xs);
  const Tensor y = FromValues(*rt_, *dev_, SY_DTYPE_F32, {1000}, ys);
  absl::StatusOr<Graph> graph = CaptureGraph(*rt_, {x, y}, [&](const std::vector<Tensor>& in) {
    Tensor a = Op("add.Scalar", {Op("mul.Tensor", {in[0], in[1]})}, {Attr(1.0)});
    a = Op("sub.Tensor", {Op("mul.Scalar", {Op("tanh", {a})}, {Attr(2.0)}), in[1]});
    return std::vector<Tensor>{Op("add.Tensor", {Op("relu", {Op("sigmoid", {a})}), in[0]})};
  });
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<CompiledGraph> fused = compiler_->Compile(*graph);
  ASSERT_TRUE(fused.ok()) << fused.status();
  absl::StatusOr<std::vector<Tensor>> out = fused->Launch({x, y});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) {
    const double xf = static_cast<float>(xs[i]), yf = static_cast<float>(ys[i]);
    const double s = 1 / (1 + std::exp(-(std::tanh(xf * yf + 1) * 2 - yf)));
    want[i] = std::max(s, 0.0) + xf;
  }
  ExpectClose(Read(*rt_, (*out)[0]), want, 2e-6, "chain vs float64");
}

struct Unary {
  const char* op;
  double lo, hi;
};

TEST_P(FusedOps, EveryUnaryOpAndDtype) {
  const Unary ops[] = {{"neg", -2, 2},   {"abs", -2, 2},     {"relu", -2, 2},
                       {"square", -2, 2}, {"exp", -2, 2},     {"log", 0.1, 3},
                       {"sqrt", 0.1, 3},  {"rsqrt", 0.1, 3},  {"sin", -3, 3},
                       {"cos", -3, 3},    {"tanh", -3, 3},    {"sigmoid", -5, 5},
                       {"silu", -5, 5},   {"erf", -2, 2},     {"reciprocal", 0.5, 3},
                       {"gelu", -4, 4}};
  for (const Unary& u : ops) {
    for (sy_dtype_t dtype : FloatDtypes()) {
      const Tensor x = Random(*rt_, *dev_, dtype, {3, 70}, 5, u.lo, u.hi);
      // x·1 + 0 around the op puts three ops in one group.
      Check({x},
            [&](const std::vector<Tensor>& in) {
              Tensor a = Op("mul.Scalar", {in[0]}, {Attr(1.0)});
              a = Op(u.op, {a});
              return std::vector<Tensor>{Op("add.Scalar", {a}, {Attr(0.5)})};
            },
            Tolerance(dtype), std::string(u.op) + " " + Name(dtype));
    }
  }
  // gelu's tanh form.
  const Tensor x = Random(*rt_, *dev_, SY_DTYPE_F32, {200}, 6, -4, 4);
  Check({x},
        [&](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{
              Op("neg", {Op("gelu", {Op("neg", {in[0]})}, {Attr("tanh")})})};
        },
        2e-5, "gelu tanh");
}

TEST_P(FusedOps, EveryBinaryCompareAndSelectOpAndDtype) {
  const char* binary[] = {"add", "sub", "mul", "div", "pow", "maximum", "minimum"};
  const char* compare[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  for (sy_dtype_t dtype : FloatDtypes()) {
    const Tensor a = Random(*rt_, *dev_, dtype, {5, 33}, 7, 0.5, 2);
    const Tensor b = Random(*rt_, *dev_, dtype, {5, 33}, 8, 0.5, 2);
    for (const char* op : binary) {
      Check({a, b},
            [&](const std::vector<Tensor>& in) {
              Tensor t = Op(std::string(op) + ".Tensor", {Op("abs", {in[0]}), in[1]});
              t = Op(std::string(op) + ".Scalar", {t}, {Attr(1.25)});
              return std::vector<Tensor>{Op("neg", {t})};
            },
            Tolerance(dtype) * 4, std::string(op) + " " + Name(dtype));
    }
    for (const char* op : compare) {
      Check({a, b},
            [&](const std::vector<Tensor>& in) {
              const Tensor c = Op(std::string(op) + ".Tensor", {in[0], in[1]});
              const Tensor d = Op(std::string(op) + ".Scalar", {in[0]}, {Attr(1.0)});
              const Tensor w = Op("where", {c, in[0], Op("mul.Scalar", {in[1]}, {Attr(3.0)})});
              return std::vector<Tensor>{Op("where", {d, w, in[1]}), c};
            },
            Tolerance(dtype), std::string(op) + " " + Name(dtype));
    }
    // cast there and back (through f32 on vulkan, which holds no f64), copy
    // and fill.
    const sy_dtype_t wide = std::string(GetParam()) == "vulkan" ? SY_DTYPE_F32 : SY_DTYPE_F64;
    Check({a},
          [&](const std::vector<Tensor>& in) {
            Tensor t = Op("cast", {Op("mul.Scalar", {in[0]}, {Attr(3.0)})}, {Attr::DType(wide)});
            t = Op("cast", {Op("add.Scalar", {t}, {Attr(0.125)})}, {Attr::DType(dtype)});
            const Tensor f = Op("fill.Scalar", {t}, {Attr(2.5)});
            return std::vector<Tensor>{Op("add.Tensor", {Op("copy", {t}), f}),
                                       Op("cast", {Op("gt.Scalar", {t}, {Attr(3.0)})},
                                          {Attr::DType(SY_DTYPE_F32)})};
          },
          Tolerance(dtype), "cast " + Name(dtype));
  }
}

TEST_P(FusedOps, ReduceThenBroadcastPatternsFuseIntoOneKernel) {
  for (sy_dtype_t dtype : FloatDtypes()) {
    const Tensor x = Random(*rt_, *dev_, dtype, {3, 5, 67}, 9);
    const Tensor w = Random(*rt_, *dev_, dtype, {67}, 10);
    const Tensor b = Random(*rt_, *dev_, dtype, {67}, 11);
    const double tol = Tolerance(dtype) * 2;
    struct Case {
      const char* name;
      std::function<Tensor(const std::vector<Tensor>&)> fn;
    };
    const Case cases[] = {
        {"softmax", [&](const std::vector<Tensor>& in) { return Op("softmax", {in[0]}); }},
        {"softmax dim 1",
         [&](const std::vector<Tensor>& in) { return Op("softmax", {in[0]}, {Attr(1)}); }},
        {"log_softmax", [&](const std::vector<Tensor>& in) { return Op("log_softmax", {in[0]}); }},
        {"rms_norm",
         [&](const std::vector<Tensor>& in) { return Op("rms_norm", {in[0], in[1]}, {Attr(1e-5)}); }},
        {"layer_norm",
         [&](const std::vector<Tensor>& in) {
           return Op("layer_norm", {in[0], in[1], in[2]}, {Attr({67}), Attr(1e-5)});
         }},
        {"layer_norm over two dims",
         [&](const std::vector<Tensor>& in) {
           return Op("layer_norm", {in[0], Tensor(), Tensor()}, {Attr({5, 67}), Attr(1e-5)});
         }},
    };
    // Each op alone: its decomposition fuses with nothing, so by default it
    // would run the op's own kernel (NativeKernelsForCompositesThatFuseWithNothing);
    // these check the fused form.
    CompileOptions fused_form;
    fused_form.native_single_ops = false;
    for (const Case& c : cases) {
      const CompileStats stats =
          Check({x, w, b}, [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{c.fn(in)}; },
                tol, std::string(c.name) + " " + Name(dtype), fused_form);
      EXPECT_EQ(stats.fused_groups, 1) << c.name << " " << Name(dtype);
    }
  }
}

// Note [Native single ops]: rms_norm whose decomposition would fuse with
// nothing runs the plugin's rms_norm kernel (the description names it and
// says why); rms_norm after an add is decomposed and fuses with the add.
TEST_P(FusedOps, NativeKernelsForCompositesThatFuseWithNothing) {
  const sy_dtype_t dtype = SY_DTYPE_F32;
  const Tensor x = Random(*rt_, *dev_, dtype, {6, 130}, 21);
  const Tensor y = Random(*rt_, *dev_, dtype, {6, 130}, 22);
  const Tensor w = Random(*rt_, *dev_, dtype, {130}, 23);
  auto alone = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{Op("rms_norm", {in[0], in[1]}, {Attr(1e-5)})};
  };
  const CompileStats stats = Check({x, w}, alone, 2e-5, "rms_norm alone");
  EXPECT_EQ(stats.fused_groups, 0);
  EXPECT_EQ(stats.ops_after_decomposition, 1);  // not decomposed
  absl::StatusOr<Graph> graph = CaptureGraph(*rt_, {x, w}, alone);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<CompiledGraph> compiled = compiler_->Compile(*graph);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const std::string text = compiled->Describe();
  const std::string plugin = GetParam();
  EXPECT_NE(text.find("] op %0 rms_norm on "), std::string::npos) << text;
  const size_t kernel = text.find("→ kernel " + plugin + "::");  // the plugin's own
  EXPECT_NE(kernel, std::string::npos) << text;
  EXPECT_NE(text.find("rms_norm", kernel), std::string::npos) << text;
  EXPECT_NE(text.find("(not fused: its own kernel: decomposed, it would fuse with nothing"),
            std::string::npos) << text;
  // Asked for, the fused form of the same graph: one group.
  CompileOptions fused_form;
  fused_form.native_single_ops = false;
  absl::StatusOr<CompiledGraph> fused = compiler_->Compile(*graph, fused_form);
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_EQ(fused->stats().fused_groups, 1) << fused->Describe();
  EXPECT_EQ(fused->Describe().find("::rms_norm"), std::string::npos) << fused->Describe();

  // With an add before it, the decomposition fuses with the add.
  const CompileStats with_add = Check(
      {x, y, w},
      [&](const std::vector<Tensor>& in) {
        return std::vector<Tensor>{
            Op("rms_norm", {Op("add.Tensor", {in[0], in[1]}), in[2]}, {Attr(1e-5)})};
      },
      2e-5, "add then rms_norm");
  EXPECT_EQ(with_add.fused_groups, 1);
  EXPECT_GT(with_add.fused_ops, 2);
}

TEST_P(FusedOps, BroadcastStridedAndEmptyInputs) {
  const Tensor a = Random(*rt_, *dev_, SY_DTYPE_F32, {4, 1, 6}, 12);
  const Tensor b = Random(*rt_, *dev_, SY_DTYPE_F32, {5, 6}, 13);
  Check({a, b},
        [&](const std::vector<Tensor>& in) {
          const Tensor s = Op("add.Tensor", {in[0], in[1]});  // [4, 5, 6]
          return std::vector<Tensor>{Op("exp", {Op("mul.Tensor", {s, in[1]})})};
        },
        2e-5, "broadcast");
  // A transposed input and a sliced one.
  const Tensor m = Random(*rt_, *dev_, SY_DTYPE_F32, {7, 9}, 14);
  const Tensor t = Op("transpose", {m}, {Attr(0), Attr(1)});  // [9, 7], strided
  const Tensor n = Random(*rt_, *dev_, SY_DTYPE_F32, {9, 20}, 15);
  const Tensor s = Op("slice", {n}, {Attr(1), Attr(3), Attr(17), Attr(2)});  // [9, 7]
  Check({t, s},
        [&](const std::vector<Tensor>& in) {
          const Tensor v = Op("sub.Tensor", {Op("tanh", {in[0]}), in[1]});
          return std::vector<Tensor>{Op("softmax", {v}), Op("transpose", {v}, {Attr(0), Attr(1)})};
        },
        2e-5, "strided");
  // Views inside the graph: a transposed intermediate.
  Check({m},
        [&](const std::vector<Tensor>& in) {
          const Tensor e = Op("exp", {Op("neg", {in[0]})});
          const Tensor et = Op("transpose", {e}, {Attr(0), Attr(1)});
          return std::vector<Tensor>{Op("add.Scalar", {Op("sigmoid", {et})}, {Attr(1.0)})};
        },
        2e-5, "transposed intermediate");
  // Empty tensors: an empty elementwise chain and sums over an empty dim.
  const Tensor e0 = Random(*rt_, *dev_, SY_DTYPE_F32, {0, 5}, 16);
  Check({e0},
        [&](const std::vector<Tensor>& in) {
          return std::vector<Tensor>{Op("exp", {Op("neg", {in[0]})}), Op("softmax", {in[0]})};
        },
        0, "empty");
  const Tensor e1 = Random(*rt_, *dev_, SY_DTYPE_F32, {4, 0}, 17);
  Check({e1},
        [&](const std::vector<Tensor>& in) {
          const Tensor s = Op("sum", {Op("exp", {in[0]})}, {Attr({-1}), Attr(true)});
          return std::vector<Tensor>{Op("mul.Scalar", {s}, {Attr(2.0)}),
                                     Op("mean", {Op("neg", {in[0]})}, {Attr({1}), Attr(false)})};
        },
        0, "empty rows");
}

TEST_P(FusedOps, IntermediatesThatAreOutputsAreWritten) {
  const Tensor x = Random(*rt_, *dev_, SY_DTYPE_F32, {6, 50}, 18);
  const Tensor y = Random(*rt_, *dev_, SY_DTYPE_F32, {6, 50}, 19);
  const CompileStats stats = Check(
      {x, y},
      [&](const std::vector<Tensor>& in) {
        const Tensor t = Op("tanh", {Op("mul.Tensor", {in[0], in[1]})});
        const Tensor m = Op("max", {t}, {Attr({-1}), Attr(true)});
        const Tensor z = Op("add.Tensor", {Op("relu", {Op("sub.Tensor", {t, m})}), in[0]});
        return std::vector<Tensor>{z, t, m, Op("mean", {z}, {Attr({-1}), Attr(false)})};
      },
      2e-5, "intermediate outputs");
  EXPECT_EQ(stats.fused_groups, 1);
}

TEST_P(FusedOps, ReductionsOverEveryDimAndKeepdim) {
  const Tensor x = Random(*rt_, *dev_, SY_DTYPE_F32, {4, 6, 10}, 20);
  for (const char* op : {"sum", "mean", "max", "min"}) {
    for (std::vector<int64_t> dims : {std::vector<int64_t>{-1}, {0}, {1}, {0, 2}, {}}) {
      for (bool keep : {true, false}) {
        Check({x},
              [&](const std::vector<Tensor>& in) {
                const Tensor r = Op(op, {Op("exp", {in[0]})}, {Attr(absl::MakeConstSpan(dims)), Attr(keep)});
                return std::vector<Tensor>{Op("mul.Scalar", {r}, {Attr(0.5)})};
              },
              2e-5, std::string(op) + " dims " + std::to_string(dims.size()));
      }
    }
  }
}

// Note [Elementwise output layout]: a channels-last activation stays
// channels-last through the captured ops, as it does eagerly; the groups
// write it in that layout (the replay's views were made for it), and an
// elementwise group over it is one dense dim (Note [Elementwise memory
// order]), softmax over its channels rows of contiguous C.
TEST_P(FusedOps, ChannelsLastActivationsKeepTheirLayout) {
  constexpr int64_t kN = 2, kC = 8, kH = 5, kW = 6;
  const Tensor nhwc = Random(*rt_, *dev_, SY_DTYPE_F32, {kN, kH, kW, kC}, 24);
  const Tensor x = Op("permute", {nhwc}, {Attr({0, 3, 1, 2})});  // [N, C, H, W], channels-last
  const Tensor bias = Random(*rt_, *dev_, SY_DTYPE_F32, {1, kC, 1, 1}, 25);
  auto body = [&](const std::vector<Tensor>& in) {
    const Tensor z = Op("relu", {Op("add.Tensor", {Op("mul.Scalar", {in[0]}, {Attr(2.0)}), in[1]})});
    return std::vector<Tensor>{z, Op("softmax", {in[0]}, {Attr(1)})};
  };
  Check({x, bias}, body, 2e-6, "channels-last");

  absl::StatusOr<Graph> graph = CaptureGraph(*rt_, {x, bias}, body);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<CompiledGraph> compiled = compiler_->Compile(*graph);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::vector<Tensor>> got = compiled->Launch({x, bias});
  ASSERT_TRUE(got.ok()) << got.status() << "\n" << compiled->Describe();
  const std::vector<Tensor> eager = body({x, bias});
  const std::vector<int64_t> channels_last = {kH * kW * kC, 1, kW * kC, kC};
  EXPECT_EQ(eager[0].strides(), channels_last);
  for (size_t i = 0; i < eager.size(); ++i) {  // softmax's layout is its kernel's
    EXPECT_EQ((*got)[i].strides(), eager[i].strides()) << "output " << i << "\n"
                                                       << compiled->Describe();
  }
  // Against float64, in NCHW order.
  const std::vector<double> xs = Read(*rt_, x), bs = Read(*rt_, bias);
  const std::vector<double> z = Read(*rt_, (*got)[0]), soft = Read(*rt_, (*got)[1]);
  for (int64_t n = 0; n < kN; ++n) {
    for (int64_t p = 0; p < kH * kW; ++p) {
      double max = -INFINITY, sum = 0;
      for (int64_t c = 0; c < kC; ++c) max = std::max(max, xs[(n * kC + c) * kH * kW + p]);
      for (int64_t c = 0; c < kC; ++c) sum += std::exp(xs[(n * kC + c) * kH * kW + p] - max);
      for (int64_t c = 0; c < kC; ++c) {
        const int64_t i = (n * kC + c) * kH * kW + p;
        EXPECT_NEAR(z[i], std::max(0.0, 2 * xs[i] + bs[c]), 1e-6) << "relu element " << i;
        EXPECT_NEAR(soft[i], std::exp(xs[i] - max) / sum, 1e-6) << "softmax element " << i;
      }
    }
  }
  // The elementwise group walks [N·H·W, C] with unit steps along C (the
  // bias, broadcast over N, H and W, keeps the two dims apart); in the
  // logical order it would be [N, C, H·W], strided along every dim.
  bool elementwise_seen = false;
  for (const FusedKernel* kernel : compiled->fused_kernels()) {
    if (kernel->reduce_ndim != 0) continue;
    elementwise_seen = true;
    ASSERT_EQ(kernel->ndim, 2) << compiled->Describe(true);
    EXPECT_EQ(kernel->shape[0], kN * kH * kW) << compiled->Describe(true);
    EXPECT_EQ(kernel->shape[1], kC) << compiled->Describe(true);
    ASSERT_EQ(kernel->outputs.size(), 1u);
    EXPECT_EQ(kernel->outputs[0].strides[0], kC);
    EXPECT_EQ(kernel->outputs[0].strides[1], 1);
  }
  EXPECT_TRUE(elementwise_seen) << compiled->Describe(true);
  // Without the bias the group is one dense dim of N·H·W·C elements.
  auto no_bias = [&](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{Op("relu", {Op("mul.Scalar", {in[0]}, {Attr(2.0)})})};
  };
  Check({x}, no_bias, 2e-6, "channels-last, no bias");
  absl::StatusOr<Graph> plain = CaptureGraph(*rt_, {x}, no_bias);
  ASSERT_TRUE(plain.ok()) << plain.status();
  absl::StatusOr<CompiledGraph> flat = compiler_->Compile(*plain);
  ASSERT_TRUE(flat.ok()) << flat.status();
  ASSERT_EQ(flat->fused_kernels().size(), 1u) << flat->Describe(true);
  EXPECT_EQ(flat->fused_kernels()[0]->ndim, 1) << flat->Describe(true);
  EXPECT_EQ(flat->fused_kernels()[0]->shape[0], kN * kC * kH * kW) << flat->Describe(true);
}

const char* const kDevices[] = {
    "cpu",
#ifdef SWITCHYARD_TEST_CUDA
    "cuda",
#endif
#ifdef SWITCHYARD_TEST_VULKAN
    "vulkan",
#endif
};
INSTANTIATE_TEST_SUITE_P(Devices, FusedOps, ::testing::ValuesIn(kDevices),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace sy::fusion::testing
