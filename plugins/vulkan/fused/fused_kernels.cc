#include "fused/fused_kernels.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fused/glsl_codegen.h"
#include "fused/spirv_compiler.h"
#include "kernels/elementwise.h"
#include "kernels/kernel_util.h"
#include "switchyard/plugin.hpp"
#include "vk_context.h"
#include "vk_device_api.h"

namespace sy::vulkan::fusion {
namespace {

using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

struct Compiled {
  Context* ctx = nullptr;
  GlslKernel gen;
  std::vector<uint32_t> spirv;
  VkShaderModule module = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  int num_inputs = 0, num_outputs = 0;
  std::string name;

  ~Compiled() {
    if (pipeline != VK_NULL_HANDLE) ctx->fn.vkDestroyPipeline(ctx->device, pipeline, nullptr);
    if (module != VK_NULL_HANDLE) ctx->fn.vkDestroyShaderModule(ctx->device, module, nullptr);
  }
};

// The generated shader for `kernel` on `device`, for compile and load
// alike (load needs the launch shape, not the source).
sy_error_t* Prepare(std::string_view hook, const sy_fused_kernel_t* kernel, int device,
                    Compiled& c) {
  if (kernel == nullptr) {
    return MakeError(SY_STATUS_INVALID_ARGUMENT, StrCat("vulkan plugin: ", hook, ": no kernel given"));
  }
  const Probe& probe = ProbeVulkan();
  if (device < 0 || device >= static_cast<int>(probe.devices.size())) {
    return MakeError(SY_STATUS_INVALID_ARGUMENT,
                     StrCat("vulkan plugin: ", hook, ": no device vulkan:", device, " (",
                            probe.devices.size(), " Vulkan device(s))"));
  }
  c.ctx = probe.devices[device].get();
  c.name = kernel->name != nullptr ? kernel->name : "fused";
  c.num_inputs = kernel->num_inputs;
  c.num_outputs = kernel->num_outputs;
  GlslTarget target;
  target.float64 = c.ctx->caps.float64;
  target.storage16 = c.ctx->caps.storage16;
  target.storage8 = c.ctx->caps.storage8;
  target.int64 = c.ctx->caps.int64;
  std::string error;
  if (!GenerateGlsl(*kernel, target, &c.gen, &error)) {
    return MakeError(SY_STATUS_UNIMPLEMENTED, StrCat("vulkan plugin: ", hook, ": kernel '", c.name,
                                                     "' on ", c.ctx->label, ": ", error));
  }
  return nullptr;
}

sy_error_t* MakePipeline(std::string_view hook, Compiled& c) {
  const Context& ctx = *c.ctx;
  // The device's denormal modes are added to the module, not to c.spirv:
  // the binary the host caches stays the same for every device.
  std::string why;
  if (!ctx.CreateShaderModule(c.spirv, c.name, &c.module, &why)) {
    return DeviceError(hook, why);
  }
  VkComputePipelineCreateInfo pipe{};
  pipe.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipe.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipe.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipe.stage.module = c.module;
  pipe.stage.pName = "main";
  pipe.layout = ctx.layout;  // push constants only, like every plugin kernel
  pipe.flags = PipelineStatsFlags(ctx.pipeline_stats);
  const VkResult r = ctx.fn.vkCreateComputePipelines(ctx.device, VK_NULL_HANDLE, 1, &pipe, nullptr, &c.pipeline);
  if (r != VK_SUCCESS) {
    c.pipeline = VK_NULL_HANDLE;
    return DeviceError(hook, VkFailure(StrCat("vkCreateComputePipelines(", c.name, ")"), ctx, r));
  }
  LogPipelineStats(ctx.pipeline_stats, ctx.device, c.pipeline, ctx.label, c.name);
  return nullptr;
}

}  // namespace

sy_error_t* CompileFused(void*, sy_fused_compile_args_t* args) {
  return plugin::Guard("vulkan plugin: compile_fused", [&]() -> sy_error_t* {
    auto c = std::make_unique<Compiled>();
    SY_PLUGIN_RETURN_IF_ERROR(Prepare("compile_fused", args->kernel, args->device, *c));
    std::string error;
    if (!CompileGlsl(c->gen.source, c->name, &c->spirv, &error)) {
      return MakeError(SY_STATUS_INTERNAL, StrCat("vulkan plugin: compile_fused: ", error));
    }
    SY_PLUGIN_RETURN_IF_ERROR(MakePipeline("compile_fused", *c));
    args->out_binary = c->spirv.data();
    args->out_binary_size = c->spirv.size() * sizeof(uint32_t);
    args->out_handle = c.release();
    return nullptr;
  });
}

sy_error_t* LoadFused(void*, sy_fused_load_args_t* args) {
  return plugin::Guard("vulkan plugin: load_fused", [&]() -> sy_error_t* {
    auto c = std::make_unique<Compiled>();
    SY_PLUGIN_RETURN_IF_ERROR(Prepare("load_fused", args->kernel, args->device, *c));
    constexpr uint32_t kSpirvMagic = 0x07230203;
    uint32_t magic = 0;
    if (args->binary == nullptr || args->binary_size < 20 || args->binary_size % 4 != 0 ||
        (std::memcpy(&magic, args->binary, 4), magic != kSpirvMagic)) {
      return MakeError(SY_STATUS_INVALID_ARGUMENT,
                       StrCat("vulkan plugin: load_fused: the ", args->binary_size,
                              " bytes given for kernel '", c->name,
                              "' are not SPIR-V; compile the kernel instead"));
    }
    c->spirv.resize(args->binary_size / 4);
    std::memcpy(c->spirv.data(), args->binary, args->binary_size);
    SY_PLUGIN_RETURN_IF_ERROR(MakePipeline("load_fused", *c));
    args->out_handle = c.release();
    return nullptr;
  });
}

sy_error_t* LaunchFused(void*, const sy_fused_launch_args_t* args) {
  return plugin::Guard("vulkan plugin: launch_fused", [&]() -> sy_error_t* {
    constexpr std::string_view kOp = "launch_fused";
    if (args->handle == nullptr) return OpError(kOp, "no compiled kernel given");
    const Compiled& c = *static_cast<const Compiled*>(args->handle);
    Stream* stream = FindStream(args->stream);
    if (stream == nullptr) {
      return OpError(kOp, "the stream is not a live vulkan stream; pass a stream of the "
                          "kernel's device");
    }
    if (&stream->ctx() != c.ctx) {
      return OpError(kOp, StrCat("kernel '", c.name, "' was compiled for ", c.ctx->label,
                                 ", the stream is on ", stream->ctx().label));
    }
    if (args->num_inputs != c.num_inputs || args->num_outputs != c.num_outputs ||
        (c.num_inputs > 0 && args->inputs == nullptr) ||
        (c.num_outputs > 0 && args->outputs == nullptr)) {
      return OpError(kOp, StrCat("kernel '", c.name, "' takes ", c.num_inputs, " inputs and ",
                                 c.num_outputs, " outputs"));
    }
    if (c.gen.workgroups == 0) return nullptr;  // an empty domain
    std::vector<uint64_t> table;
    table.reserve(c.gen.num_operands);
    for (int i = 0; i < c.num_inputs; ++i) table.push_back(Address(args->inputs[i]));
    for (int i = 0; i < c.num_outputs; ++i) table.push_back(Address(args->outputs[i]));
    uint32_t gx = 0, gy = 0;
    if (!Groups(*c.ctx, c.gen.workgroups, &gx, &gy)) {
      return OpError(kOp, StrCat("kernel '", c.name, "' needs ", c.gen.workgroups,
                                 " workgroups, more than one dispatch holds; split the tensor"));
    }
    std::string why;
    auto lock = stream->Lock();
    const uint64_t push = stream->UploadParams(table.data(), table.size() * sizeof(uint64_t), &why);
    if (push == 0) return DeviceError(kOp, why);
    if (!stream->Dispatch(c.pipeline, std::as_bytes(std::span(&push, 1)), gx, gy, &why)) {
      return DeviceError(kOp, why);
    }
    return nullptr;
  });
}

void ReleaseFused(void*, const sy_fused_release_args_t* args) {
  auto* c = static_cast<Compiled*>(args->handle);
  if (c == nullptr) return;
  // Launches of it may still be queued (plugin.h: the plugin keeps what
  // enqueued work needs): drain the device before destroying the pipeline.
  // Kernels are released when graphs or compilers go, not per call.
  c->ctx->Drain();
  delete c;
}

}  // namespace sy::vulkan::fusion
