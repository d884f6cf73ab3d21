// The plugin opened, used and let go by runtimes on several threads at
// once: each runtime's end may unload the plugin while another thread's
// new runtime initializes it again (Note [Probe lifetime] in
// plugins/vulkan/vk_context.cc). Every runtime must see a working
// vulkan:0, and nothing may crash. Its own program, so that no runtime
// outlives the others and keeps the plugin loaded.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "dispatcher/runtime/runtime.h"

namespace sy::core {
namespace {

std::string Manifest(const char* name) {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/" + name + ".json";
}

TEST(VulkanLifetime, RuntimesComeAndGoOnManyThreads) {
  std::atomic<int> failures{0}, ran{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 16; ++i) {
        RuntimeOptions options;
        options.loader.use_environment = false;
        options.loader.use_default_path = false;
        options.loader.search_paths = {Manifest("cpu"), Manifest("vulkan")};
        absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::Create(options);
        if (!rt.ok()) {
          ++failures;
          continue;
        }
        absl::StatusOr<Device*> dev = (*rt)->GetDevice("vulkan:0");
        if (!dev.ok()) continue;  // no Vulkan device on this machine
        const float v[3] = {1.0f + t, 2.0f, 3.0f + i};
        Tensor x = (*rt)->FromHost(**dev, SY_DTYPE_F32, {3}, v, sizeof v).value();
        std::vector<Tensor> y = (*rt)->Call((*rt)->FindOp("add").value(), {x, x}).value();
        float got[3] = {};
        if (!(*rt)->ToHost(y[0], got, sizeof got).ok() || got[0] != 2 * v[0] ||
            got[2] != 2 * v[2]) {
          ++failures;
        }
        ++ran;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  RecordProperty("runs_on_vulkan", ran.load());
  std::printf("%d runtime(s) ran on vulkan:0\n", ran.load());
}

}  // namespace
}  // namespace sy::core
