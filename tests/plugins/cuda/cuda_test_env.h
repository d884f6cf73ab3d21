// The runtime the cuda plugin's tests share: cpu and cuda loaded from the
// build's plugin folder and nothing else, the host log captured.
//
// Every test that needs a GPU starts with SY_SKIP_WITHOUT_CUDA(), which
// skips it with "no CUDA device: …" (the plugin's own reason) on machines
// without one, such as CI.
#ifndef SWITCHYARD_TESTS_PLUGINS_CUDA_CUDA_TEST_ENV_H_
#define SWITCHYARD_TESTS_PLUGINS_CUDA_CUDA_TEST_ENV_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/runtime/runtime.h"

namespace sy::cuda_test {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only

std::string CpuManifest();
std::string CudaManifest();

struct CudaEnv {
  std::unique_ptr<Runtime> runtime;
  Device* cpu = nullptr;
  Device* cuda = nullptr;  // cuda:0, or NULL without a GPU
  std::string skip_reason;  // "no CUDA device: …" when cuda is NULL
  std::vector<std::string> load_log;  // the host log while loading
};

// Created on first use; lives until the process exits.
CudaEnv& Env();

// Uniform floats in [lo, hi), from `seed`.
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -2.0f,
                                float hi = 2.0f);

}  // namespace sy::cuda_test

#define SY_SKIP_WITHOUT_CUDA()                                  \
  do {                                                          \
    if (::sy::cuda_test::Env().cuda == nullptr) {               \
      GTEST_SKIP() << ::sy::cuda_test::Env().skip_reason;       \
    }                                                           \
  } while (false)

#endif  // SWITCHYARD_TESTS_PLUGINS_CUDA_CUDA_TEST_ENV_H_
