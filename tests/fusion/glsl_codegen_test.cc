// The vulkan plugin's GLSL generator (plugins/vulkan/fused/glsl_codegen.h)
// and shaderc (spirv_compiler.h), without a Vulkan device: hand-written IR
// kernels that reach every path — elementwise over a broadcast, a strided
// and a contiguous operand, rows of one or several reduced dims with a
// per-row output, empty rows, rank 0, every storage dtype the hooks
// advertise, every op, values in double — generate GLSL that shaderc
// compiles to SPIR-V; each capability a device may lack declines the
// kernels that need it with a message naming it; shaderc's errors name the
// kernel.
#include <string>
#include <vector>

#include "fused/glsl_codegen.h"
#include "fused/spirv_compiler.h"
#include "gtest/gtest.h"
#include "ir_kernels.h"
#include "switchyard/plugin.h"

namespace sy::vulkan::fusion {
namespace {

using ::sy::fusion::testing::Chain;
using ::sy::fusion::testing::EveryOpRank0;
using ::sy::fusion::testing::Ir;
using ::sy::fusion::testing::RmsNorm;
using ::sy::fusion::testing::Softmax;

GlslTarget Full() { return {.float64 = true, .storage16 = true, .storage8 = true, .int64 = true}; }

// Generates and compiles `ir` for `target`; "" or the error.
std::string Build(const Ir& ir, const GlslTarget& target, GlslKernel* out = nullptr) {
  const sy_fused_kernel_t k = ir.Abi();
  GlslKernel gen;
  std::string error;
  if (!GenerateGlsl(k, target, &gen, &error)) return "generate: " + error;
  std::vector<uint32_t> spirv;
  if (!CompileGlsl(gen.source, ir.name, &spirv, &error)) return error + "\n" + gen.source;
  if (spirv.size() < 5 || spirv[0] != 0x07230203u) return "not SPIR-V";
  if (out != nullptr) *out = gen;
  return "";
}

TEST(GlslCodegen, EveryPathCompiles) {
  for (sy_dtype_t d : {SY_DTYPE_F32, SY_DTYPE_F16}) {
    GlslKernel gen;
    EXPECT_EQ(Build(Chain(d, 5, 33, {33, 1}), Full(), &gen), "");
    EXPECT_FALSE(gen.rows);
    EXPECT_EQ(gen.workgroups, 1u);  // 165 elements, 256 per workgroup
    EXPECT_EQ(gen.num_operands, 4);
    EXPECT_EQ(Build(Chain(d, 7, 9, {1, 7}), Full()), "");  // transposed x
    EXPECT_EQ(Build(Softmax(d, 3, 300), Full(), &gen), "");
    EXPECT_TRUE(gen.rows);
    EXPECT_EQ(gen.workgroups, 3u);  // a workgroup per row
    EXPECT_EQ(Build(Softmax(d, 0, 8), Full(), &gen), "");
    EXPECT_EQ(gen.workgroups, 0u);  // nothing to run
    EXPECT_EQ(Build(Softmax(d, 4, 0), Full()), "");  // empty rows
    EXPECT_EQ(Build(RmsNorm(d, {3, 4, 64}, 1), Full()), "");
    EXPECT_EQ(Build(RmsNorm(d, {3, 4, 16}, 2), Full()), "");  // two reduced dims
  }
  // Every op on a rank-0 value, integer and bool storage, float and double.
  const sy_dtype_t pairs[][3] = {{SY_DTYPE_I32, SY_DTYPE_I64, SY_DTYPE_F64},
                                 {SY_DTYPE_U8, SY_DTYPE_BOOL, SY_DTYPE_F32},
                                 {SY_DTYPE_I8, SY_DTYPE_I32, SY_DTYPE_F32},
                                 {SY_DTYPE_BOOL, SY_DTYPE_F16, SY_DTYPE_F32}};
  for (const auto& p : pairs) EXPECT_EQ(Build(EveryOpRank0(p[0], p[1], p[2]), Full()), "");
}

TEST(GlslCodegen, WhatADeviceLacksDeclinesWithTheReason) {
  struct Case {
    Ir ir;
    GlslTarget target;
    const char* reason;
  };
  GlslTarget no_f64 = Full(), no_16 = Full(), no_8 = Full(), no_i64 = Full();
  no_f64.float64 = false;
  no_16.storage16 = false;
  no_8.storage8 = false;
  no_i64.int64 = false;
  // rms_norm needs rsqrt (math.glsl, in double); softmax only exp and log.
  Ir plain;  // x * 2 in f32: no capability at all
  plain.ndim = 1;
  plain.shape = {10};
  plain.Input(SY_DTYPE_F32, {1});
  plain.Output(SY_DTYPE_F32, {1});
  const int x = plain.Add(SY_FUSED_LOAD, SY_DTYPE_F32);
  const int two = plain.Add(SY_FUSED_CONST, SY_DTYPE_F32, -1, -1, -1, 0, 0, 0, 2.0);
  plain.Add(SY_FUSED_STORE, SY_DTYPE_F32, plain.Add(SY_FUSED_MUL, SY_DTYPE_F32, x, two));
  GlslTarget none;
  EXPECT_EQ(Build(plain, none), "");
  // exp and log on f32 values are math_f32.glsl's: no shaderFloat64.
  EXPECT_EQ(Build(Softmax(SY_DTYPE_F32, 2, 8), no_f64), "");
  Ir huge = plain;
  huge.shape = {int64_t{1} << 32};
  Ir wide_stride = plain;
  wide_stride.in[0].strides[0] = int64_t{1} << 23;
  wide_stride.shape = {1024};
  const Case cases[] = {
      {EveryOpRank0(SY_DTYPE_F32, SY_DTYPE_F32, SY_DTYPE_F32), no_f64,
       "sqrt, rsqrt, sin, cos, pow and math on i32/i64 values need shaderFloat64"},
      {EveryOpRank0(SY_DTYPE_I32, SY_DTYPE_I32, SY_DTYPE_F32), no_f64, "shaderFloat64"},
      {Chain(SY_DTYPE_F16, 2, 8, {8, 1}), no_16, "f16 and bf16 need 16-bit storage"},
      {Chain(SY_DTYPE_F32, 2, 8, {8, 1}), no_8, "bool, i8 and u8 need 8-bit storage"},
      {EveryOpRank0(SY_DTYPE_I64, SY_DTYPE_F32, SY_DTYPE_F64), no_i64,
       "i64 operands need shaderInt64"},
      {Chain(SY_DTYPE_F64, 2, 8, {8, 1}), Full(), "f64 operands are not supported"},
      {huge, Full(), "the domain has 2^32 elements or more"},
      {wide_stride, Full(), "an operand spans 2^32 elements or more"},
  };
  for (const Case& c : cases) {
    const sy_fused_kernel_t k = c.ir.Abi();
    GlslKernel gen;
    std::string error;
    EXPECT_FALSE(GenerateGlsl(k, c.target, &gen, &error)) << c.reason;
    EXPECT_NE(error.find(c.reason), std::string::npos) << error;
  }
}

TEST(GlslCodegen, ShadercErrorsNameTheKernel) {
  std::vector<uint32_t> spirv;
  std::string error;
  EXPECT_FALSE(CompileGlsl("#version 450\nvoid main() { undefined_name(); }\n", "fused7_bad",
                           &spirv, &error));
  EXPECT_NE(error.find("shaderc could not compile the generated GLSL of 'fused7_bad'"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("undefined_name"), std::string::npos) << error;
  EXPECT_FALSE(CompileGlsl("#version 450\n#include \"nothing.glsl\"\nvoid main() {}\n", "k",
                           &spirv, &error));
  EXPECT_NE(error.find("no file 'nothing.glsl' in the vulkan plugin's shader library"),
            std::string::npos)
      << error;
  EXPECT_EQ(ShadercVersion().rfind("shaderc (SPIR-V 1.", 0), 0u) << ShadercVersion();
}

}  // namespace
}  // namespace sy::vulkan::fusion
