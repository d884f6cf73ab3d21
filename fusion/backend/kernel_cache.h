// Compiled fused kernels: the plugin's handles (CompiledKernel) and the
// cache that makes each at most once per process — in memory by key, and
// across processes on disk (disk_cache.h) when the plugin hands back bytes
// it can load again (sy_fusion_extension_t.load_fused).
//
// The key is a SHA-256 of the serialized IR, the device's fingerprint (its
// type, name, vendor and driver), the plugin's name and version and its
// compiler's name and version, and the launch configuration (Note [Launch
// configurations], plugin/fusion.h; configuration 0 keys as before
// configurations existed): anything that could change the code. In
// memory the entry is per device as well (a handle is bound to the device
// it was compiled or loaded for); on disk one entry serves every device of
// the same fingerprint.
//
// Lifetime: a CompiledKernel holds its plugin (PluginInstance::RetainObject),
// so the plugin cannot be unloaded under it; the cache and every compiled
// graph that uses a kernel share it. Destroy them before the runtime.
// Thread-safety: KernelCache::Get may be called from any thread; two
// threads asking for one new kernel may both compile it (one result wins).
#ifndef SWITCHYARD_FUSION_BACKEND_KERNEL_CACHE_H_
#define SWITCHYARD_FUSION_BACKEND_KERNEL_CACHE_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "dispatcher/memory/device.h"
#include "fusion/backend/backends.h"
#include "fusion/backend/disk_cache.h"
#include "fusion/ir/fused_ir.h"

namespace sy::fusion {

class CompiledKernel {
 public:
  CompiledKernel(const FusionBackend& backend, core::Device& device, void* handle,
                 std::string name, int32_t config);
  ~CompiledKernel();  // release_fused
  CompiledKernel(const CompiledKernel&) = delete;
  CompiledKernel& operator=(const CompiledKernel&) = delete;

  // Enqueues one run on the device's stream; views as launch_fused takes.
  absl::Status Launch(absl::Span<const sy_tensor_view_t> inputs,
                      absl::Span<const sy_tensor_view_t> outputs) const;

  const std::string& name() const { return name_; }
  // The plugin that compiled it ("cpu", "cuda").
  const std::string& plugin() const { return plugin_name_; }
  core::Device& device() const { return device_; }
  // The launch configuration it was compiled for (0: the plugin's default).
  int32_t config() const { return config_; }

 private:
  const sy_fusion_extension_t* ext_;
  core::PluginInstance* plugin_;
  std::string plugin_name_;
  core::Device& device_;
  void* handle_;
  std::string name_;
  int32_t config_;
};

// Where Get found a kernel.
enum class KernelOrigin { kCompiled, kMemory, kDisk };
const char* KernelOriginName(KernelOrigin origin);  // "compiled", …

struct KernelCacheStats {
  int compiled = 0;
  int memory_hits = 0;
  int disk_hits = 0;
  int disk_writes = 0;
  double compile_ms = 0;  // time in compile_fused
  double load_ms = 0;     // time reading entries and in load_fused
};

class KernelCache {
 public:
  explicit KernelCache(std::string disk_dir) : disk_(std::move(disk_dir)) {}

  // The kernel for `ir` on `device` through `backend`, in launch
  // configuration `config` (passed to compile_fused and load_fused; the
  // caller checked it against the plugin's count); *origin says where it
  // came from, *millis how long it took. A compile error comes back as is
  // (the caller runs the group unfused).
  absl::StatusOr<std::shared_ptr<CompiledKernel>> Get(const FusionBackend& backend,
                                                      core::Device& device,
                                                      const FusedKernel& ir,
                                                      int32_t config,
                                                      KernelOrigin* origin,
                                                      double* millis);

  // The cache key (64 hex digits) of `ir` on `device` through `backend` in
  // launch configuration `config`.
  static std::string Key(const FusionBackend& backend, const core::Device& device,
                         const std::string& serialized_ir, int32_t config = 0);

  KernelCacheStats stats() const;
  const DiskCache& disk() const { return disk_; }
  // Drops the in-memory entries (tests: to see the disk cache work).
  void ClearMemory();

 private:
  DiskCache disk_;
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<CompiledKernel>> memory_;
  KernelCacheStats stats_;
};

}  // namespace sy::fusion

#endif  // SWITCHYARD_FUSION_BACKEND_KERNEL_CACHE_H_
