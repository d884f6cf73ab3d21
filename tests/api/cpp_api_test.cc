// switchyard.hpp, the header-only C++ layer: RAII handles, results,
// vectors, routes — the surface the CLI, the benchmarks and the conformance
// tool are written against.
#include <cmath>
#include <string>
#include <vector>

#include "c_api_test_util.h"
#include "switchyard/switchyard.hpp"

namespace sy_test {
namespace {

sy::Context CpuContext(std::vector<std::string> plugin_options = {}) {
  sy::ContextOptions options;
  options.plugin_paths = {CpuManifest()};
  options.use_environment = false;
  options.use_default_path = false;
  options.plugin_options = std::move(plugin_options);
  sy::Result<sy::Context> context = sy::Context::Create(options);
  EXPECT_TRUE(context.ok()) << context.status().ToString();
  return std::move(context).value();
}

TEST(CppApiTest, CallsMatchFloat64AndReportTheirRoute) {
  sy::Context ctx = CpuContext();
  sy::Device cpu = ctx.device("cpu").value();
  EXPECT_EQ(cpu.label(), "cpu:0");
  const std::vector<float> a = RandomFloats(6, 91), b = RandomFloats(6, 92);
  sy::Tensor ta = sy::Tensor::FromVector<float>(cpu, {2, 3}, a).value();
  sy::Tensor tb = sy::Tensor::FromVector<float>(cpu, {2, 3}, b).value();
  EXPECT_EQ(ta.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(ta.dtype(), SY_DTYPE_F32);
  sy::Op add = ctx.op("add").value();
  EXPECT_EQ(add.name(), "add.Tensor");

  sy::Tensor sum = add.call1({ta, tb}).value();
  std::vector<float> got = sum.ToVector<float>().value();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], a[i] + b[i]);
  EXPECT_EQ(add.explain({ta, tb}).value(), "kernel cpu::add.Tensor.f32.f32 (priority)");

  // Into a given output, and by a named kernel.
  sy::Tensor out = sy::Tensor::Empty(cpu, SY_DTYPE_F32, {2, 3}).value();
  const sy::Tensor inputs[2] = {ta, tb};
  const sy::Tensor outputs[1] = {out};
  ASSERT_TRUE(add.call_out(inputs, {}, outputs).ok());
  EXPECT_EQ(out.ToVector<float>().value(), got);
  const sy::Route route = sy::Route::Kernel("cpu::add.Tensor.f32.f32");
  ASSERT_TRUE(add.call_out(inputs, {}, outputs, route).ok());
  EXPECT_EQ(add.explain(inputs, {}, route).value(),
            "kernel cpu::add.Tensor.f32.f32 (requested)");

  // Attributes, defaults and the decomposition.
  sy::Op sum_op = ctx.op("sum").value();
  sy::Tensor total = sum_op.call1({ta}, {sy::Attr({0, 1})}).value();
  EXPECT_NEAR(total.ToVector<float>().value()[0],
              a[0] + a[1] + a[2] + a[3] + a[4] + a[5], 1e-5);
  sy::Op gelu = ctx.op("gelu").value();
  sy::Tensor g1 = gelu.call1({ta}, {sy::Attr("tanh")}).value();
  sy::Tensor g2 = gelu.call1({ta}, {sy::Attr("tanh")}, sy::Route::Decomposition()).value();
  const std::vector<float> v1 = g1.ToVector<float>().value(), v2 = g2.ToVector<float>().value();
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(v1[i], v2[i], 1e-5);
}

TEST(CppApiTest, ErrorsAreResultsWithTheLibrarysMessage) {
  sy::Context ctx = CpuContext();
  sy::Result<sy::Op> missing = ctx.op("nosuch");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), SY_STATUS_NOT_FOUND);
  EXPECT_EQ(missing.status().message().rfind("sy_op_find: no op named 'nosuch'", 0), 0u);
  EXPECT_EQ(std::string(missing.status().code_name()), "NOT_FOUND");
  sy::Device cpu = ctx.device("cpu").value();
  sy::Tensor x = sy::Tensor::FromVector<float>(cpu, {2}, std::vector<float>{1, 2}).value();
  sy::Tensor y = sy::Tensor::FromVector<float>(cpu, {3}, std::vector<float>{1, 2, 3}).value();
  sy::Result<sy::Tensor> bad = ctx.op("add").value().call1({x, y});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(bad.status().message().find("does not broadcast"), std::string::npos)
      << bad.status().message();
  EXPECT_EQ(ctx.device("gpu:9").status().code(), SY_STATUS_NOT_FOUND);
  EXPECT_EQ(sy::DTypeFromName("f33").status().code(), SY_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(sy::DTypeFromName("bfloat16").value(), SY_DTYPE_BF16);
}

TEST(CppApiTest, TensorsCountReferences) {
  sy::Context ctx = CpuContext();
  sy::Device cpu = ctx.device("cpu").value();
  sy::Tensor a = sy::Tensor::FromVector<float>(cpu, {1}, std::vector<float>{5}).value();
  const sy_tensor_t handle = a.get();
  {
    sy::Tensor b = a;  // retains
    EXPECT_EQ(b.get(), handle);
  }  // releases one
  EXPECT_EQ(a.ToVector<float>().value()[0], 5);
  sy::Tensor c = std::move(a);
  EXPECT_EQ(a.get(), nullptr);
  c = sy::Tensor();  // the last reference goes
  EXPECT_EQ(sy_tensor_retain(handle), SY_STATUS_INVALID_ARGUMENT);
}

TEST(CppApiTest, RecordsKernelsAndPins) {
  sy::Context ctx = CpuContext({"cpu.num_threads=1"});
  std::vector<sy::LoadRecord> records = ctx.load_records().value();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].name, "cpu");
  EXPECT_TRUE(records[0].loaded());
  EXPECT_EQ(records[0].outcome_name(), "loaded");
  bool saw = false;
  for (const sy::PluginOption& o : records[0].options) {
    if (o.name == "num_threads") {
      saw = true;
      EXPECT_EQ(o.value, "1");
      EXPECT_EQ(o.source, "context");
    }
  }
  EXPECT_TRUE(saw);

  sy::Op relu = ctx.op("relu").value();
  std::vector<sy::KernelInfo> kernels = relu.kernels().value();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels[0].plugin, "cpu");
  ASSERT_TRUE(relu.pin("cpu", kernels[0].name).ok());
  EXPECT_EQ(relu.kernels().value()[0].chosen_because, "pinned");
  ASSERT_TRUE(relu.unpin("cpu").ok());
  EXPECT_EQ(relu.pin("cpu", "nosuch").code(), SY_STATUS_NOT_FOUND);

  EXPECT_GE(ctx.devices().value().size(), 1u);
  EXPECT_GT(ctx.ops().value().size(), 50u);
  std::vector<sy::OpArg> args = ctx.op("rms_norm").value().args().value();
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[2].name, "eps");
  EXPECT_EQ(args[2].kind, SY_ARG_FLOAT);
  EXPECT_EQ(args[2].default_value.kind, SY_ATTR_FLOAT);
  EXPECT_NE(ctx.info_json().value().find("\"plugins\""), std::string::npos);
}

TEST(CppApiTest, VersionsAndDiscovery) {
  const sy::Versions v = sy::GetVersions();
  EXPECT_EQ(v.api_major, 1u);
  EXPECT_EQ(v.api_minor, 2u);  // 1.2: graphs and collectives
  EXPECT_EQ(v.plugin_abi_major, static_cast<uint32_t>(SY_PLUGIN_ABI_MAJOR));
  EXPECT_FALSE(v.library.empty());
  sy::ContextOptions options;
  options.plugin_paths = {CpuManifest()};
  options.use_environment = false;
  options.use_default_path = false;
  EXPECT_EQ(sy::DiscoverPlugins(options).value(), std::vector<std::string>{CpuManifest()});
}

}  // namespace
}  // namespace sy_test
