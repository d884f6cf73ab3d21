// Shared helpers for the C API tests: contexts that see only the plugins a
// test names, host data in and out, random inputs, and checking an error's
// code and exact message.
#ifndef SWITCHYARD_TESTS_API_C_API_TEST_UTIL_H_
#define SWITCHYARD_TESTS_API_C_API_TEST_UTIL_H_

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "switchyard/switchyard.h"

namespace sy_test {

inline std::string CpuManifest() {
  return std::string(SWITCHYARD_PLUGIN_DIR) + "/cpu.json";
}
inline std::string TestPlugin(const std::string& name) {
  return std::string(SWITCHYARD_TEST_PLUGIN_DIR) + "/" + name + "/" + name + ".json";
}
inline std::string BrokenManifest(const std::string& name) {
  return std::string(SWITCHYARD_TEST_PLUGIN_DIR) + "/broken/" + name + ".json";
}

// "0x5a4…": how messages print a handle.
template <typename Handle>
std::string Hex(Handle handle) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64,
                static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle)));
  return buf;
}

// A context over `paths` only (no environment, no default folder).
inline sy_context_t MakeContext(std::vector<std::string> paths = {CpuManifest()}) {
  std::vector<const char*> c_paths;
  for (const std::string& p : paths) c_paths.push_back(p.c_str());
  sy_context_options_t options;
  sy_context_options_init(&options);
  options.plugin_paths = c_paths.data();
  options.num_plugin_paths = static_cast<int32_t>(c_paths.size());
  options.use_environment = 0;
  options.use_default_path = 0;
  options.cpu_fallback = 0;
  sy_context_t context = nullptr;
  EXPECT_EQ(sy_context_create(&options, &context), SY_STATUS_OK)
      << sy_last_error_message();
  return context;
}

inline sy_device_handle_t Cpu(sy_context_t context) {
  sy_device_handle_t device = nullptr;
  EXPECT_EQ(sy_device_find(context, "cpu:0", &device), SY_STATUS_OK)
      << sy_last_error_message();
  return device;
}

inline std::vector<float> RandomFloats(size_t n, uint32_t seed, float lo = -2.0f,
                                       float hi = 2.0f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

inline sy_tensor_t F32(sy_device_handle_t device, std::vector<int64_t> shape,
                       const std::vector<float>& data) {
  sy_tensor_t t = nullptr;
  EXPECT_EQ(sy_tensor_from_host(device, SY_DTYPE_F32, shape.data(),
                                static_cast<int32_t>(shape.size()), data.data(),
                                data.size() * sizeof(float), &t),
            SY_STATUS_OK)
      << sy_last_error_message();
  return t;
}

inline std::vector<float> ReadF32(sy_tensor_t t) {
  int64_t numel = 0;
  EXPECT_EQ(sy_tensor_numel(t, &numel), SY_STATUS_OK) << sy_last_error_message();
  std::vector<float> out(static_cast<size_t>(numel));
  EXPECT_EQ(sy_tensor_to_host(t, out.data(), out.size() * sizeof(float)), SY_STATUS_OK)
      << sy_last_error_message();
  return out;
}

inline sy_op_t Op(sy_context_t context, const char* name) {
  sy_op_t op = nullptr;
  EXPECT_EQ(sy_op_find(context, name, &op), SY_STATUS_OK) << sy_last_error_message();
  return op;
}

// One output, or nullptr (with a test failure) on error.
inline sy_tensor_t Call1(sy_op_t op, std::vector<sy_tensor_t> inputs,
                         std::vector<sy_attr_t> attrs = {}) {
  sy_tensor_t out = nullptr;
  EXPECT_EQ(sy_op_call(op, inputs.data(), static_cast<int32_t>(inputs.size()),
                       attrs.data(), static_cast<int32_t>(attrs.size()), &out, 1),
            SY_STATUS_OK)
      << sy_last_error_message();
  return out;
}

inline sy_attr_t IntsAttr(const std::vector<int64_t>& values) {
  sy_attr_t attr{};
  attr.kind = SY_ATTR_INTS;
  attr.value.ints.data = values.data();
  attr.value.ints.size = static_cast<int64_t>(values.size());
  return attr;
}
inline sy_attr_t IntAttr(int64_t v) {
  sy_attr_t attr{};
  attr.kind = SY_ATTR_INT;
  attr.value.i = v;
  return attr;
}
inline sy_attr_t FloatAttr(double v) {
  sy_attr_t attr{};
  attr.kind = SY_ATTR_FLOAT;
  attr.value.f = v;
  return attr;
}
inline sy_attr_t BoolAttr(bool v) {
  sy_attr_t attr{};
  attr.kind = SY_ATTR_BOOL;
  attr.value.b = v ? 1 : 0;
  return attr;
}
inline sy_attr_t StringAttr(const char* s) {
  sy_attr_t attr{};
  attr.kind = SY_ATTR_STRING;
  attr.value.str.data = s;
  attr.value.str.size = static_cast<int64_t>(std::char_traits<char>::length(s));
  return attr;
}

// Asserts a call failed with `code` and exactly `message`, and that the
// thread's last error says the same.
#define EXPECT_SY_ERROR(call, code, message)                       \
  do {                                                             \
    const sy_status_code_t sy_status_ = (call);                    \
    EXPECT_EQ(sy_status_, (code)) << sy_last_error_message();      \
    EXPECT_EQ(sy_last_error_code(), (code));                       \
    EXPECT_EQ(std::string(sy_last_error_message()), (message));    \
  } while (0)

// Asserts a call failed with `code` and a message starting with `prefix`
// and containing `part` (for messages the dispatcher writes).
#define EXPECT_SY_ERROR_LIKE(call, code, prefix, part)                       \
  do {                                                                       \
    const sy_status_code_t sy_status_ = (call);                              \
    EXPECT_EQ(sy_status_, (code)) << sy_last_error_message();                \
    const std::string sy_message_ = sy_last_error_message();                 \
    EXPECT_EQ(sy_message_.rfind((prefix), 0), 0u) << sy_message_;            \
    EXPECT_NE(sy_message_.find((part)), std::string::npos) << sy_message_;   \
  } while (0)

// A fixture with a cpu-only context.
class CApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    context_ = MakeContext();
    ASSERT_NE(context_, nullptr);
    cpu_ = Cpu(context_);
  }
  void TearDown() override {
    if (context_ != nullptr) {
      EXPECT_EQ(sy_context_destroy(context_), SY_STATUS_OK) << sy_last_error_message();
    }
  }

  sy_context_t context_ = nullptr;
  sy_device_handle_t cpu_ = nullptr;
};

}  // namespace sy_test

#endif  // SWITCHYARD_TESTS_API_C_API_TEST_UTIL_H_
