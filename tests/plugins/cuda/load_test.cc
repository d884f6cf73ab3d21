// The cuda plugin loads on every machine with the toolkit: with a GPU it
// registers devices and kernels; without one it registers the device type
// with zero devices and no kernels, says "no CUDA device: …" in the host
// log, and the rest of the runtime keeps working.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "cuda_test_env.h"

namespace sy::cuda_test {
namespace {

using ::testing::HasSubstr;

const LoadRecord* CudaRecord() {
  static const std::vector<LoadRecord> records = Env().runtime->LoadRecords();
  for (const LoadRecord& r : records) {
    if (r.name == "cuda") return &r;
  }
  return nullptr;
}

TEST(CudaLoad, LoadsWithOrWithoutAGpu) {
  const LoadRecord* record = CudaRecord();
  ASSERT_NE(record, nullptr) << "no load record for the cuda plugin";
  // Without a GPU it loads with an outcome of its own, so that scripts can
  // tell "loaded, no devices" from a plugin that serves a device.
  EXPECT_EQ(record->outcome, Env().cuda != nullptr ? LoadOutcome::kLoaded
                                                   : LoadOutcome::kLoadedNoDevices)
      << DescribeLoadRecord(*record);
  EXPECT_EQ(record->num_devices, 1) << "the cuda device type is always listed";
  EXPECT_EQ(record->plugin_version, "0.2.0");
  EXPECT_EQ(record->plugin_abi_minor, 4u);  // conv2d_relu's output layout (1.4)
}

TEST(CudaLoad, WithoutAGpuSaysSoAndRegistersNoKernels) {
  if (Env().cuda != nullptr) GTEST_SKIP() << "a CUDA device is present";
  const LoadRecord* record = CudaRecord();
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->num_kernels, 0);
  EXPECT_THAT(Env().skip_reason, HasSubstr("no CUDA device: "));
  const bool logged = std::any_of(
      Env().load_log.begin(), Env().load_log.end(), [](const std::string& l) {
        return l.find("plugin 'cuda'") != std::string::npos &&
               l.find("no CUDA device: ") != std::string::npos;
      });
  EXPECT_TRUE(logged) << "the cuda plugin should log why it has no devices";
  // …and the load record carries it, so `switchyard info` shows it.
  ASSERT_FALSE(record->notes.empty());
  EXPECT_THAT(record->notes[0], ::testing::StartsWith("no CUDA device: "));
  EXPECT_THAT(DescribeLoadRecord(*record), HasSubstr("kernel(s) in"));
  EXPECT_THAT(DescribeLoadRecord(*record), HasSubstr(" — no CUDA device: "));
  absl::StatusOr<Device*> device = Env().runtime->GetDevice("cuda:0");
  EXPECT_FALSE(device.ok());
}

TEST(CudaLoad, TheCpuDeviceStillWorks) {
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

TEST(CudaLoad, WithAGpuRegistersDevicesAndKernels) {
  SY_SKIP_WITHOUT_CUDA();
  const LoadRecord* record = CudaRecord();
  ASSERT_NE(record, nullptr);
  EXPECT_GT(record->num_kernels, 100);
  // cuda::linear_gelu, cuda::conv2d_relu, and the fusion pass's GEMM epilogue
  // patterns cuda::matmul_bias and cuda::matmul_bias_gelu.
  EXPECT_EQ(record->num_schemas, 4);
  const DeviceProperties& p = Env().cuda->properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_EQ(p.vendor, "NVIDIA");
  EXPECT_THAT(p.driver_version, HasSubstr("CUDA driver"));
  EXPECT_GT(p.total_memory_bytes, 0u);
  EXPECT_GT(p.compute_units, 0);
  // The load time, split (Note [Load time] in cuda_plugin.cc).
  bool split = false;
  for (const std::string& n : record->notes) {
    split |= n.find("load time: CUDA driver initialization ") != std::string::npos &&
             n.find("; the plugin's own work ") != std::string::npos;
  }
  EXPECT_TRUE(split) << "the load record should say how long the driver and "
                        "the plugin took";
}

}  // namespace
}  // namespace sy::cuda_test
