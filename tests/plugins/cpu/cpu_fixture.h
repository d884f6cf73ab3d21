// A fixture that loads the cpu plugin into a fresh TestHost per test and
// runs its kernels by op name on a cpu stream.
#ifndef SWITCHYARD_TESTS_PLUGINS_CPU_CPU_FIXTURE_H_
#define SWITCHYARD_TESTS_PLUGINS_CPU_CPU_FIXTURE_H_

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string_view>
#include <vector>

#include "test_host.h"
#include "test_tensor.h"

namespace sy::testing {

class CpuPluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = std::make_unique<TestHost>();
    const Status status = host_->Load(CpuPluginPath());
    ASSERT_TRUE(status.ok()) << status.message;
    device_ = host_->FindDevice("cpu");
    ASSERT_NE(device_, nullptr);
    ASSERT_TRUE(
        TakeError(device_->stream_create(device_->device_data, 0, &stream_))
            .ok());
  }

  void TearDown() override {
    if (device_ != nullptr && stream_ != nullptr) {
      EXPECT_TRUE(
          TakeError(device_->stream_destroy(device_->device_data, stream_))
              .ok());
    }
    host_.reset();
  }

  // Runs the first kernel registered for `op` on tensors' views.
  Status Run(std::string_view op, const std::vector<sy_tensor_view_t>& inputs,
             const sy_tensor_view_t& output,
             const std::vector<sy_attr_t>& attrs = {}) {
    const RegisteredKernel* kernel = host_->FindKernel(op);
    if (kernel == nullptr) return {SY_STATUS_NOT_FOUND, "no kernel"};
    return RunKernel(*kernel, inputs, {&output, 1}, attrs, stream_);
  }

  std::unique_ptr<TestHost> host_;
  const sy_device_api_t* device_ = nullptr;
  sy_stream_t stream_ = nullptr;
};

// |got - want| <= rel * scale, with `scale` defaulting to |want|: the
// relative error against a float64 reference.
inline ::testing::AssertionResult Near(double got, double want, double rel,
                                       double scale = -1.0) {
  if (scale < 0.0) scale = std::fabs(want);
  if (std::isnan(want) ? std::isnan(got)
                       : std::fabs(got - want) <= rel * scale) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "got " << got << ", want " << want << " (error "
         << std::fabs(got - want) << " > " << rel * scale << ")";
}

inline sy_attr_t IntsAttr(const std::vector<int64_t>& values) {
  sy_attr_t a{};
  a.kind = SY_ATTR_INTS;
  a.value.ints.data = values.data();
  a.value.ints.size = static_cast<int64_t>(values.size());
  return a;
}

inline sy_attr_t BoolAttr(bool value) {
  sy_attr_t a{};
  a.kind = SY_ATTR_BOOL;
  a.value.b = value ? 1 : 0;
  return a;
}

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_PLUGINS_CPU_CPU_FIXTURE_H_
