// Shared helpers for the dispatcher tests: runtimes that see only the plugins
// a test names, random tensors, and reading results back.
#ifndef SWITCHYARD_TESTS_DISPATCHER_TEST_UTIL_H_
#define SWITCHYARD_TESTS_DISPATCHER_TEST_UTIL_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/runtime/runtime.h"
#include "gtest/gtest.h"

namespace sy::testing {
using namespace ::sy::core;  // NOLINT: until this file uses the public API only

inline std::string CpuManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json";
}
inline std::string TestPlugin(const std::string& name) {
  return std::string(SWITCHYARD_TEST_PLUGIN_DIR) + "/" + name + "/" + name + ".json";
}
inline std::string BrokenManifest(const std::string& name) {
  return std::string(SWITCHYARD_TEST_PLUGIN_DIR) + "/broken/" + name + ".json";
}

// A runtime that loads the cpu plugin and `extra` manifests only: no
// environment, no default folder.
inline std::unique_ptr<Runtime> MakeRuntime(std::vector<std::string> extra = {},
                                            bool cpu_fallback = false) {
  RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths.push_back(CpuManifest());
  for (auto& path : extra) options.loader.search_paths.push_back(path);
  options.cpu_fallback = cpu_fallback;
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return runtime.ok() ? *std::move(runtime) : nullptr;
}

inline std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

inline Tensor MakeF32(Runtime& runtime, Device& device,
                      std::vector<int64_t> shape, const std::vector<float>& data) {
  absl::StatusOr<Tensor> t = runtime.FromHost(device, SY_DTYPE_F32, shape,
                                              data.data(), data.size() * 4);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

// `values` (NCHW order) as an [N, C, H, W] tensor laid out channels-last:
// a view of a contiguous [N, H, W, C] one.
inline Tensor MakeF32ChannelsLast(Runtime& runtime, Device& device,
                                  std::vector<int64_t> shape, const std::vector<float>& values) {
  const int64_t c = shape[1], h = shape[2], w = shape[3];
  std::vector<float> nhwc(values.size());
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < h; ++i)
        for (int64_t j = 0; j < w; ++j)
          nhwc[((n * h + i) * w + j) * c + k] = values[((n * c + k) * h + i) * w + j];
  const Tensor t = MakeF32(runtime, device, {shape[0], h, w, c}, nhwc);
  absl::StatusOr<OpHandle> permute = runtime.FindOp("permute");
  EXPECT_TRUE(permute.ok()) << permute.status();
  if (!permute.ok()) return Tensor();
  absl::StatusOr<std::vector<Tensor>> view = runtime.Call(*permute, {t}, {Attr({0, 3, 1, 2})});
  EXPECT_TRUE(view.ok()) << view.status();
  return view.ok() ? (*view)[0] : Tensor();
}

inline std::vector<float> ReadF32(Runtime& runtime, const Tensor& t) {
  std::vector<float> out(static_cast<size_t>(t.numel()));
  absl::Status status = runtime.ToHost(t, out.data(), out.size() * 4);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

inline const LoadRecord* FindRecord(const std::vector<LoadRecord>& records,
                                    const std::string& name) {
  for (const LoadRecord& r : records) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

// The cpu plugin still adds correctly.
inline void ExpectCpuAddWorks(Runtime& runtime) {
  Device* cpu = runtime.GetDevice("cpu").value();
  Tensor a = MakeF32(runtime, *cpu, {3}, {1, 2, 3});
  Tensor b = MakeF32(runtime, *cpu, {3}, {10, 20, 30});
  absl::StatusOr<std::vector<Tensor>> out =
      runtime.Call(runtime.FindOp("add").value(), {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(ReadF32(runtime, (*out)[0]), (std::vector<float>{11, 22, 33}));
}

}  // namespace sy::testing

#endif  // SWITCHYARD_TESTS_DISPATCHER_TEST_UTIL_H_
