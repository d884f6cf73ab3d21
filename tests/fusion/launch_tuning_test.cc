// Launch configurations of fused kernels (fusion/backend/launch_tuning.h,
// Note [Launch configurations] in switchyard/plugin/fusion.h): a fake
// compiler with a slow, a fast and a wrong configuration shows the choice,
// its check, the autotune cache and the modes; the cpu plugin's tile sizes
// show the whole path from a captured graph.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "absl/strings/match.h"
#include "autotune/tuner.h"
#include "autotune/tuning_key.h"
#include "dispatcher/base/error.h"
#include "fusion/backend/disk_cache.h"
#include "fusion/backend/launch_tuning.h"
#include "fusion/ir/serialize.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "../temp_dir.h"
#include "fusion_test_util.h"
#include "tuned_runtime.h"

namespace sy::fusion::testing {
namespace {

using ::testing::HasSubstr;

using ::sy::testing::TempDir;  // a folder for an autotune cache

// ---- A fake compiler: out = -in, over one f32 operand ----------------------
// Configuration 0 sleeps in every launch, 1 is fast, 2 computes out = in.
constexpr const char* kNames[] = {"slow", "fast", "wrong"};
constexpr const char* kTwinNames[] = {"same", "same"};

struct Fake {
  int32_t num_configs = 3;
  int32_t broken = -1;  // a configuration compile_fused refuses
  const char* const* names = kNames;
  std::atomic<int> asked{0};
  std::atomic<int> compiles[3] = {};
  std::atomic<int> launches[3] = {};
};
Fake* g_fake = nullptr;

struct FakeKernel {
  int32_t config;
};

sy_error_t* FakeConfigs(void*, sy_fused_configs_args_t* args) {
  ++g_fake->asked;
  args->out_num_configs = g_fake->num_configs;
  args->out_names = g_fake->names;
  return nullptr;
}

sy_error_t* FakeCompile(void*, sy_fused_compile_args_t* args) {
  if (args->config == g_fake->broken) {
    return core::CreateError(SY_STATUS_UNIMPLEMENTED, "this configuration cannot run here");
  }
  ++g_fake->compiles[args->config];
  args->out_handle = new FakeKernel{args->config};
  return nullptr;
}

sy_error_t* FakeLaunch(void*, const sy_fused_launch_args_t* args) {
  const int32_t config = static_cast<const FakeKernel*>(args->handle)->config;
  ++g_fake->launches[config];
  const sy_tensor_view_t& in = args->inputs[0];
  const sy_tensor_view_t& out = args->outputs[0];
  const float* x = reinterpret_cast<const float*>(static_cast<const char*>(in.data) + in.byte_offset);
  float* y = reinterpret_cast<float*>(static_cast<char*>(out.data) + out.byte_offset);
  for (int64_t i = 0; i < in.shape[0]; ++i) y[i] = config == 2 ? x[i] : -x[i];
  if (config == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
  return nullptr;
}

void FakeRelease(void*, const sy_fused_release_args_t* args) {
  delete static_cast<FakeKernel*>(args->handle);
}

sy_fusion_extension_t FakeExtension() {
  sy_fusion_extension_t ext{};
  ext.base.struct_size = sizeof(ext);
  ext.base.type = SY_EXTENSION_FUSION;
  ext.device_type = "cpu";
  ext.compiler = "fake compiler 1";
  ext.compile_fused = FakeCompile;
  ext.launch_fused = FakeLaunch;
  ext.release_fused = FakeRelease;
  ext.fused_configs = FakeConfigs;
  return ext;
}

// out = -in over [n] f32.
FusedKernel NegKernel(int64_t n) {
  FusedKernel k;
  k.name = "fake_neg";
  k.ndim = 1;
  k.shape[0] = n;
  sy_fused_operand_t operand{};
  operand.dtype = SY_DTYPE_F32;
  operand.strides[0] = 1;
  k.inputs = {operand};
  k.outputs = {operand};
  k.Add({SY_FUSED_LOAD, SY_DTYPE_F32, -1, -1, -1, 0, 0, 0, 0});
  k.Add({SY_FUSED_NEG, SY_DTYPE_F32, 0, -1, -1, 0, 0, 0, 0});
  k.Add({SY_FUSED_STORE, SY_DTYPE_F32, 1, -1, -1, 0, 0, 0, 0});
  return k;
}

class FakeLaunchTuning : public ::testing::Test {
 protected:
  void SetUp() override {
    FreshFake();
    ext_ = FakeExtension();
  }
  // A fake compiler with no calls counted yet, as a new process has.
  void FreshFake() {
    fake_ = std::make_unique<Fake>();
    g_fake = fake_.get();
  }
  void TearDown() override { g_fake = nullptr; }

  // The fake's backend on `rt`'s cpu device type.
  FusionBackend Backend(Runtime& rt) {
    FusionBackend b;
    b.ext = &ext_;
    b.device_type = rt.state().devices.FindType("cpu");
    b.plugin_name = "fake";
    b.plugin_version = "1";
    b.compiler = ext_.compiler;
    b.has_configs = true;
    return b;
  }
  static core::Device& Cpu(Runtime& rt) {
    return *rt.state().devices.FindType("cpu")->device(0);
  }
  absl::StatusOr<LaunchChoice> Tune(Runtime& rt, KernelCache& cache, const FusedKernel& ir) {
    const FusionBackend backend = Backend(rt);
    return CompileTuned(cache, QuickTuning(rt), rt, backend, Cpu(rt), ir);
  }
  int Launches() const {
    return fake_->launches[0] + fake_->launches[1] + fake_->launches[2];
  }

  std::unique_ptr<Fake> fake_;
  sy_fusion_extension_t ext_;
  TempDir dir_;
};

TEST_F(FakeLaunchTuning, MeasuresPicksTheFastOneStoresItAndReusesIt) {
  const FusedKernel ir = NegKernel(4096);
  {
    std::unique_ptr<Runtime> rt = TunedRuntime(dir_.path(), core::AutotuneMode::kOn);
    ASSERT_NE(rt, nullptr);
    KernelCache cache("");
    absl::StatusOr<LaunchChoice> choice = Tune(*rt, cache, ir);
    ASSERT_TRUE(choice.ok()) << choice.status();
    EXPECT_EQ(choice->config, 1);
    EXPECT_EQ(choice->kernel->config(), 1);
    EXPECT_EQ(choice->source, LaunchSource::kMeasured);
    EXPECT_EQ(choice->names, (std::vector<std::string>{"slow", "fast", "wrong"}));
    EXPECT_EQ(choice->compiled, 3);
    EXPECT_EQ(choice->Describe(), "fast (2 of 3, measured)");
    // The wrong one was caught by its check against configuration 0.
    EXPECT_THAT(choice->detail, HasSubstr("\"note\":\"output 0 element 0: "));
    EXPECT_THAT(choice->detail, HasSubstr("\"outcome\":\"wrong\""));
    EXPECT_THAT(choice->detail, HasSubstr("\"reference\":\"launch configuration 0 (slow)\""));
    EXPECT_GT(fake_->launches[1], 3);

    // In the autotune cache under the fused kernel's key.
    const autotune::TuningKey key = autotune::FusedLaunchKey(
        Cpu(*rt), Sha256Hex(Serialize(ir)), "fake 1 (fake compiler 1)", choice->names);
    absl::StatusOr<std::optional<autotune::Verdict>> stored =
        static_cast<autotune::Tuner*>(rt->tuner())->cache().Lookup(key);
    ASSERT_TRUE(stored.ok()) << stored.status();
    ASSERT_TRUE(stored->has_value());
    EXPECT_EQ((*stored)->variant, 1);
    EXPECT_EQ((*stored)->variant_name, "fast");
    EXPECT_EQ((*stored)->kernel, "fake::fake_neg");
    EXPECT_EQ((*stored)->source, "measured");
    // Not a dispatch verdict: folding the cache leaves it alone, and an
    // export (which another process could not check) leaves it out.
    auto* tuner = static_cast<autotune::Tuner*>(rt->tuner());
    EXPECT_TRUE(rt->SetAutotuneMode(core::AutotuneMode::kCached).ok());
    EXPECT_EQ(tuner->verdicts_stale(), 0u);
    absl::StatusOr<size_t> exported = tuner->Export(dir_.path() + "/export.json");
    ASSERT_TRUE(exported.ok()) << exported.status();
    EXPECT_EQ(*exported, 0u);
  }
  // Another runtime on the same cache file (as another process): the
  // verdict is used, nothing is measured, only the winner is compiled.
  for (core::AutotuneMode mode : {core::AutotuneMode::kOn, core::AutotuneMode::kCached}) {
    FreshFake();
    std::unique_ptr<Runtime> rt = TunedRuntime(dir_.path(), mode);
    ASSERT_NE(rt, nullptr);
    KernelCache cache("");
    absl::StatusOr<LaunchChoice> choice = Tune(*rt, cache, ir);
    ASSERT_TRUE(choice.ok()) << choice.status();
    EXPECT_EQ(choice->config, 1);
    EXPECT_EQ(choice->source, LaunchSource::kCached);
    EXPECT_EQ(Launches(), 0);
    EXPECT_EQ(fake_->compiles[0] + fake_->compiles[2], 0);
    EXPECT_EQ(fake_->compiles[1], 1);
  }
  // A stored choice that no longer compiles here: the default runs.
  FreshFake();
  fake_->broken = 1;
  std::unique_ptr<Runtime> rt = TunedRuntime(dir_.path(), core::AutotuneMode::kCached);
  KernelCache cache("");
  absl::StatusOr<LaunchChoice> choice = Tune(*rt, cache, ir);
  ASSERT_TRUE(choice.ok()) << choice.status();
  EXPECT_EQ(choice->config, 0);
  EXPECT_EQ(choice->source, LaunchSource::kDefault);
  EXPECT_EQ(Launches(), 0);
}

TEST_F(FakeLaunchTuning, OffOrWithoutAVerdictOrWithoutTheHookRunsConfigurationZero) {
  const FusedKernel ir = NegKernel(256);
  {
    // Off: the plugin is not even asked.
    std::unique_ptr<Runtime> rt = TunedRuntime(dir_.path(), core::AutotuneMode::kOff);
    KernelCache cache("");
    absl::StatusOr<LaunchChoice> choice = Tune(*rt, cache, ir);
    ASSERT_TRUE(choice.ok()) << choice.status();
    EXPECT_EQ(choice->config, 0);
    EXPECT_EQ(choice->source, LaunchSource::kDefault);
    EXPECT_TRUE(choice->names.empty());
    EXPECT_EQ(choice->Describe(), "");
    EXPECT_EQ(fake_->asked, 0);
    EXPECT_EQ(fake_->compiles[0], 1);
    EXPECT_EQ(Launches(), 0);
  }
  {
    // Cached, with nothing in the cache: the default, nothing measured.
    std::unique_ptr<Runtime> rt = TunedRuntime(dir_.path(), core::AutotuneMode::kCached);
    KernelCache cache("");
    absl::StatusOr<LaunchChoice> choice = Tune(*rt, cache, ir);
    ASSERT_TRUE(choice.ok()) << choice.status();
    EXPECT_EQ(choice->config, 0);
    EXPECT_EQ(choice->source, LaunchSource::kDefault);
    EXPECT_EQ(choice->Describe(), "slow (1 of 3, default)");
    EXPECT_EQ(Launches(), 0);
  }
  {
    // On, but a plugin without fused_configs (a 1.1/1.2 table): 0.
    std::unique_ptr<Runtime> rt = TunedRuntime(dir_.path(), core::AutotuneMode::kOn);
    FusionBackend old = Backend(*rt);
    old.has_configs = false;
    KernelCache cache("");
    absl::StatusOr<LaunchChoice> choice =
        CompileTuned(cache, QuickTuning(*rt), *rt, old, Cpu(*rt), ir);
    ASSERT_TRUE(choice.ok()) << choice.status();
    EXPECT_EQ(choice->config, 0);
    EXPECT_EQ(Launches(), 0);
  }
}

TEST_F(FakeLaunchTuning, ABadListFromThePluginIsAnErrorThatSaysSo) {
  std::unique_ptr<Runtime> rt = TunedRuntime(dir_.path(), core::AutotuneMode::kOn);
  ASSERT_NE(rt, nullptr);
  const FusedKernel ir = NegKernel(64);
  KernelCache cache("");
  struct Case {
    int32_t count;
    const char* const* names;
    const char* message;
  };
  const Case cases[] = {
      {17, kNames, "reported 17 configurations; a plugin may offer 0 .. 16"},
      {-1, kNames, "reported -1 configurations"},
      {2, nullptr, "reported 2 configurations but no names"},
      {2, kTwinNames, "named two configurations 'same'"},
  };
  for (const Case& c : cases) {
    fake_->num_configs = c.count;
    fake_->names = c.names;
    absl::StatusOr<LaunchChoice> choice = Tune(*rt, cache, ir);
    ASSERT_FALSE(choice.ok()) << c.message;
    EXPECT_EQ(choice.status().code(), absl::StatusCode::kInternal);
    EXPECT_THAT(choice.status().message(),
                HasSubstr("fused_configs of fused kernel 'fake_neg' on cpu:0 (plugin 'fake')"));
    EXPECT_THAT(choice.status().message(), HasSubstr(c.message));
    EXPECT_THAT(choice.status().message(), HasSubstr("the plugin is at fault"));
  }
  EXPECT_EQ(Launches(), 0);
}

// ---- The cpu plugin's tiles, from a captured graph --------------------------

TEST(CpuLaunchTuning, TunedGraphsPickATileKeepItAndComputeTheSame) {
  TempDir dir;
  struct Result {
    CompileStats stats;
    std::string description;
    std::vector<double> values;
  };
  auto run = [&](core::AutotuneMode mode) {
    Result r;
    std::unique_ptr<Runtime> rt = TunedRuntime(dir.path(), mode);
    Device& cpu = *rt->state().devices.FindType("cpu")->device(0);
    const std::vector<Tensor> inputs = {
        FromValues(*rt, cpu, SY_DTYPE_F32, {16, 2048}, RandomValues(16 * 2048, 1)),
        FromValues(*rt, cpu, SY_DTYPE_F32, {16, 2048}, RandomValues(16 * 2048, 2))};
    absl::StatusOr<Graph> graph =
        CaptureGraph(*rt, inputs, [&](const std::vector<Tensor>& in) {
          Tensor t = Call(*rt, "mul.Tensor", {in[0], in[1]});
          return std::vector<Tensor>{Call(*rt, "tanh", {Call(*rt, "add.Tensor", {t, in[0]})})};
        });
    EXPECT_TRUE(graph.ok()) << graph.status();
    if (!graph.ok()) return r;
    std::unique_ptr<Compiler> compiler = QuickTunedCompiler(*rt);
    absl::StatusOr<CompiledGraph> compiled = compiler->Compile(*graph);
    EXPECT_TRUE(compiled.ok()) << compiled.status();
    if (!compiled.ok()) return r;
    absl::StatusOr<std::vector<Tensor>> out = compiled->Launch(inputs);
    EXPECT_TRUE(out.ok()) << out.status();
    if (out.ok()) r.values = Read(*rt, (*out)[0]);
    r.stats = compiled->stats();
    r.description = compiled->Describe();
    return r;
  };
  const Result off = run(core::AutotuneMode::kOff);
  EXPECT_EQ(off.stats.fused_groups, 1);
  EXPECT_EQ(off.stats.launch_measured + off.stats.launch_cached, 0);
  EXPECT_THAT(off.description, ::testing::Not(HasSubstr("launch configuration")));

  const Result on = run(core::AutotuneMode::kOn);
  EXPECT_EQ(on.stats.launch_measured, 1);
  EXPECT_EQ(on.stats.kernels_compiled, 3);  // tile 1024, 512, 256
  EXPECT_THAT(on.description, HasSubstr("launch configuration: tile "));
  EXPECT_THAT(on.description, HasSubstr(" of 3, measured)"));

  const Result cached = run(core::AutotuneMode::kCached);
  EXPECT_EQ(cached.stats.launch_measured, 0);
  EXPECT_EQ(cached.stats.launch_cached, 1);
  EXPECT_EQ(cached.stats.kernels_compiled, 1);
  EXPECT_THAT(cached.description, HasSubstr(" of 3, autotune cache)"));

  ExpectClose(on.values, off.values, 1e-6, "tuned against untuned");
  ExpectClose(cached.values, off.values, 1e-6, "cached against untuned");
}

TEST(CpuLaunchTuning, TheCpuPluginRefusesAConfigurationItDidNotOffer) {
  std::unique_ptr<Runtime> rt = MakeRuntime();
  ASSERT_NE(rt, nullptr);
  const Backends backends = FindBackends(rt->state());
  const core::DeviceType* type = rt->state().devices.FindType("cpu");
  const FusionBackend* cpu = backends.For(*type);
  ASSERT_NE(cpu, nullptr);
  EXPECT_TRUE(cpu->has_configs);
  const FusedKernel ir = NegKernel(4096);
  absl::StatusOr<std::vector<std::string>> names =
      ListLaunchConfigs(*cpu, *type->device(0), ir);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, (std::vector<std::string>{"tile 1024", "tile 512", "tile 256"}));
  // Rows no longer than the smallest tile: one configuration.
  names = ListLaunchConfigs(*cpu, *type->device(0), NegKernel(256));
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_TRUE(names->empty());

  KernelCache cache("");
  KernelOrigin origin;
  double millis = 0;
  absl::StatusOr<std::shared_ptr<CompiledKernel>> kernel =
      cache.Get(*cpu, *type->device(0), ir, 3, &origin, &millis);
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(kernel.status().message(),
              HasSubstr("cpu plugin: compile_fused: kernel 'fake_neg' has launch "
                        "configurations 0 .. 2; got 3"));
  EXPECT_THAT(kernel.status().message(), HasSubstr("launch configuration 3"));
}

}  // namespace
}  // namespace sy::fusion::testing
