// The rocm plugin loads on every machine: with an AMD GPU it registers
// devices and kernels; without one — or without the HIP runtime library —
// it registers the device type with zero devices and no kernels, says
// "no ROCm device: …" in its load record, and the rest of the runtime keeps
// working. Every machine of this project so far is the second kind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "rocm_test_env.h"

namespace sy::rocm_test {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const LoadRecord* RocmRecord() {
  static const std::vector<LoadRecord> records = Env().runtime->LoadRecords();
  for (const LoadRecord& r : records) {
    if (r.name == "rocm") return &r;
  }
  return nullptr;
}

TEST(RocmLoad, LoadsWithOrWithoutAGpu) {
  const LoadRecord* record = RocmRecord();
  ASSERT_NE(record, nullptr) << "no load record for the rocm plugin";
  EXPECT_EQ(record->outcome, Env().rocm != nullptr ? LoadOutcome::kLoaded
                                                   : LoadOutcome::kLoadedNoDevices)
      << DescribeLoadRecord(*record);
  EXPECT_EQ(record->num_devices, 1) << "the rocm device type is always listed";
  EXPECT_EQ(record->plugin_version, "0.1.0");
}

TEST(RocmLoad, WithoutAGpuSaysWhyAndThatItIsUntested) {
  if (Env().runtime->GetDevice("rocm:0").ok()) {
    GTEST_SKIP() << "a ROCm device is present";
  }
  const LoadRecord* record = RocmRecord();
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->num_kernels, 0);
  EXPECT_THAT(Env().skip_reason, StartsWith("no ROCm device: "));
  const bool logged = std::any_of(
      Env().load_log.begin(), Env().load_log.end(), [](const std::string& l) {
        return l.find("plugin 'rocm'") != std::string::npos &&
               l.find("no ROCm device: ") != std::string::npos;
      });
  EXPECT_TRUE(logged) << "the rocm plugin should log why it has no devices";
  // The load record carries it, so `switchyard info` shows it: the reason
  // (no runtime library, or the runtime finds no GPU), the plain statement
  // that the plugin has never run on AMD hardware, and where to read more.
  ASSERT_FALSE(record->notes.empty());
  const std::string& note = record->notes[0];
  EXPECT_THAT(note, StartsWith("no ROCm device: "));
  EXPECT_THAT(note, ::testing::AnyOf(
                        HasSubstr("hipGetDeviceCount failed (hipErrorNoDevice"),
                        HasSubstr("reports 0 GPUs"),
                        HasSubstr("could not be loaded")));
  EXPECT_THAT(note, HasSubstr("the rocm device type has 0 devices"));
  EXPECT_THAT(note, HasSubstr("the rocm plugin has not yet run on AMD "
                              "hardware (docs/rocm.md says how to validate "
                              "it on a GPU)"));
  EXPECT_THAT(note, HasSubstr("; no rocm kernels were registered"));
  EXPECT_THAT(DescribeLoadRecord(*record), HasSubstr(" — no ROCm device: "));
  EXPECT_FALSE(Env().runtime->GetDevice("rocm:0").ok());
}

TEST(RocmLoad, TheCpuDeviceStillWorks) {
  ASSERT_NE(Env().cpu, nullptr);
  Runtime& rt = *Env().runtime;
  const std::vector<float> a = RandomFloats(6, 1), b = RandomFloats(6, 2);
  Tensor ta = rt.FromHost(*Env().cpu, SY_DTYPE_F32, {2, 3}, a.data(), 24).value();
  Tensor tb = rt.FromHost(*Env().cpu, SY_DTYPE_F32, {2, 3}, b.data(), 24).value();
  std::vector<Tensor> out = rt.Call(rt.FindOp("add").value(), {ta, tb}).value();
  std::vector<float> got(6);
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), 24).ok());
  for (int i = 0; i < 6; ++i) EXPECT_EQ(got[i], a[i] + b[i]);
}

// Beside every plugin the build made (cpu, and onednn and cuda where they
// were built), as `switchyard info` loads them: each loads, and the cpu
// plugin still runs an op.
TEST(RocmLoad, EveryOtherPluginStillLoadsBesideIt) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths = {SWITCHYARD_PLUGIN_DIR};
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  ASSERT_TRUE(runtime.ok()) << runtime.status();
  std::vector<std::string> loaded;
  for (const LoadRecord& r : (*runtime)->LoadRecords()) {
    // GPU plugins without their GPU load "with no devices".
    EXPECT_TRUE(IsLoaded(r.outcome)) << DescribeLoadRecord(r);
    loaded.push_back(r.name);
  }
  EXPECT_THAT(loaded, ::testing::IsSupersetOf({"cpu", "rocm"}));
  Runtime& rt = **runtime;
  Device* cpu = rt.GetDevice("cpu").value();
  const std::vector<float> a = RandomFloats(4, 9);
  Tensor t = rt.FromHost(*cpu, SY_DTYPE_F32, {4}, a.data(), 16).value();
  std::vector<Tensor> out = rt.Call(rt.FindOp("exp").value(), {t}).value();
  std::vector<float> got(4);
  ASSERT_TRUE(rt.ToHost(out[0], got.data(), 16).ok());
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(got[i], std::exp(a[i]), 1e-6 * std::exp(a[i]));
  }
}

TEST(RocmLoad, WithAGpuRegistersDevicesAndKernels) {
  SY_SKIP_WITHOUT_ROCM();
  const LoadRecord* record = RocmRecord();
  ASSERT_NE(record, nullptr);
  EXPECT_GT(record->num_kernels, 280);  // the shared families and the GEMMs
  EXPECT_EQ(record->num_schemas, 0);
  ASSERT_FALSE(record->notes.empty());
  EXPECT_THAT(record->notes[0], HasSubstr("ROCm device(s)"));
  EXPECT_THAT(record->notes[0], HasSubstr("has not yet run on AMD hardware"));
  const DeviceProperties& p = Env().rocm->properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_EQ(p.vendor, "AMD");
  EXPECT_THAT(p.driver_version, HasSubstr("HIP runtime"));
  EXPECT_GT(p.total_memory_bytes, 0u);
  EXPECT_GT(p.compute_units, 0);
}

}  // namespace
}  // namespace sy::rocm_test
