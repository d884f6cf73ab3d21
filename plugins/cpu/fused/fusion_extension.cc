#include "fused/fusion_extension.h"

#include <memory>
#include <string>

#include "fused/fused_program.h"
#if defined(SY_CPU_HAVE_GLOO)
#include "collectives/gloo_comm.h"
#endif
#include "kernels/kernel_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {
namespace {

using fusion::Program;

sy_error_t* CompileFused(void*, sy_fused_compile_args_t* args) {
  return plugin::Guard("cpu plugin: compile_fused", [&]() -> sy_error_t* {
    if (args == nullptr || args->kernel == nullptr) {
      return plugin::MakeError(SY_STATUS_INVALID_ARGUMENT,
                               "cpu plugin: compile_fused: no kernel given");
    }
    std::string error;
    std::unique_ptr<Program> program = fusion::CompileProgram(*args->kernel, &error);
    if (program == nullptr) {
      return plugin::MakeError(SY_STATUS_UNIMPLEMENTED,
                               plugin::StrCat("cpu plugin: compile_fused: ", error));
    }
    args->out_handle = program.release();
    args->out_binary = nullptr;
    args->out_binary_size = 0;
    return nullptr;
  });
}

sy_error_t* LaunchFused(void*, const sy_fused_launch_args_t* args) {
  return plugin::Guard("cpu plugin: launch_fused", [&]() -> sy_error_t* {
    if (args == nullptr || args->handle == nullptr) {
      return plugin::MakeError(SY_STATUS_INVALID_ARGUMENT,
                               "cpu plugin: launch_fused: no compiled kernel given");
    }
    const Program& program = *static_cast<const Program*>(args->handle);
    if (args->num_inputs != static_cast<int32_t>(program.inputs.size()) ||
        args->num_outputs != static_cast<int32_t>(program.outputs.size())) {
      return plugin::MakeError(
          SY_STATUS_INVALID_ARGUMENT,
          plugin::StrCat("cpu plugin: launch_fused: kernel '", program.name, "' takes ",
                         program.inputs.size(), " inputs and ", program.outputs.size(),
                         " outputs; got ", args->num_inputs, " and ", args->num_outputs));
    }
    // The cpu stream is synchronous: the work is done when this returns.
    fusion::RunProgram(program, args->inputs, args->outputs);
    return nullptr;
  });
}

void ReleaseFused(void*, const sy_fused_release_args_t* args) {
  if (args != nullptr) delete static_cast<Program*>(args->handle);
}

constexpr sy_dtype_t kDtypes[] = {SY_DTYPE_F32, SY_DTYPE_F64, SY_DTYPE_F16,
                                  SY_DTYPE_BF16, SY_DTYPE_I32, SY_DTYPE_I64,
                                  SY_DTYPE_I8,  SY_DTYPE_U8,  SY_DTYPE_BOOL};

}  // namespace

const sy_fusion_extension_t kCpuFusionExtension = {
    .base = {.struct_size = sizeof(sy_fusion_extension_t),
             .type = SY_EXTENSION_FUSION,
             .reserved = 0,
#if defined(SY_CPU_HAVE_GLOO)
             // The next hooks of the cpu device type: collectives.
             .next = &kCpuCollectivesExtension.base},
#else
             .next = nullptr},
#endif
    .device_type = "cpu",
    .compiler = "cpu tiled evaluator 1",
    .flags = SY_FUSION_FLAG_ROW_REDUCTIONS,
    .max_instrs = 0,
    .max_inputs = 0,
    .max_outputs = 0,
    .max_row_length = 0,
    .dtypes = kDtypes,
    .num_dtypes = 9,
    .reserved = 0,
    .compile_fused = CompileFused,
    .load_fused = nullptr,
    .launch_fused = LaunchFused,
    .release_fused = ReleaseFused,
    .self = nullptr,
};

}  // namespace sy::cpu
