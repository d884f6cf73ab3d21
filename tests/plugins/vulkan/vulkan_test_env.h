// The runtime the vulkan plugin's tests share: cpu and vulkan loaded from the
// build's plugin folder and nothing else, the host log captured.
//
// Every test that needs a Vulkan device starts with SY_SKIP_WITHOUT_VULKAN(),
// which skips it with "no Vulkan device: …" (the plugin's own reason) on
// machines without one. CI has one: lavapipe (mesa-vulkan-drivers).
#ifndef SWITCHYARD_TESTS_PLUGINS_VULKAN_VULKAN_TEST_ENV_H_
#define SWITCHYARD_TESTS_PLUGINS_VULKAN_VULKAN_TEST_ENV_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/runtime/runtime.h"

namespace sy::vulkan_test {
using namespace ::sy::core;  // NOLINT: the suite drives the core directly

std::string CpuManifest();
std::string VulkanManifest();

struct VulkanEnv {
  std::unique_ptr<Runtime> runtime;
  Device* cpu = nullptr;
  Device* vulkan = nullptr;  // vulkan:0, or NULL without a device
  std::string skip_reason;  // "no Vulkan device: …" when vulkan is NULL
  std::vector<std::string> load_log;  // the host log while loading
};

// Created on first use; lives until the process exits.
VulkanEnv& Env();

// Uniform floats in [lo, hi), from `seed`.
std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -2.0f,
                                float hi = 2.0f);

}  // namespace sy::vulkan_test

#define SY_SKIP_WITHOUT_VULKAN()                                  \
  do {                                                          \
    if (::sy::vulkan_test::Env().vulkan == nullptr) {               \
      GTEST_SKIP() << ::sy::vulkan_test::Env().skip_reason;       \
    }                                                           \
  } while (false)

#endif  // SWITCHYARD_TESTS_PLUGINS_VULKAN_VULKAN_TEST_ENV_H_
