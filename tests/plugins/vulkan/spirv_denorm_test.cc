// The SPIR-V denormal patch (plugins/vulkan/spirv_denorm.h), without a
// device: hand-assembled modules against the exact words expected (each
// instruction in its logical-layout section), the widths a device's float
// controls allow, idempotence, a width already flushed, malformed input;
// and, where the build has shaderc and SPIRV-Tools (SY_TEST_SPIRV_TOOLS),
// real glslc/shaderc output with f16, f32 and f64 through SPIRV-Tools'
// validator for Vulkan 1.2 before and after the patch.
#include "spirv_denorm.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#if SY_TEST_SPIRV_TOOLS
#include <spirv-tools/libspirv.hpp>

#include "fused/spirv_compiler.h"
#endif

namespace sy::vulkan {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using Independence = DenormSupport::Independence;
using Words = std::vector<uint32_t>;

// SPIR-V enumerants the modules below use.
enum : uint32_t {
  kOpName = 5, kOpExtension = 10, kOpExtInstImport = 11, kOpMemoryModel = 14,
  kOpEntryPoint = 15, kOpExecutionMode = 16, kOpCapability = 17, kOpTypeVoid = 19,
  kOpTypeFloat = 22, kOpTypeFunction = 33, kOpFunction = 54, kOpFunctionEnd = 56,
  kOpLabel = 248, kOpReturn = 253,
  kCapShader = 1, kCapFloat16 = 9, kCapFloat64 = 10, kCapDenormPreserve = 4464,
  kModeLocalSize = 17, kModeDenormPreserve = 4459, kModeDenormFlushToZero = 4460,
  kCapDenormFlushToZero = 4465,
};

// A literal string's operand words.
Words Str(std::string_view s) {
  Words w(s.size() / 4 + 1, 0);
  for (size_t i = 0; i < s.size(); ++i) w[i / 4] |= uint32_t(uint8_t(s[i])) << (8 * (i % 4));
  return w;
}

// One instruction: opcode and operands.
Words Op(uint32_t opcode, Words operands = {}) {
  Words w{static_cast<uint32_t>((operands.size() + 1) << 16) | opcode};
  w.insert(w.end(), operands.begin(), operands.end());
  return w;
}

Words Cat(std::initializer_list<Words> parts) {
  Words all;
  for (const Words& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

Words Header(uint32_t version) { return {0x07230203, version, 0, 9, 0}; }

// The sections of a minimal compute module, ids: 1 GLSL.std.450, 2 main,
// 3 void, 4 f32, 5 fn type, 6 label, 7 f16, 8 f64 (bound 9).
struct Module {
  uint32_t version = 0x00010000;
  Words capabilities = Op(kOpCapability, {kCapShader});
  Words extensions;
  Words modes = Op(kOpExecutionMode, {2, kModeLocalSize, 64, 1, 1});
  Words types = Op(kOpTypeFloat, {4, 32});

  Words Build(Words extra_caps = {}, Words extra_exts = {}, Words extra_modes = {}) const {
    return Cat({Header(version), capabilities, extra_caps, extensions, extra_exts,
                Op(kOpExtInstImport, Cat({{1}, Str("GLSL.std.450")})),
                Op(kOpMemoryModel, {0, 1}), Op(kOpEntryPoint, Cat({{5, 2}, Str("main")})), modes,
                extra_modes, Op(kOpName, Cat({{2}, Str("main")})), Op(kOpTypeVoid, {3}), types,
                Op(kOpTypeFunction, {5, 3}), Op(kOpFunction, {3, 2, 0, 5}), Op(kOpLabel, {6}),
                Op(kOpReturn), Op(kOpFunctionEnd)});
  }
};

DenormSupport Preserves(bool p16, bool p32, bool p64, Independence ind = Independence::kAll) {
  DenormSupport s;
  s.preserve16 = p16;
  s.preserve32 = p32;
  s.preserve64 = p64;
  s.independence = ind;
  return s;
}

Words Patch(const Words& in, const DenormSupport& support) {
  Words out;
  std::string error;
  EXPECT_TRUE(AddDenormPreserve(in, support, &out, &error)) << error;
  return out;
}

const Words kCap = Op(kOpCapability, {kCapDenormPreserve});
const Words kExt = Op(kOpExtension, Str("SPV_KHR_float_controls"));
Words Mode(uint32_t width) { return Op(kOpExecutionMode, {2, kModeDenormPreserve, width}); }

TEST(SpirvDenorm, SpirV10GetsCapabilityExtensionAndModeInTheirSections) {
  const Module m;
  EXPECT_EQ(Patch(m.Build(), Preserves(false, true, false)), m.Build(kCap, kExt, Mode(32)));
  // After an extension the module already has, not before it.
  Module with_ext = m;
  with_ext.extensions = Op(kOpExtension, Str("SPV_KHR_storage_buffer_storage_class"));
  EXPECT_EQ(Patch(with_ext.Build(), Preserves(false, true, false)),
            with_ext.Build(kCap, kExt, Mode(32)));
}

TEST(SpirvDenorm, SpirV14AndLaterNeedNoExtension) {
  for (uint32_t version : {0x00010400u, 0x00010500u, 0x00010600u}) {
    Module m;
    m.version = version;
    EXPECT_EQ(Patch(m.Build(), Preserves(true, true, true)), m.Build(kCap, {}, Mode(32)))
        << std::hex << version;
  }
}

TEST(SpirvDenorm, EveryDeclaredWidthTheDevicePreserves) {
  Module m;
  m.version = 0x00010500;
  m.capabilities = Cat({Op(kOpCapability, {kCapShader}), Op(kOpCapability, {kCapFloat16}),
                        Op(kOpCapability, {kCapFloat64})});
  m.types = Cat({Op(kOpTypeFloat, {4, 32}), Op(kOpTypeFloat, {7, 16}), Op(kOpTypeFloat, {8, 64})});
  EXPECT_EQ(Patch(m.Build(), Preserves(true, true, true)),
            m.Build(kCap, {}, Cat({Mode(16), Mode(32), Mode(64)})));
  EXPECT_EQ(Patch(m.Build(), Preserves(false, true, true)),
            m.Build(kCap, {}, Cat({Mode(32), Mode(64)})));
  // 32_BIT_ONLY: 16 and 64 alike, so neither when one is not preserved.
  EXPECT_EQ(Patch(m.Build(), Preserves(false, true, true, Independence::k32BitOnly)),
            m.Build(kCap, {}, Mode(32)));
  // NONE: all alike, so nothing when one is not preserved.
  EXPECT_EQ(Patch(m.Build(), Preserves(false, true, true, Independence::kNone)), m.Build());
}

TEST(SpirvDenorm, WidthsFollowDenormBehaviorIndependence) {
  using W = std::vector<uint32_t>;
  const W all{16, 32, 64}, f32_f64{32, 64}, f16_f32{16, 32};
  EXPECT_EQ(DenormPreserveWidths(Preserves(true, true, true), all), all);
  EXPECT_EQ(DenormPreserveWidths(Preserves(true, false, true), all), (W{16, 64}));
  EXPECT_EQ(DenormPreserveWidths(Preserves(true, true, true), W{64, 32}), f32_f64);
  EXPECT_EQ(DenormPreserveWidths(Preserves(false, false, false), all), W{});
  EXPECT_EQ(DenormPreserveWidths(Preserves(true, true, true), W{}), W{});
  // 32_BIT_ONLY: a declared 16 not preserved takes 64 with it, not 32.
  const auto only32 = Independence::k32BitOnly;
  EXPECT_EQ(DenormPreserveWidths(Preserves(false, true, true, only32), all), W{32});
  EXPECT_EQ(DenormPreserveWidths(Preserves(false, true, true, only32), f32_f64), f32_f64);
  EXPECT_EQ(DenormPreserveWidths(Preserves(true, true, false, only32), f16_f32), f16_f32);
  EXPECT_EQ(DenormPreserveWidths(Preserves(true, false, true, only32), all), (W{16, 64}));
  // NONE: every declared width or none.
  const auto none = Independence::kNone;
  EXPECT_EQ(DenormPreserveWidths(Preserves(true, true, true, none), all), all);
  EXPECT_EQ(DenormPreserveWidths(Preserves(false, true, true, none), all), W{});
  EXPECT_EQ(DenormPreserveWidths(Preserves(false, true, true, none), f32_f64), f32_f64);
}

TEST(SpirvDenorm, NothingToAskLeavesTheModuleAsItIs) {
  const Module m;
  EXPECT_EQ(Patch(m.Build(), Preserves(false, false, false)), m.Build());
  EXPECT_EQ(Patch(m.Build(), Preserves(true, false, true)), m.Build());  // only f32 declared
  Module no_float = m;
  no_float.types = {};
  EXPECT_EQ(Patch(no_float.Build(), Preserves(true, true, true)), no_float.Build());
}

TEST(SpirvDenorm, PatchingTwiceEqualsPatchingOnce) {
  const Module m;
  const Words once = Patch(m.Build(), Preserves(true, true, true));
  EXPECT_EQ(Patch(once, Preserves(true, true, true)), once);
  // A module that already asks: unchanged.
  EXPECT_EQ(Patch(m.Build(kCap, kExt, Mode(32)), Preserves(true, true, true)),
            m.Build(kCap, kExt, Mode(32)));
}

TEST(SpirvDenorm, AWidthTheModuleFlushesIsLeftAlone) {
  const Module m;
  const Words flushes = m.Build(Op(kOpCapability, {kCapDenormFlushToZero}), kExt,
                                Op(kOpExecutionMode, {2, kModeDenormFlushToZero, 32}));
  EXPECT_EQ(Patch(flushes, Preserves(true, true, true)), flushes);
}

TEST(SpirvDenorm, MalformedInputIsRefusedAndOutIsUntouched) {
  const Words good = Module().Build();
  Words cut(good.begin(), good.end() - 1);  // OpFunctionEnd gone: fine
  Words overrun = good;
  overrun.back() = (9u << 16) | kOpFunctionEnd;  // claims 9 words, 1 left
  Words zero = good;
  zero[5] = 0;  // a zero word count
  Words wrong_magic = good;
  wrong_magic[0] = 0x03022307;  // byte-swapped
  Words no_caps = Cat({Header(0x00010000), Op(kOpMemoryModel, {0, 1})});
  const struct {
    Words words;
    std::string want;
  } cases[] = {
      {{}, "not SPIR-V (0 words"},
      {{0x07230203, 0x00010000}, "not SPIR-V (2 words"},
      {wrong_magic, "not SPIR-V"},
      {overrun, "claims 9 words; 1 are left"},
      {zero, "claims 0 words"},
      {no_caps, "without an OpCapability"},
  };
  for (const auto& c : cases) {
    Words out{42};
    std::string error;
    EXPECT_FALSE(AddDenormPreserve(c.words, Preserves(true, true, true), &out, &error)) << c.want;
    EXPECT_THAT(error, HasSubstr(c.want));
    EXPECT_EQ(out, Words{42});
  }
  Words out;
  std::string error;
  EXPECT_TRUE(AddDenormPreserve(cut, Preserves(true, true, true), &out, &error)) << error;
}

#if SY_TEST_SPIRV_TOOLS
// "" when SPIRV-Tools accepts `words` for `env`, else its messages.
std::string Validate(const Words& words, spv_target_env env) {
  spvtools::SpirvTools tools(env);
  std::string messages;
  tools.SetMessageConsumer([&](spv_message_level_t, const char*, const spv_position_t& at,
                               const char* m) {
    messages += std::string(m) + " (word " + std::to_string(at.index) + ")\n";
  });
  return tools.Validate(words) ? "" : messages.empty() ? "invalid" : messages;
}

TEST(SpirvDenorm, HandAssembledModulesValidate) {
  const Module m;
  ASSERT_EQ(Validate(m.Build(), SPV_ENV_VULKAN_1_0), "");
  EXPECT_EQ(Validate(Patch(m.Build(), Preserves(true, true, true)), SPV_ENV_VULKAN_1_0), "");
  // The validator does check what the patch adds: the mode without its
  // capability is refused.
  EXPECT_NE(Validate(m.Build({}, kExt, Mode(32)), SPV_ENV_VULKAN_1_0), "");
}

TEST(SpirvDenorm, ShadercOutputWithEveryWidthValidatesForVulkan12) {
  // f16 arithmetic, f32 storage and f64 arithmetic, as the plugin's
  // shaders (math.glsl) and the cooperative-matrix matmul use them.
  const std::string source = R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { float v[]; } b;
void main() {
  uint i = gl_GlobalInvocationID.x;
  float16_t h = float16_t(b.v[i]) * float16_t(0.5);
  double d = double(b.v[i]) * 3.0LF;
  b.v[i] = abs(b.v[i]) + float(h) + float(d);
}
)";
  Words spirv;
  std::string error;
  ASSERT_TRUE(fusion::CompileGlsl(source, "denorm_probe", &spirv, &error)) << error;
  ASSERT_EQ(Validate(spirv, SPV_ENV_VULKAN_1_2), "");
  Words patched;
  ASSERT_TRUE(AddDenormPreserve(spirv, Preserves(true, true, true), &patched, &error)) << error;
  EXPECT_EQ(patched.size(), spirv.size() + 2 + 3 * 4);  // capability, three modes
  EXPECT_EQ(Validate(patched, SPV_ENV_VULKAN_1_2), "");
  std::string text;
  ASSERT_TRUE(spvtools::SpirvTools(SPV_ENV_VULKAN_1_2).Disassemble(patched, &text));
  // In their sections: the capability last of the capabilities, the modes
  // right after the module's own.
  EXPECT_THAT(text, HasSubstr("OpCapability Float64\nOpCapability DenormPreserve\n%1 = "));
  EXPECT_THAT(text, ContainsRegex("LocalSize 64 1 1\n"
                                  "OpExecutionMode %[0-9a-z_]+ DenormPreserve 16\n"
                                  "OpExecutionMode %[0-9a-z_]+ DenormPreserve 32\n"
                                  "OpExecutionMode %[0-9a-z_]+ DenormPreserve 64\n"
                                  "OpDecorate "));
  // Only f32 preserved (NVIDIA-like without f16): one mode.
  ASSERT_TRUE(AddDenormPreserve(spirv, Preserves(false, true, false), &patched, &error));
  EXPECT_EQ(patched.size(), spirv.size() + 2 + 4);
  EXPECT_EQ(Validate(patched, SPV_ENV_VULKAN_1_2), "");
}
#endif

}  // namespace
}  // namespace sy::vulkan
