// GLSL compute shaders from the fused-kernel IR (Note [Fused-kernel IR],
// plugin.h): the vulkan plugin's code generator, compiled to SPIR-V at run
// time by shaderc (spirv_compiler.h). Plain C++ without Vulkan headers.
//
// Note [Vulkan fused kernels]: like the CUDA generator (and through the
// same SDK pieces, switchyard/plugin/fused_codegen.hpp), every shape and
// stride is a constant of the source, so a kernel is specialized to its
// call and index math folds.
//   - Operands are buffer device addresses (the plugin's memory handles),
//     read from a table whose address is the only push constant (so a
//     kernel may have more operands than 128 bytes of push constants hold);
//     loads and stores are common.glsl's ld_<dtype>/st_<dtype>, offsets are
//     32-bit element counts (a kernel whose domain or operands pass 2^32
//     elements is declined).
//   - Elementwise kernels: one invocation per element, 256-wide
//     workgroups over a 2-D grid (common.glsl's linear_index).
//   - Row kernels: one 256-invocation workgroup per row; each stage walks
//     the row with a stride of 256, and each REDUCE combines the
//     invocations' partial results through shared memory (a tree of
//     barriers), so every invocation has the row's result for later stages.
//     Rows are read again per stage.
//   - Values compute in float (double for f64, i32, i64); f16 and bf16
//     round after every instruction, bit by bit as common.glsl converts
//     them (16-bit storage, no shaderFloat16 needed). exp, log, sin, …,
//     pow and sqrt compute in double through math.glsl, as the plugin's own
//     kernels do, so fused and unfused results agree to the last bits; that
//     needs shaderFloat64, and so do double values.
//
// Thread-safety: pure function.
#ifndef SWITCHYARD_PLUGINS_VULKAN_FUSED_GLSL_CODEGEN_H_
#define SWITCHYARD_PLUGINS_VULKAN_FUSED_GLSL_CODEGEN_H_

#include <cstdint>
#include <string>

#include "switchyard/plugin.h"

namespace sy::vulkan::fusion {

// What the device offers the generated code.
struct GlslTarget {
  bool float64 = false;    // shaderFloat64: math.glsl and double values
  bool storage16 = false;  // 16-bit storage: f16 and bf16 operands
  bool storage8 = false;   // 8-bit storage: bool, i8, u8 operands
  bool int64 = false;      // shaderInt64 with i64 operands
};

struct GlslKernel {
  std::string source;  // a compute shader; #includes common.glsl, math.glsl
  bool rows = false;   // one workgroup per row (else per 256 elements)
  uint64_t workgroups = 0;  // 0: nothing to run (an empty domain)
  int num_operands = 0;     // inputs, then outputs, in the address table
};

// The shader for `kernel` on `target`; false with *error (what the kernel
// needs that the target lacks, or what the generator does not handle).
bool GenerateGlsl(const sy_fused_kernel_t& kernel, const GlslTarget& target, GlslKernel* out,
                  std::string* error);

}  // namespace sy::vulkan::fusion

#endif  // SWITCHYARD_PLUGINS_VULKAN_FUSED_GLSL_CODEGEN_H_
