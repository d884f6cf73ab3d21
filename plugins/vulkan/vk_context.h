// One Vulkan device as the plugin uses it, and the process-wide probe that
// finds them.
//
// AcquireVulkan (from sy_plugin_init) opens the loader (vk_loader.h), creates an
// instance and keeps every physical device with a compute queue that
// speaks Vulkan 1.2 with bufferDeviceAddress and timelineSemaphore — the
// two features the plugin's design rests on (Note [Vulkan memory handles],
// vk_stream.h). Each kept device gets a Context: its VkDevice, one compute
// queue, what it can do (Caps), its memory (vk_memory.h) and its compute
// pipelines, created on first use and cached. With no loader, no driver or
// no usable device the probe has zero devices and a reason that starts
// with "no Vulkan device: ".
//
// Thread-safety: a Context is immutable after the probe except for the
// members that say how they are guarded.
#ifndef SWITCHYARD_PLUGINS_VULKAN_VK_CONTEXT_H_
#define SWITCHYARD_PLUGINS_VULKAN_VK_CONTEXT_H_

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "pipeline_stats.h"
#include "spirv_denorm.h"
#include "vk_loader.h"
#include "vk_memory.h"

namespace sy::vulkan {

class Stream;
struct ShaderCode;  // kernels/shaders.h

// DLPack's kDLVulkan.
inline constexpr int32_t kDlpackVulkan = 7;

// Bytes of push constants every pipeline of the plugin declares (the
// minimum Vulkan guarantees).
inline constexpr uint32_t kPushConstantBytes = 128;

// What a device can do, as far as the kernels care.
struct Caps {
  bool storage16 = false;  // storageBuffer16BitAccess: f16 tensors
  bool float16 = false;    // shaderFloat16: f16 arithmetic (matmul)
  bool storage8 = false;   // storageBuffer8BitAccess: bool/u8/i8 tensors
  bool int64 = false;      // shaderInt64: i64 tensors
  bool float64 = false;    // shaderFloat64: accurate transcendentals
  bool nv_cooperative_matrix = false;  // VK_NV_cooperative_matrix, f16
  // The cooperative-matrix kernel's widest tile: 256
  // (matmul_coopmat_bn256_f16 where N is a multiple of 256, else
  // matmul_coopmat_f16's 128), or 128 always with
  // SWITCHYARD_VULKAN_COOPMAT_BN=128, to compare on a GPU.
  uint32_t coopmat_bn = 128;
  uint32_t subgroup_size = 1;
  // Subgroup shuffles in compute shaders, subgroups of at least 4: the row
  // kernels reduce with them (norm_sg_*, shaders/norm.comp) unless
  // SWITCHYARD_VULKAN_SUBGROUP_REDUCE=0 asks for the shared-memory tree.
  bool subgroup_reduce = false;
  // 512-invocation workgroups (maxComputeWorkGroupSize[0] and
  // maxComputeWorkGroupInvocations ≥ 512; Vulkan guarantees 128): f32
  // softmax and log_softmax rows longer than 4096 run norm_w512_f32
  // (shaders/norm.comp, SY_WG 512). SWITCHYARD_VULKAN_WIDE_ROWS=0 turns it
  // off, to compare against the 256-wide kernel.
  bool wide_rows = false;
  uint32_t max_shared_memory = 16384;
  uint32_t max_group_count_x = 65535;
  uint32_t max_group_count_y = 65535;
  double timestamp_period_ns = 0;  // 0: the queue has no timestamps
  uint32_t timestamp_bits = 0;
  // Float controls: which widths keep denormals when a shader asks
  // (Context::CreateShaderModule does).
  DenormSupport denorm;
};

class Context {
 public:
  Context() = default;
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int32_t index = 0;         // vulkan:<index>
  std::string label;         // "vulkan:0"
  std::string name;          // "llvmpipe (LLVM 15.0.6, 256 bits) [lavapipe, CPU]"
  std::string vendor;
  std::string driver;        // driver name, version and API version
  uint64_t total_memory = 0;
  int32_t compute_units = 1;
  bool is_cpu = false;       // VK_PHYSICAL_DEVICE_TYPE_CPU (lavapipe)

  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  DeviceFns fn;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  Caps caps;
  VkPipelineLayout layout = VK_NULL_HANDLE;  // push constants only
  uint32_t host_memory_type = 0;             // staging: HOST_VISIBLE
  bool host_memory_coherent = true;
  VkDeviceSize non_coherent_atom = 64;
  // SWITCHYARD_VULKAN_PIPELINE_STATS=1 where the driver can (pipeline_stats.h).
  PipelineStats pipeline_stats;
  std::unique_ptr<DeviceMemory> memory;

  // vkQueueSubmit needs the queue externally synchronized.
  std::mutex queue_mu;

  // A shader module of `spirv` (named `name` in messages) for this device:
  // the words with the device's denormal modes added (spirv_denorm.h;
  // docs/vulkan.md, "Denormals"). The caller destroys it. On failure
  // returns false and sets *error. Thread-safe.
  bool CreateShaderModule(std::span<const uint32_t> spirv, std::string_view name,
                          VkShaderModule* module, std::string* error) const;

  // The compute pipeline of `shader` with specialization constants
  // `spec` (constant_id i = spec[i], at most kMaxSpec), created on first
  // use. On failure
  // returns VK_NULL_HANDLE and sets *error. Thread-safe.
  VkPipeline Pipeline(const ShaderCode& shader, std::span<const uint32_t> spec,
                      std::string* error);

  // Live streams, so that memory can be drained before a block goes back.
  void AddStream(Stream* stream);
  void RemoveStream(Stream* stream);
  // Submits and waits for every stream's work. Thread-safe.
  void Drain();

 private:
  // A pipeline's key: the shader and up to kMaxSpec specialization
  // constants, compared without allocating (this lookup is on every
  // dispatch).
  static constexpr size_t kMaxSpec = 4;
  struct PipelineKey {
    const ShaderCode* shader = nullptr;
    uint32_t count = 0;
    std::array<uint32_t, kMaxSpec> spec{};
    bool operator<(const PipelineKey& o) const {
      return std::tie(shader, count, spec) < std::tie(o.shader, o.count, o.spec);
    }
  };
  std::mutex pipelines_mu_;
  std::map<const ShaderCode*, VkShaderModule> modules_;
  std::map<PipelineKey, VkPipeline> pipelines_;
  std::mutex streams_mu_;
  std::unordered_set<Stream*> streams_;
};

struct Probe {
  std::vector<std::unique_ptr<Context>> devices;
  std::string reason;   // "no Vulkan device: …" when devices is empty
  std::string summary;  // one line per device, for the load log
  std::vector<std::string> skipped;  // devices left out, and why
  std::vector<std::string> notes;    // what a kept device does differently
};

// Probes (instance, devices) unless a probe is alive, and counts a user:
// sy_plugin_init calls it. Thread-safe. Note [Probe lifetime].
const Probe& AcquireVulkan();
// The live probe; valid between AcquireVulkan and the matching
// ReleaseVulkan (so during every call the host makes into the plugin).
const Probe& ProbeVulkan();
// Drops a user; the last one destroys every device and the instance
// (plugin unload). Thread-safe.
void ReleaseVulkan();

// A message "<what> on <label> failed (<VkResult>)".
std::string VkFailure(std::string_view what, const Context& ctx, VkResult r);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_VK_CONTEXT_H_
