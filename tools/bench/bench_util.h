// What the benchmark programs share: contexts over chosen plugins of the
// build's (or install's) plugin folder, random tensors, and stopping with a
// message. Public API only (switchyard.hpp), like every tool.
#ifndef SWITCHYARD_TOOLS_BENCH_BENCH_UTIL_H_
#define SWITCHYARD_TOOLS_BENCH_BENCH_UTIL_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "switchyard/switchyard.hpp"

namespace sy::bench {

[[noreturn]] inline void Die(const std::string& what, const sy::Status& status) {
  std::fprintf(stderr, "benchmark: %s: %s\n", what.c_str(), status.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Must(sy::Result<T> result, const std::string& what) {
  if (!result.ok()) Die(what, result.status());
  return *std::move(result);
}
inline void Must(const sy::Status& status, const std::string& what) {
  if (!status.ok()) Die(what, status);
}

// The manifests of the plugin folder next to libswitchyard.so (the default
// plugin set), environment left out.
inline std::vector<std::string> DefaultManifests() {
  sy::ContextOptions options;
  options.use_environment = false;
  return sy::DiscoverPlugins(options).value_or({});
}

// The default folder's manifest of plugin `name` ("cpu" → …/cpu.json), or "".
inline std::string DefaultManifest(const std::string& name) {
  for (const std::string& m : DefaultManifests()) {
    if (std::filesystem::path(m).stem() == name) return m;
  }
  return "";
}

// A context over the named plugins of the default folder (each must load),
// with `plugin_options` ("plugin.option=value"); no environment.
inline sy::Context ContextWith(const std::vector<std::string>& plugins,
                               std::vector<std::string> plugin_options = {}) {
  sy::ContextOptions options;
  options.use_environment = false;
  options.use_default_path = false;
  for (const std::string& p : plugins) {
    const std::string manifest = DefaultManifest(p);
    if (manifest.empty()) {
      Die("plugin " + p, sy::Status(SY_STATUS_NOT_FOUND, "not in the default plugin folder"));
    }
    options.plugin_manifests.push_back(manifest);
  }
  options.plugin_options = std::move(plugin_options);
  return Must(sy::Context::Create(options), "context");
}

// The default plugin set, as an application gets it (environment left out).
inline sy::Context DefaultContext(std::vector<std::string> plugin_options = {}) {
  sy::ContextOptions options;
  options.use_environment = false;
  options.plugin_options = std::move(plugin_options);
  return Must(sy::Context::Create(options), "context");
}

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

inline std::vector<float> RandomData(int64_t n, uint32_t seed, float lo = -2.0f,
                                     float hi = 2.0f) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> data(static_cast<size_t>(n));
  for (float& x : data) x = dist(gen);
  return data;
}

inline sy::Tensor RandomF32(const sy::Device& device, const std::vector<int64_t>& shape,
                            uint32_t seed, float lo = -2.0f, float hi = 2.0f) {
  return Must(sy::Tensor::FromVector<float>(device, shape,
                                            RandomData(Numel(shape), seed, lo, hi)),
              "upload");
}

inline sy::Tensor EmptyF32(const sy::Device& device, const std::vector<int64_t>& shape) {
  return Must(sy::Tensor::Empty(device, SY_DTYPE_F32, shape), "empty");
}

// The device's compute units (threads the cpu plugin uses).
inline int Threads(const sy::Device& device) {
  return device.info().value_or({}).compute_units;
}

}  // namespace sy::bench

#endif  // SWITCHYARD_TOOLS_BENCH_BENCH_UTIL_H_
