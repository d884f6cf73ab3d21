#include "fused/fused_kernels.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cuda_device.h"
#include "cuda_util.h"
#include "fused/cuda_codegen.h"
#include "fused/nvrtc_compiler.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda::fusion {
namespace {

using ::sy::plugin::MakeError;
using ::sy::plugin::StrCat;

struct Compiled {
  GeneratedKernel gen;
  int device = 0;
  cudaLibrary_t library = nullptr;
  cudaKernel_t vector = nullptr;
  cudaKernel_t scalar = nullptr;
  std::string cubin;
  int num_inputs = 0, num_outputs = 0;
  std::string name;
};

struct DeviceInfo {
  int arch = 0;  // major * 10 + minor
  int sm_count = 0;
  int max_shared = 0;  // opt-in dynamic shared memory per block, bytes
};

sy_error_t* Info(int device, DeviceInfo* out) {
  int major = 0, minor = 0, sms = 0;
  cudaError_t e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  int shared = 0;
  if (e == cudaSuccess) {
    e = cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  }
  if (e != cudaSuccess) {
    return CudaError(e, "cuda plugin: compile_fused", StrCat("reading device ", device, "'s attributes failed"));
  }
  out->arch = major * 10 + minor;
  out->sm_count = sms;
  out->max_shared = shared;
  return nullptr;
}

// SWITCHYARD_CUDA_FUSED_ROWS (docs/fusion.md, "Row kernels"): the row
// kernels' shape options, read once per process (secure_getenv: ignored
// under setuid). A value that does not parse fails every compile with
// the reason, so the groups run unfused and their description says why.
struct RowEnv {
  CodegenOptions options;
  std::string text;   // as set; "" when unset
  std::string error;  // "" when it parsed
};

const RowEnv& RowOptions() {
  static const RowEnv* const env = [] {
    auto* e = new RowEnv;
#if defined(__GLIBC__)
    const char* v = secure_getenv("SWITCHYARD_CUDA_FUSED_ROWS");
#else
    const char* v = std::getenv("SWITCHYARD_CUDA_FUSED_ROWS");
#endif
    if (v != nullptr && v[0] != '\0') {
      e->text = v;
      std::string why;
      if (!ParseRowOptions(e->text, &e->options, &why)) {
        e->error = StrCat("SWITCHYARD_CUDA_FUSED_ROWS: ", why, "; fix or unset it");
      }
    }
    return e;
  }();
  return *env;
}

// Loads the CUBIN and finds its entry points.
sy_error_t* Load(Compiled& c) {
  cudaError_t e = cudaSetDevice(c.device);
  if (e == cudaSuccess) {
    e = cudaLibraryLoadData(&c.library, c.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0);
  }
  if (e == cudaSuccess && !c.gen.vector.entry.empty()) {
    e = cudaLibraryGetKernel(&c.vector, c.library, c.gen.vector.entry.c_str());
  }
  if (e == cudaSuccess) e = cudaLibraryGetKernel(&c.scalar, c.library, c.gen.scalar.entry.c_str());
  // Rows kept in shared memory may take more than the 48 KiB a launch
  // gets without opting in (Note [Rows kept in shared memory]).
  for (const auto& [kernel, shape] : {std::pair{c.vector, &c.gen.vector},
                                      std::pair{c.scalar, &c.gen.scalar}}) {
    if (e != cudaSuccess || kernel == nullptr || shape->smem <= 48 * 1024) continue;
    e = cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        shape->smem, c.device);
  }
  if (e != cudaSuccess) {
    if (c.library != nullptr) cudaLibraryUnload(c.library);
    c.library = nullptr;
    return CudaError(e, "cuda plugin: fused kernel",
                     StrCat("loading the compiled kernel '", c.name, "' failed"));
  }
  // A cluster past the portable 8 blocks (Note [Row kernel shapes]) is
  // allowed per kernel, before the occupancy query below asks about it.
  for (const auto& [kernel, shape] : {std::pair{c.vector, &c.gen.vector},
                                      std::pair{c.scalar, &c.gen.scalar}}) {
    if (e != cudaSuccess || kernel == nullptr || shape->cluster <= 8) continue;
    e = cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1,
                                        c.device);
  }
  if (e != cudaSuccess) {
    if (c.library != nullptr) cudaLibraryUnload(c.library);
    c.library = nullptr;
    return CudaError(e, "cuda plugin: fused kernel",
                     StrCat("allowing the compiled kernel '", c.name, "' on device ", c.device,
                            " a cluster of more than 8 blocks failed; ask for at most "
                            "SWITCHYARD_CUDA_FUSED_ROWS=cluster=8"));
  }
  // A row kernel on a thread-block cluster must be able to run a cluster
  // at all (a GPU partition with too few SMs per GPC could not): else the
  // group runs unfused, saying why, instead of failing every launch. An
  // occupancy query that itself fails proves nothing and is ignored.
  for (const auto& [kernel, shape] : {std::pair{c.vector, &c.gen.vector},
                                      std::pair{c.scalar, &c.gen.scalar}}) {
    if (kernel == nullptr || shape->cluster <= 1) continue;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(static_cast<unsigned>(shape->cluster));
    config.blockDim = dim3(static_cast<unsigned>(shape->block));
    config.dynamicSmemBytes = static_cast<size_t>(shape->smem);
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, reinterpret_cast<const void*>(kernel),
                                       &config) != cudaSuccess) {
      cudaGetLastError();
      continue;
    }
    if (clusters == 0) {
      cudaLibraryUnload(c.library);
      c.library = nullptr;
      return MakeError(SY_STATUS_UNIMPLEMENTED,
                       StrCat("cuda plugin: fused kernel '", c.name, "': device ", c.device,
                              " cannot run a cluster of ", shape->cluster, " blocks of ",
                              shape->block, " threads (Note [Row kernel shapes]); "
                              "SWITCHYARD_CUDA_FUSED_ROWS=block=1024 or kept=256 asks for "
                              "fewer blocks"));
    }
  }
  return nullptr;
}

// The launch configurations of `kernel` on `device` (Note [Row kernel
// shapes]): the environment's options on the device's SMs and arch, and —
// unless only the default is wanted (`all` false: configuration 0 needs
// no list, and a warm start from the disk cache should not generate five
// other sources) — the alternatives LaunchConfigs finds.
sy_error_t* Configs(const sy_fused_kernel_t* kernel, int device, const char* where, bool all,
                    std::vector<LaunchConfig>* out, DeviceInfo* info) {
  if (kernel == nullptr) {
    return MakeError(SY_STATUS_INVALID_ARGUMENT, StrCat("cuda plugin: ", where, ": no kernel given"));
  }
  const RowEnv& rows = RowOptions();
  if (!rows.error.empty()) {
    return MakeError(SY_STATUS_INVALID_ARGUMENT, StrCat("cuda plugin: ", where, ": ", rows.error));
  }
  SY_PLUGIN_RETURN_IF_ERROR(Info(device, info));
  CodegenOptions options = rows.options;
  options.sm_count = info->sm_count;
  options.arch = info->arch;
  // Block reductions' static buffers take under 1 KiB of it; a cluster
  // row's partials are counted by the generator (PlanRows).
  options.row_max_shared = std::max(0, info->max_shared - 1024);
  *out = all ? LaunchConfigs(*kernel, options, /*pinned=*/!rows.text.empty())
             : std::vector<LaunchConfig>{{"default", options}};
  return nullptr;
}

// Everything but NVRTC: the generated source tells the entry points and
// launch shapes, for compile and load alike.
sy_error_t* Prepare(const sy_fused_kernel_t* kernel, int device, int32_t config, Compiled& c,
                    DeviceInfo* info) {
  std::vector<LaunchConfig> configs;
  SY_PLUGIN_RETURN_IF_ERROR(
      Configs(kernel, device, "compile_fused", /*all=*/config != 0, &configs, info));
  if (config < 0 || config >= static_cast<int32_t>(configs.size())) {
    return MakeError(SY_STATUS_INVALID_ARGUMENT,
                     StrCat("cuda plugin: compile_fused: kernel '",
                            kernel->name != nullptr ? kernel->name : "fused", "' on device ",
                            device, " has launch configurations 0 .. ", configs.size() - 1,
                            "; got ", config));
  }
  std::string error;
  if (!GenerateCuda(*kernel, configs[config].options, &c.gen, &error)) {
    return MakeError(SY_STATUS_UNIMPLEMENTED, StrCat("cuda plugin: compile_fused: ", error));
  }
  c.device = device;
  c.num_inputs = kernel->num_inputs;
  c.num_outputs = kernel->num_outputs;
  c.name = kernel->name != nullptr ? kernel->name : "fused";
  return nullptr;
}

}  // namespace

const char* CompilerName() {
  static const std::string name = [] {
    std::string why;
    const NvrtcCompiler* nvrtc = NvrtcCompiler::Get(&why);
    // Kernels shaped by SWITCHYARD_CUDA_FUSED_ROWS get disk-cache keys of
    // their own.
    const RowEnv& rows = RowOptions();
    const std::string shaped = rows.text.empty() ? "" : StrCat(" rows ", rows.text);
    return nvrtc == nullptr ? std::string("nvrtc (absent)")
                            : StrCat("nvrtc ", nvrtc->major, ".", nvrtc->minor, " codegen 16",
                                     shaped);
  }();
  return name.c_str();
}

sy_error_t* CompileFused(void*, sy_fused_compile_args_t* args) {
  return plugin::Guard("cuda plugin: compile_fused", [&]() -> sy_error_t* {
    std::string why;
    const NvrtcCompiler* nvrtc = NvrtcCompiler::Get(&why);
    if (nvrtc == nullptr) {
      return MakeError(SY_STATUS_UNAVAILABLE, StrCat("cuda plugin: compile_fused: ", why));
    }
    auto c = std::make_unique<Compiled>();
    DeviceInfo info;
    const int32_t config = SY_STRUCT_HAS(args, sy_fused_compile_args_t, config) ? args->config : 0;
    SY_PLUGIN_RETURN_IF_ERROR(Prepare(args->kernel, args->device, config, *c, &info));
    std::string error;
    if (!nvrtc->Compile(c->gen.source, info.arch, c->name, &c->cubin, &error)) {
      return MakeError(SY_STATUS_INTERNAL, StrCat("cuda plugin: compile_fused: ", error));
    }
    SY_PLUGIN_RETURN_IF_ERROR(Load(*c));
    args->out_binary = c->cubin.data();
    args->out_binary_size = c->cubin.size();
    args->out_handle = c.release();
    return nullptr;
  });
}

sy_error_t* LoadFused(void*, sy_fused_load_args_t* args) {
  return plugin::Guard("cuda plugin: load_fused", [&]() -> sy_error_t* {
    auto c = std::make_unique<Compiled>();
    DeviceInfo info;
    const int32_t config = SY_STRUCT_HAS(args, sy_fused_load_args_t, config) ? args->config : 0;
    SY_PLUGIN_RETURN_IF_ERROR(Prepare(args->kernel, args->device, config, *c, &info));
    c->cubin.assign(static_cast<const char*>(args->binary), args->binary_size);
    SY_PLUGIN_RETURN_IF_ERROR(Load(*c));
    args->out_handle = c.release();
    return nullptr;
  });
}

sy_error_t* FusedConfigs(void*, sy_fused_configs_args_t* args) {
  return plugin::Guard("cuda plugin: fused_configs", [&]() -> sy_error_t* {
    std::vector<LaunchConfig> configs;
    DeviceInfo info;
    SY_PLUGIN_RETURN_IF_ERROR(
        Configs(args->kernel, args->device, "fused_configs", /*all=*/true, &configs, &info));
    // The names live until this thread's next call (fusion.h).
    thread_local std::vector<std::string> names;
    thread_local std::vector<const char*> pointers;
    names.clear();
    pointers.clear();
    for (const LaunchConfig& config : configs) names.push_back(config.name);
    for (const std::string& name : names) pointers.push_back(name.c_str());
    args->out_num_configs = static_cast<int32_t>(pointers.size());
    args->out_names = pointers.data();
    return nullptr;
  });
}

sy_error_t* LaunchFused(void*, const sy_fused_launch_args_t* args) {
  return plugin::Guard("cuda plugin: launch_fused", [&]() -> sy_error_t* {
    const Compiled& c = *static_cast<const Compiled*>(args->handle);
    // As the kernel path (gpu::BeginCall): the host passes a stream it made
    // through this plugin's table, so a replay takes no lock to look it up.
    Stream* stream = FromHandle(args->stream);
    if (stream == nullptr) {
      return MakeError(SY_STATUS_INVALID_ARGUMENT,
                       "cuda plugin: launch_fused: no stream; pass a stream of the cuda device");
    }
    if (args->num_inputs != c.num_inputs || args->num_outputs != c.num_outputs) {
      return MakeError(SY_STATUS_INVALID_ARGUMENT,
                       StrCat("cuda plugin: launch_fused: kernel '", c.name, "' takes ",
                              c.num_inputs, " inputs and ", c.num_outputs, " outputs"));
    }
    const int count = c.num_inputs + c.num_outputs;
    // Operand pointers and the kernel's parameters (their addresses): on
    // the stack up to 64 operands, so a launch allocates nothing.
    void* pointers[64];
    void* addresses[64];
    std::unique_ptr<void*[]> heap;
    void** ptrs = pointers;
    void** params = addresses;
    if (count > 64) {
      heap.reset(new void*[2 * count]);
      ptrs = heap.get();
      params = heap.get() + count;
    }
    for (int i = 0; i < count; ++i) {
      const sy_tensor_view_t& v = i < c.num_inputs ? args->inputs[i] : args->outputs[i - c.num_inputs];
      ptrs[i] = static_cast<char*>(v.data) + v.byte_offset;
    }
    // The vector entry needs its 16-byte operands aligned.
    bool aligned = c.vector != nullptr;
    for (int i : c.gen.aligned_operands) {
      aligned = aligned && reinterpret_cast<uintptr_t>(ptrs[i]) % 16 == 0;
    }
    const LaunchShape& shape = aligned ? c.gen.vector : c.gen.scalar;
    for (int i = 0; i < count; ++i) params[i] = &ptrs[i];
    int current = -1;
    cudaError_t e = cudaGetDevice(&current);  // no driver call when already current
    if (e == cudaSuccess && current != c.device) e = cudaSetDevice(c.device);
    if (e == cudaSuccess) {
      e = cudaLaunchKernel(reinterpret_cast<const void*>(aligned ? c.vector : c.scalar),
                           dim3(static_cast<unsigned>(shape.grid)), dim3(shape.block),
                           params, shape.smem, stream->stream);
    }
    if (e != cudaSuccess) {
      return CudaError(e, "cuda plugin: launch_fused",
                       StrCat("launching fused kernel '", c.name, "' failed"));
    }
    return nullptr;
  });
}

void ReleaseFused(void*, const sy_fused_release_args_t* args) {
  auto* c = static_cast<Compiled*>(args->handle);
  if (c == nullptr) return;
  // Launches of it may still be queued (plugin.h: the plugin keeps what
  // enqueued work needs): wait for the device before unloading the code.
  // Kernels are released when graphs or compilers go, not per call.
  if (c->library != nullptr) {
    cudaSetDevice(c->device);
    cudaDeviceSynchronize();
    cudaLibraryUnload(c->library);
  }
  delete c;
}

}  // namespace sy::cuda::fusion
