#include "fused/fusion_extension.h"

#include <iterator>
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

// Launch configurations (Note [Launch configurations], plugin/fusion.h):
// the tile sizes of kTileConfigs, offered where the innermost dim is longer
// than the smallest tile (else every tile is the whole dim, and they are
// one configuration).
constexpr const char* kTileNames[] = {"tile 1024", "tile 512", "tile 256"};
static_assert(std::size(kTileNames) == std::size(fusion::kTileConfigs));

int32_t NumConfigs(const sy_fused_kernel_t& kernel) {
  const int64_t smallest = fusion::kTileConfigs[std::size(fusion::kTileConfigs) - 1];
  if (kernel.ndim < 1 || kernel.shape[kernel.ndim - 1] <= smallest) return 1;
  return static_cast<int32_t>(std::size(fusion::kTileConfigs));
}

sy_error_t* FusedConfigs(void*, sy_fused_configs_args_t* args) {
  return plugin::Guard("cpu plugin: fused_configs", [&]() -> sy_error_t* {
    if (args == nullptr || args->kernel == nullptr) {
      return plugin::MakeError(SY_STATUS_INVALID_ARGUMENT,
                               "cpu plugin: fused_configs: no kernel given");
    }
    args->out_num_configs = NumConfigs(*args->kernel);
    args->out_names = kTileNames;
    return nullptr;
  });
}

sy_error_t* CompileFused(void*, sy_fused_compile_args_t* args) {
  return plugin::Guard("cpu plugin: compile_fused", [&]() -> sy_error_t* {
    if (args == nullptr || args->kernel == nullptr) {
      return plugin::MakeError(SY_STATUS_INVALID_ARGUMENT,
                               "cpu plugin: compile_fused: no kernel given");
    }
    const int32_t config = SY_STRUCT_HAS(args, sy_fused_compile_args_t, config) ? args->config : 0;
    const int32_t configs = NumConfigs(*args->kernel);
    if (config < 0 || config >= configs) {
      return plugin::MakeError(
          SY_STATUS_INVALID_ARGUMENT,
          plugin::StrCat("cpu plugin: compile_fused: kernel '",
                         args->kernel->name != nullptr ? args->kernel->name : "fused",
                         "' has launch configurations 0 .. ", configs - 1, "; got ", config));
    }
    std::string error;
    std::unique_ptr<Program> program = fusion::CompileProgram(*args->kernel, &error);
    if (program == nullptr) {
      return plugin::MakeError(SY_STATUS_UNIMPLEMENTED,
                               plugin::StrCat("cpu plugin: compile_fused: ", error));
    }
    program->tile = fusion::kTileConfigs[config];
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
    .fused_configs = FusedConfigs,
};

}  // namespace sy::cpu
