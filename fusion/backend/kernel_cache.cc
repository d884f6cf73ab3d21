#include "fusion/backend/kernel_cache.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/log.h"
#include "dispatcher/memory/call_workspace.h"
#include "fusion/ir/serialize.h"

namespace sy::fusion {
namespace {

double MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

CompiledKernel::CompiledKernel(const FusionBackend& backend, core::Device& device,
                               void* handle, std::string name, int32_t config)
    : ext_(backend.ext),
      plugin_(backend.plugin),
      plugin_name_(backend.plugin_name),
      device_(device),
      handle_(handle),
      name_(std::move(name)),
      config_(config) {
  if (plugin_ != nullptr) plugin_->RetainObject();
}

CompiledKernel::~CompiledKernel() {
  sy_fused_release_args_t args{};
  args.struct_size = sizeof(args);
  args.handle = handle_;
  ext_->release_fused(ext_->self, &args);
  if (plugin_ != nullptr) plugin_->ReleaseObject();
}

absl::Status CompiledKernel::Launch(absl::Span<const sy_tensor_view_t> inputs,
                                    absl::Span<const sy_tensor_view_t> outputs) const {
  sy_call_context_t host_call(device_);
  sy_fused_launch_args_t args{};
  args.struct_size = sizeof(args);
  args.handle = handle_;
  args.stream = device_.stream();
  args.inputs = inputs.data();
  args.outputs = outputs.data();
  args.num_inputs = static_cast<int32_t>(inputs.size());
  args.num_outputs = static_cast<int32_t>(outputs.size());
  args.host_call = &host_call;
  sy_error_t* error = ext_->launch_fused(ext_->self, &args);
  if (error == nullptr) return absl::OkStatus();  // the message only on failure: no string per launch
  return core::TakeError(error, absl::StrCat("fused kernel '", name_, "' on ", device_.label(),
                                             " (plugin '", plugin_name_, "')"));
}

const char* KernelOriginName(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::kCompiled: return "compiled";
    case KernelOrigin::kMemory: return "memory cache";
    case KernelOrigin::kDisk: return "disk cache";
  }
  return "?";
}

std::string KernelCache::Key(const FusionBackend& backend, const core::Device& device,
                             const std::string& serialized_ir, int32_t config) {
  const core::DeviceProperties& p = device.properties();
  // Configuration 0 adds nothing, so the entries written before launch
  // configurations existed stay valid.
  const std::string config_text =
      config == 0 ? std::string() : absl::StrCat("launch configuration ", config, "\n");
  return Sha256Hex(absl::StrCat(
      "switchyard fused kernel 1\n", backend.plugin_name, "\n", backend.plugin_version,
      "\n", backend.compiler, "\n", device.type().name(), "\n", p.name, "\n", p.vendor,
      "\n", p.driver_version, "\n", config_text, serialized_ir));
}

absl::StatusOr<std::shared_ptr<CompiledKernel>> KernelCache::Get(
    const FusionBackend& backend, core::Device& device, const FusedKernel& ir,
    int32_t config, KernelOrigin* origin, double* millis) {
  const auto start = std::chrono::steady_clock::now();
  const std::string bytes = Serialize(ir);
  const std::string key = Key(backend, device, bytes, config);
  // A compiled kernel belongs to the device it was compiled or loaded for
  // (a CUDA module lives in that device's context): the memory cache keys
  // by the device too, so a second identical GPU compiles or loads its own
  // (it launched device 0's module, an illegal address on both GPUs). The
  // disk cache's bytes serve every device of the same kind.
  const std::string memory_key = absl::StrCat(key, "@", device.label());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = memory_.find(memory_key); it != memory_.end()) {
      ++stats_.memory_hits;
      *origin = KernelOrigin::kMemory;
      *millis = MillisSince(start);
      return it->second;
    }
  }
  const sy_fused_kernel_t abi = ir.Abi();
  const std::string where = absl::StrCat(
      "fused kernel '", ir.name, "' on ", device.label(), " (plugin '", backend.plugin_name,
      "'", config == 0 ? std::string() : absl::StrCat(", launch configuration ", config), ")");
  std::shared_ptr<CompiledKernel> kernel;
  if (backend.ext->load_fused != nullptr && disk_.enabled()) {
    if (std::optional<std::string> binary = disk_.Read(key, bytes)) {
      sy_fused_load_args_t args{};
      args.struct_size = sizeof(args);
      args.kernel = &abi;
      args.device = device.index();
      args.binary = binary->data();
      args.binary_size = binary->size();
      args.config = config;
      absl::Status status = core::TakeError(
          backend.ext->load_fused(backend.ext->self, &args), absl::StrCat("loading ", where));
      if (status.ok()) {
        kernel = std::make_shared<CompiledKernel>(backend, device, args.out_handle, ir.name,
                                                  config);
        *origin = KernelOrigin::kDisk;
      } else {
        core::Log(core::LogLevel::kWarning,
                  absl::StrCat("fusion cache: ", status.message(), "; compiling it again"));
      }
    }
  }
  if (kernel == nullptr) {
    const auto compile_start = std::chrono::steady_clock::now();
    sy_fused_compile_args_t args{};
    args.struct_size = sizeof(args);
    args.kernel = &abi;
    args.device = device.index();
    args.config = config;
    absl::Status status = core::TakeError(
        backend.ext->compile_fused(backend.ext->self, &args), absl::StrCat("compiling ", where));
    if (!status.ok()) return status;
    kernel = std::make_shared<CompiledKernel>(backend, device, args.out_handle, ir.name,
                                              config);
    *origin = KernelOrigin::kCompiled;
    const double compile_ms = MillisSince(compile_start);
    bool wrote = false;
    if (args.out_binary != nullptr && args.out_binary_size > 0 &&
        backend.ext->load_fused != nullptr && disk_.enabled()) {
      absl::Status written = disk_.Write(
          key, bytes,
          absl::string_view(static_cast<const char*>(args.out_binary), args.out_binary_size));
      if (written.ok()) {
        wrote = true;
      } else {
        core::Log(core::LogLevel::kWarning, written.message());
      }
    }
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.compiled;
    stats_.compile_ms += compile_ms;
    stats_.disk_writes += wrote ? 1 : 0;
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    ++stats_.disk_hits;
    stats_.load_ms += MillisSince(start);
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = memory_.emplace(memory_key, kernel);
  *millis = MillisSince(start);
  return it->second;
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void KernelCache::ClearMemory() {
  std::lock_guard<std::mutex> lock(mu_);
  memory_.clear();
}

}  // namespace sy::fusion
