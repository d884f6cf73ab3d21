// f32 denormals on the device (docs/vulkan.md, "Denormals"): where vulkan:0
// reports shaderDenormPreserveFloat32, every shader module asks for
// DenormPreserve 32 and denormal inputs survive abs, neg, add, mul, a
// comparison, a cast to bool and a sum, bit for bit against the host's
// float arithmetic; where it does not, the load record says so (lavapipe
// in Mesa 22.3 reports no float-control preservation, so CI checks the
// record and skips the values). NVIDIA's driver flushes f32 denormals
// unless asked: the GPU run (tools/bench/vulkan/device_run.sh tests) is
// where the values are checked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "vulkan_test_env.h"

namespace sy::vulkan_test {
namespace {

using ::testing::HasSubstr;

constexpr char kProperty[] = "shaderDenormPreserveFloat32";

const LoadRecord& VulkanRecord() {
  static const std::vector<LoadRecord> records = Env().runtime->LoadRecords();
  for (const LoadRecord& r : records) {
    if (r.name == "vulkan") return r;
  }
  static const LoadRecord none;
  return none;
}

// The note the plugin leaves for vulkan:0 when it cannot keep f32
// denormals, or "".
std::string NoPreserveNote() {
  for (const std::string& note : VulkanRecord().notes) {
    if (note.find("vulkan:0 (") != std::string::npos && note.find(kProperty) != std::string::npos) {
      return note;
    }
  }
  return "";
}

bool KeepsF32Denormals() {
  const std::vector<std::string>& notes = VulkanRecord().notes;
  return !notes.empty() && notes[0].find("keeps f32 denormals") != std::string::npos;
}

TEST(VulkanDenormals, TheLoadRecordSaysWhetherTheDeviceKeepsThem) {
  SY_SKIP_WITHOUT_VULKAN();
  const std::string note = NoPreserveNote();
  // Exactly one of: the device line says it keeps them, or a note says
  // why not and what differs.
  EXPECT_NE(KeepsF32Denormals(), !note.empty())
      << "notes: " << ::testing::PrintToString(VulkanRecord().notes);
  if (!note.empty()) {
    EXPECT_THAT(note, HasSubstr("may flush them to zero"));
    EXPECT_THAT(note, HasSubstr("abs, neg, add, mul, compare, cast to bool"));
  }
  // The same in machine-readable form, for the conformance kit and users.
  Device* device = Env().runtime->GetDevice("vulkan:0").value();
  EXPECT_EQ((device->properties().float_flags & SY_FLOAT_FLUSHES_F32_SUBNORMALS) != 0,
            !note.empty());
}

// Runs `op` on vulkan:0 and returns the output's bytes.
template <typename T>
std::vector<T> RunOp(const char* op, const std::vector<Tensor>& in, std::vector<Attr> attrs = {}) {
  Runtime& rt = *Env().runtime;
  std::vector<Tensor> out = rt.Call(rt.FindOp(op).value(), in, attrs).value();
  std::vector<T> got(out[0].numel());
  EXPECT_TRUE(rt.ToHost(out[0], got.data(), got.size() * sizeof(T)).ok());
  return got;
}

uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(VulkanDenormals, DenormalInputsSurviveWhereTheDeviceKeepsThem) {
  SY_SKIP_WITHOUT_VULKAN();
  if (!KeepsF32Denormals()) {
    GTEST_SKIP() << "vulkan:0 does not report " << kProperty
                 << ", so the plugin cannot ask its shaders to keep f32 denormals: "
                 << NoPreserveNote();
  }
  const float tiny = std::numeric_limits<float>::denorm_min();  // 1.4e-45
  const float min_normal = std::numeric_limits<float>::min();
  const std::vector<float> x = {tiny,  -tiny, 3 * tiny, min_normal / 2, -0.75f * min_normal,
                                min_normal, 0.0f, -0.0f, 1.0f};
  const std::vector<float> y = {tiny, tiny, -tiny, min_normal / 4, 0.5f,
                                -min_normal / 2, tiny, -tiny, 0.5f};
  const int64_t n = static_cast<int64_t>(x.size());
  Runtime& rt = *Env().runtime;
  const Tensor tx = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {n}, x.data(), n * 4).value();
  const Tensor ty = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {n}, y.data(), n * 4).value();

  const std::vector<float> abs = RunOp<float>("abs", {tx});
  const std::vector<float> neg = RunOp<float>("neg", {tx});
  const std::vector<float> add = RunOp<float>("add.Tensor", {tx, ty});
  const std::vector<float> mul = RunOp<float>("mul.Tensor", {tx, ty});
  const std::vector<uint8_t> to_bool = RunOp<uint8_t>("cast", {tx}, {Attr::DType(SY_DTYPE_BOOL)});
  const std::vector<uint8_t> nonzero = RunOp<uint8_t>("ne.Scalar", {tx}, {Attr(0.0)});
  for (int64_t i = 0; i < n; ++i) {
    // The host's float arithmetic keeps denormals (no FTZ/DAZ here).
    const float a = x[i], b = y[i];
    SCOPED_TRACE(::testing::Message() << "x = " << a << ", y = " << b);
    EXPECT_EQ(Bits(abs[i]), Bits(std::fabs(a))) << "abs gave " << abs[i];
    EXPECT_EQ(Bits(neg[i]), Bits(-a)) << "neg gave " << neg[i];
    EXPECT_EQ(Bits(add[i]), Bits(a + b)) << "add gave " << add[i];
    EXPECT_EQ(Bits(mul[i]), Bits(a * b)) << "mul gave " << mul[i];
    EXPECT_EQ(to_bool[i], a != 0.0f ? 1 : 0) << "cast to bool";
    EXPECT_EQ(nonzero[i], a != 0.0f ? 1 : 0) << "ne 0";
  }
  // A sum of denormals: 4 · 1.4e-45 exactly.
  const std::vector<float> four(4, tiny);
  const Tensor t4 = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {4}, four.data(), 16).value();
  EXPECT_EQ(RunOp<float>("sum", {t4})[0], 4 * tiny);
}

// abs and neg flip or clear the sign bit, as IEEE 754 defines them, so they
// are exact on every device — also one whose arithmetic flushes subnormals
// (there `x < 0 ? -x : x` gave abs(-1.4e-45) = -1.4e-45), and for -0 and NaN.
TEST(VulkanDenormals, AbsAndNegAreExactOnEveryDevice) {
  SY_SKIP_WITHOUT_VULKAN();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {tiny, -tiny, -0.0f, 0.0f, -std::numeric_limits<float>::min() / 2,
                                -nan, -1.5f, std::numeric_limits<float>::infinity()};
  const int64_t n = static_cast<int64_t>(x.size());
  Runtime& rt = *Env().runtime;
  const Tensor tx = rt.FromHost(*Env().vulkan, SY_DTYPE_F32, {n}, x.data(), n * 4).value();
  const std::vector<float> abs = RunOp<float>("abs", {tx});
  const std::vector<float> neg = RunOp<float>("neg", {tx});
  for (int64_t i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << "x bits 0x" << std::hex << Bits(x[i]));
    EXPECT_EQ(Bits(abs[i]), Bits(x[i]) & 0x7fffffffu);
    EXPECT_EQ(Bits(neg[i]), Bits(x[i]) ^ 0x80000000u);
  }
}

}  // namespace
}  // namespace sy::vulkan_test
