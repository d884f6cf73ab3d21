// Shared helpers of the fusion tests: a runtime with the cpu plugin only,
// random tensors of any dtype, reading results back as doubles, and
// capturing a function of some inputs into a graph.
#ifndef SWITCHYARD_TESTS_FUSION_FUSION_TEST_UTIL_H_
#define SWITCHYARD_TESTS_FUSION_FUSION_TEST_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "dispatcher/ops/dtype.h"
#include "dispatcher/runtime/runtime.h"
#include "fusion/graph.h"
#include "gtest/gtest.h"
#include "switchyard/plugin/dtypes.hpp"

namespace sy::fusion::testing {

using core::Attr;
using core::Device;
using core::Runtime;
using core::Tensor;

inline std::string CpuManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json";
}
inline std::string CudaManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/cuda.json";
}
inline std::string VulkanManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/vulkan.json";
}

// A runtime that loads the cpu plugin and `extra` manifests only.
inline std::unique_ptr<Runtime> MakeRuntime(std::vector<std::string> extra = {}) {
  core::RuntimeOptions options;
  options.loader.use_environment = false;
  options.loader.use_default_path = false;
  options.loader.search_paths.push_back(CpuManifest());
  for (std::string& path : extra) options.loader.search_paths.push_back(path);
  options.cpu_fallback = false;
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create(options);
  EXPECT_TRUE(runtime.ok()) << runtime.status();
  return runtime.ok() ? *std::move(runtime) : nullptr;
}

inline double RoundTo(sy_dtype_t dtype, double v) {
  if (dtype == SY_DTYPE_F32) return static_cast<float>(v);
  if (dtype == SY_DTYPE_F16) return static_cast<float>(plugin::Half(static_cast<float>(v)));
  if (dtype == SY_DTYPE_BF16) return static_cast<float>(plugin::BFloat16(static_cast<float>(v)));
  if (dtype == SY_DTYPE_BOOL) return v != 0 ? 1 : 0;
  if (core::IsIntegral(dtype)) return std::trunc(v);
  return v;
}

// Host values → a tensor of `dtype` (rounded like a cast).
inline Tensor FromValues(Runtime& rt, Device& device, sy_dtype_t dtype,
                         std::vector<int64_t> shape, const std::vector<double>& values) {
  const size_t size = core::DTypeSize(dtype);
  std::vector<unsigned char> bytes(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    unsigned char* p = bytes.data() + i * size;
    auto put = [&](auto x) { std::memcpy(p, &x, sizeof(x)); };
    switch (dtype) {
      case SY_DTYPE_F32: put(static_cast<float>(v)); break;
      case SY_DTYPE_F64: put(v); break;
      case SY_DTYPE_F16: put(plugin::Half(static_cast<float>(v))); break;
      case SY_DTYPE_BF16: put(plugin::BFloat16(static_cast<float>(v))); break;
      case SY_DTYPE_I32: put(static_cast<int32_t>(v)); break;
      case SY_DTYPE_I64: put(static_cast<int64_t>(v)); break;
      case SY_DTYPE_I8: put(static_cast<int8_t>(v)); break;
      case SY_DTYPE_U8: put(static_cast<uint8_t>(v)); break;
      case SY_DTYPE_BOOL: put(static_cast<uint8_t>(v != 0)); break;
    }
  }
  absl::StatusOr<Tensor> t = rt.FromHost(device, dtype, shape, bytes.data(), bytes.size());
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

inline std::vector<double> RandomValues(size_t n, uint32_t seed, double lo = -2,
                                        double hi = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

inline int64_t Numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

inline Tensor Random(Runtime& rt, Device& device, sy_dtype_t dtype,
                     std::vector<int64_t> shape, uint32_t seed, double lo = -2,
                     double hi = 2) {
  return FromValues(rt, device, dtype, shape,
                    RandomValues(static_cast<size_t>(Numel(shape)), seed, lo, hi));
}

// A tensor's elements in row-major order, as doubles.
inline std::vector<double> Read(Runtime& rt, const Tensor& t) {
  const size_t size = core::DTypeSize(t.dtype());
  std::vector<unsigned char> bytes(static_cast<size_t>(t.numel()) * size);
  absl::Status status = rt.ToHost(t, bytes.data(), bytes.size());
  EXPECT_TRUE(status.ok()) << status;
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    const unsigned char* p = bytes.data() + i * size;
    auto get = [&](auto x) {
      std::memcpy(&x, p, sizeof(x));
      return static_cast<double>(x);
    };
    switch (t.dtype()) {
      case SY_DTYPE_F32: out[i] = get(float{}); break;
      case SY_DTYPE_F64: out[i] = get(double{}); break;
      case SY_DTYPE_F16: {
        plugin::Half h;
        std::memcpy(&h, p, 2);
        out[i] = static_cast<float>(h);
        break;
      }
      case SY_DTYPE_BF16: {
        plugin::BFloat16 h;
        std::memcpy(&h, p, 2);
        out[i] = static_cast<float>(h);
        break;
      }
      case SY_DTYPE_I32: out[i] = get(int32_t{}); break;
      case SY_DTYPE_I64: out[i] = get(int64_t{}); break;
      case SY_DTYPE_I8: out[i] = get(int8_t{}); break;
      case SY_DTYPE_U8: out[i] = get(uint8_t{}); break;
      case SY_DTYPE_BOOL: out[i] = get(uint8_t{}) != 0 ? 1 : 0; break;
    }
  }
  return out;
}

// Calls `op` and returns its first output (failing the test on error).
inline Tensor Call(Runtime& rt, const std::string& op, std::vector<Tensor> inputs,
                   std::vector<Attr> attrs = {}) {
  absl::StatusOr<core::OpHandle> handle = rt.FindOp(op);
  EXPECT_TRUE(handle.ok()) << handle.status();
  if (!handle.ok()) return Tensor();
  absl::StatusOr<std::vector<Tensor>> out = rt.Call(*handle, inputs, attrs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}

// Relative-and-absolute closeness for results of `dtype` (a few ulp of the
// dtype, scaled by the value).
inline double Tolerance(sy_dtype_t dtype) {
  switch (dtype) {
    case SY_DTYPE_F64: return 1e-12;
    case SY_DTYPE_F16: return 4e-3;
    case SY_DTYPE_BF16: return 3e-2;
    default: return 2e-5;
  }
}

inline void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                        double tol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], w = want[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    if (std::isinf(w) && g == w) continue;
    if (!(std::fabs(g - w) <= tol * (1 + std::fabs(w)))) {
      if (++bad <= 5) {
        ADD_FAILURE() << what << ": element " << i << " is " << g << ", expected " << w
                      << " (tolerance " << tol << ")";
      }
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << got.size() << " elements differ";
}

// Captures `body` (which gets symbolic inputs like `examples` and returns
// the outputs) into a graph.
inline absl::StatusOr<Graph> CaptureGraph(
    Runtime& rt, const std::vector<Tensor>& examples,
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body) {
  absl::StatusOr<std::unique_ptr<Capture>> capture = Capture::Begin(rt);
  if (!capture.ok()) return capture.status();
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < examples.size(); ++i) {
    absl::StatusOr<Tensor> in = (*capture)->Input(examples[i], "in" + std::to_string(i));
    if (!in.ok()) return in.status();
    inputs.push_back(*in);
  }
  std::vector<Tensor> outputs = body(inputs);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined()) continue;  // the body failed; End says why
    absl::Status status = (*capture)->Output(outputs[i], "out" + std::to_string(i));
    if (!status.ok()) return status;
  }
  return (*capture)->End();
}

#ifdef SWITCHYARD_TEST_PATTERNS_MANIFEST
// A test over the cpu plugin and test_patterns (pattern_plugin.cc: pattern
// kernels and a cpu attention kernel), compiling without the disk cache.
class WithTestPatterns : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = MakeRuntime({std::string(SWITCHYARD_TEST_PATTERNS_MANIFEST)});
    ASSERT_NE(rt_, nullptr);
    cpu_ = rt_->GetDevice("cpu").value();
    CompilerOptions options;
    options.disk_cache = false;
    compiler_ = std::make_unique<Compiler>(*rt_, options);
  }

  std::unique_ptr<Runtime> rt_;
  Device* cpu_ = nullptr;
  std::unique_ptr<Compiler> compiler_;
};
#endif

}  // namespace sy::fusion::testing

#endif  // SWITCHYARD_TESTS_FUSION_FUSION_TEST_UTIL_H_
