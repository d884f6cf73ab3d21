// The runtime the rocm plugin's tests share: cpu and rocm loaded from the
// build's plugin folder and nothing else, the host log captured.
//
// Every test that needs an AMD GPU starts with SY_SKIP_WITHOUT_ROCM(),
// which skips it with "no ROCm device: …" (the plugin's own reason) on
// machines without one — every machine this project has, so far.
#ifndef SWITCHYARD_TESTS_PLUGINS_ROCM_ROCM_TEST_ENV_H_
#define SWITCHYARD_TESTS_PLUGINS_ROCM_ROCM_TEST_ENV_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/runtime/runtime.h"

namespace sy::rocm_test {
using namespace ::sy::core;  // NOLINT: the suite drives the core directly

std::string CpuManifest();
std::string RocmManifest();

struct RocmEnv {
  std::unique_ptr<Runtime> runtime;
  Device* cpu = nullptr;
  Device* rocm = nullptr;  // rocm:0, or NULL without a GPU
  std::string skip_reason;  // "no ROCm device: …" when rocm is NULL
  std::vector<std::string> load_log;  // the host log while loading
};

// Created on first use; lives until the process exits.
RocmEnv& Env();

// Uniform floats in [lo, hi), from `seed`.
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -2.0f,
                                float hi = 2.0f);

}  // namespace sy::rocm_test

#define SY_SKIP_WITHOUT_ROCM()                                  \
  do {                                                          \
    if (::sy::rocm_test::Env().rocm == nullptr) {               \
      GTEST_SKIP() << ::sy::rocm_test::Env().skip_reason;       \
    }                                                           \
  } while (false)

#endif  // SWITCHYARD_TESTS_PLUGINS_ROCM_ROCM_TEST_ENV_H_
