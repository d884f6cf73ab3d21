// switchyard/graph.hpp: sy::GraphCapture as a scope, sy::Graph's RAII,
// compile options and launch against a float64 reference.
#include <cmath>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "switchyard/switchyard.hpp"

namespace sy_test {
namespace {

sy::Context CpuOnly() {
  sy::ContextOptions options;
  options.plugin_paths = {CpuManifest()};
  options.use_environment = false;
  options.use_default_path = false;
  return sy::Context::Create(options).value();
}

// gelu(x·w + b) with tanh: one fused elementwise kernel.
TEST(CppGraphTest, CaptureScopeCompileAndLaunch) {
  sy::Context ctx = CpuOnly();
  sy::Device cpu = ctx.device("cpu").value();
  sy::Op mul = ctx.op("mul.Tensor").value(), add = ctx.op("add.Tensor").value();
  sy::Op gelu = ctx.op("gelu").value();
  const std::vector<float> w = RandomFloats(16, 1), b = RandomFloats(16, 2);
  sy::Tensor tw = sy::Tensor::FromVector<float>(cpu, {16}, w).value();
  sy::Tensor tb = sy::Tensor::FromVector<float>(cpu, {16}, b).value();
  sy::Tensor x0 = sy::Tensor::Empty(cpu, SY_DTYPE_F32, {3, 16}).value();

  sy::Graph graph;
  {
    sy::GraphCapture capture = sy::GraphCapture::Begin(ctx).value();
    sy::Tensor x = capture.Input(x0, "x").value();
    sy::Tensor h = add.call1({mul.call1({x, tw}).value(), tb}).value();
    ASSERT_TRUE(capture.Output(gelu.call1({h}, {sy::Attr("tanh")}).value(), "y").ok());
    graph = std::move(capture).End().value();
  }
  ASSERT_TRUE(graph);
  EXPECT_EQ(graph.input(0).value().name, "x");
  EXPECT_EQ(graph.output(0).value().shape, (std::vector<int64_t>{3, 16}));
  ASSERT_TRUE(graph.Compile().ok());
  EXPECT_EQ(graph.info().value().fused_groups, 1);
  EXPECT_NE(graph.explain().value().find("by plugin cpu"), std::string::npos);

  for (uint32_t seed : {5u, 6u}) {
    const std::vector<float> x = RandomFloats(48, seed);
    sy::Tensor tx = sy::Tensor::FromVector<float>(cpu, {3, 16}, x).value();
    std::vector<sy::Tensor> out = graph.Launch({tx}).value();
    ASSERT_EQ(out.size(), 1u);
    const std::vector<float> got = out[0].ToVector<float>().value();
    for (int i = 0; i < 48; ++i) {
      const double h = double(x[i]) * w[i % 16] + b[i % 16];
      const double want =
          0.5 * h * (1 + std::tanh(std::sqrt(2 / M_PI) * (h + 0.044715 * h * h * h)));
      EXPECT_NEAR(got[i], want, 3e-6) << i;
    }
  }
  // Unfused runs the same ops one by one.
  sy::GraphCompileOptions unfused;
  unfused.fuse = false;
  ASSERT_TRUE(graph.Compile(unfused).ok());
  EXPECT_EQ(graph.info().value().fused_groups, 0);

  sy::Result<std::vector<sy::Tensor>> bad = graph.Launch({});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(bad.status().message().rfind("sy_graph_launch: the graph takes 1 input(s) ('x')", 0),
            0u)
      << bad.status().message();
}

// A capture scope left without End discards the capture: ops run again.
TEST(CppGraphTest, AbandonedScopeEndsTheCapture) {
  sy::Context ctx = CpuOnly();
  sy::Device cpu = ctx.device("cpu").value();
  sy::Op neg = ctx.op("neg").value();
  sy::Tensor x = sy::Tensor::FromVector<float>(cpu, {2}, std::vector<float>{1, 2}).value();
  {
    sy::GraphCapture capture = sy::GraphCapture::Begin(ctx).value();
    sy::Result<sy::GraphCapture> nested = sy::GraphCapture::Begin(ctx);
    ASSERT_FALSE(nested.ok());
    EXPECT_EQ(nested.status().code(), SY_STATUS_FAILED_PRECONDITION);
    sy::Tensor symbolic = neg.call1({x}).value();
    EXPECT_FALSE(symbolic.ToVector<float>().ok());
  }
  EXPECT_EQ(neg.call1({x}).value().ToVector<float>().value(), (std::vector<float>{-1, -2}));
}

}  // namespace
}  // namespace sy_test
