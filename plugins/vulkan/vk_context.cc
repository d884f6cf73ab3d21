#include "vk_context.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "kernels/shaders.h"
#include "pipeline_stats.h"
#include "spirv_denorm.h"
#include "switchyard/plugin.hpp"
#include "vk_stream.h"

namespace sy::vulkan {

using ::sy::plugin::StrCat;

std::string VkFailure(std::string_view what, const Context& ctx, VkResult r) {
  return StrCat(what, " on ", ctx.label, " failed (", ResultName(r), ")");
}

namespace {

struct Process {
  Loader loader;
  VkInstance instance = VK_NULL_HANDLE;
  InstanceFns ifn;
  Probe probe;
};

Process& State() {
  static Process* process = new Process;  // its probe: AcquireVulkan/ReleaseVulkan
  return *process;
}

std::string VersionString(uint32_t v) {
  return StrCat(VK_API_VERSION_MAJOR(v), ".", VK_API_VERSION_MINOR(v), ".",
                VK_API_VERSION_PATCH(v));
}

bool HasExtension(const InstanceFns& ifn, VkPhysicalDevice physical,
                  const char* name) {
  uint32_t count = 0;
  ifn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> all(count);
  ifn.vkEnumerateDeviceExtensionProperties(physical, nullptr, &count,
                                           all.data());
  for (const auto& e : all) {
    if (std::strcmp(e.extensionName, name) == 0) return true;
  }
  return false;
}

// An environment variable; secure_getenv where there is one (a setuid
// process ignores the caller's settings).
const char* Env(const char* name) {
#if defined(__GLIBC__)
  return secure_getenv(name);
#else
  return std::getenv(name);
#endif
}

// Whether f32 softmax rows may take 512-wide workgroups (Caps::wide_rows).
bool HasWideRows(const VkPhysicalDeviceLimits& limits) {
  const char* env = Env("SWITCHYARD_VULKAN_WIDE_ROWS");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  return limits.maxComputeWorkGroupSize[0] >= 512 &&
         limits.maxComputeWorkGroupInvocations >= 512;
}

// Whether the row kernels reduce within subgroups (shuffles) before the
// workgroup: compute stage, basic and shuffle operations, subgroups of at
// least 4 (so at most SY_WG / 4 of them). On by default where the device
// has them — NVIDIA, AMD, Intel and lavapipe do — since on the H200 they
// took f32 softmax at 8192² from 0.69–0.73 to about 0.80 (0.75–0.84) of
// the CUDA plugin (docs/vulkan.md, "Ten barriers per reduction");
// SWITCHYARD_VULKAN_SUBGROUP_REDUCE=0 keeps the shared-memory tree.
bool HasSubgroupReduce(const VkPhysicalDeviceVulkan11Properties& p) {
  const char* env = Env("SWITCHYARD_VULKAN_SUBGROUP_REDUCE");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  constexpr VkSubgroupFeatureFlags kNeed =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
  return (p.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
         (p.subgroupSupportedOperations & kNeed) == kNeed && p.subgroupSize >= 4;
}

// Whether VK_NV_cooperative_matrix offers what shaders/matmul_coopmat.comp
// uses: 16×16×16, f16·f16 + f32, subgroup scope, on 32-wide subgroups.
// SWITCHYARD_VULKAN_COOPMAT=0 turns the path off (to compare against the
// tiled kernel).
bool HasCoopmatShape(VkPhysicalDevice physical) {
  const char* env = Env("SWITCHYARD_VULKAN_COOPMAT");
  if (env != nullptr && std::strcmp(env, "0") == 0) return false;
  auto query = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      State().loader.vkGetInstanceProcAddr(
          State().instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  if (query == nullptr) return false;
  uint32_t count = 0;
  query(physical, &count, nullptr);
  std::vector<VkCooperativeMatrixPropertiesNV> all(
      count, {VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV});
  query(physical, &count, all.data());
  for (const auto& p : all) {
    if (p.MSize == 16 && p.NSize == 16 && p.KSize == 16 &&
        p.AType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        p.BType == VK_COMPONENT_TYPE_FLOAT16_NV &&
        p.CType == VK_COMPONENT_TYPE_FLOAT32_NV &&
        p.DType == VK_COMPONENT_TYPE_FLOAT32_NV && p.scope == VK_SCOPE_SUBGROUP_NV) {
      return true;
    }
  }
  return false;
}

// What the device lets a shader ask of denormals (spirv_denorm.h).
DenormSupport DenormSupportOf(const VkPhysicalDeviceFloatControlsProperties& p) {
  DenormSupport d;
  d.preserve16 = p.shaderDenormPreserveFloat16;
  d.preserve32 = p.shaderDenormPreserveFloat32;
  d.preserve64 = p.shaderDenormPreserveFloat64;
  switch (p.denormBehaviorIndependence) {
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY:
      d.independence = DenormSupport::Independence::k32BitOnly;
      break;
    case VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL:
      d.independence = DenormSupport::Independence::kAll;
      break;
    default:
      d.independence = DenormSupport::Independence::kNone;
      break;
  }
  return d;
}

// Finds a memory type with `want` flags (preferring `prefer` too); -1 if
// none.
int FindMemoryType(const VkPhysicalDeviceMemoryProperties& mem,
                   VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer) {
  int fallback = -1;
  for (uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
    if ((f & want) != want) continue;
    if ((f & prefer) == prefer) return static_cast<int>(i);
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  return fallback;
}

// Creates the Context of one physical device, or returns null with the
// reason it is left out.
std::unique_ptr<Context> OpenDevice(VkPhysicalDevice physical, int32_t index,
                                    std::string* why_not) {
  Process& p = State();
  const InstanceFns& ifn = p.ifn;
  auto ctx = std::make_unique<Context>();
  ctx->physical = physical;
  ctx->index = index;
  ctx->label = StrCat("vulkan:", index);

  // Float controls are core in Vulkan 1.2 (VK_KHR_shader_float_controls
  // promoted), the least the plugin takes, so no extension is enabled.
  VkPhysicalDeviceFloatControlsProperties float_controls{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver_props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  driver_props.pNext = &float_controls;
  VkPhysicalDeviceVulkan11Properties props11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  props11.pNext = &driver_props;
  // NVIDIA's SM count, where the driver tells it (compute_units).
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  if (HasExtension(ifn, physical, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME)) {
    float_controls.pNext = &sm;
  }
  VkPhysicalDeviceProperties2 props{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceProperties base{};
  ifn.vkGetPhysicalDeviceProperties(physical, &base);
  const bool v12 = base.apiVersion >= VK_API_VERSION_1_2;
  if (v12) {
    props.pNext = &props11;
    ifn.vkGetPhysicalDeviceProperties2(physical, &props);
  } else {
    props.properties = base;
  }
  const VkPhysicalDeviceProperties& pr = props.properties;
  ctx->is_cpu = pr.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  ctx->name = pr.deviceName;
  if (v12 && driver_props.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) {
    ctx->name += " [lavapipe, CPU]";
  } else if (ctx->is_cpu) {
    ctx->name += " [CPU]";
  }
  switch (pr.vendorID) {
    case 0x10de: ctx->vendor = "NVIDIA"; break;
    case 0x1002: ctx->vendor = "AMD"; break;
    case 0x8086: ctx->vendor = "Intel"; break;
    case 0x10005: ctx->vendor = "Mesa"; break;
    default: ctx->vendor = StrCat("vendor 0x", pr.vendorID); break;
  }
  if (!v12) {
    *why_not = StrCat(pr.deviceName, " speaks Vulkan ",
                      VersionString(pr.apiVersion),
                      "; the plugin needs Vulkan 1.2");
    return nullptr;
  }
  ctx->driver = StrCat(driver_props.driverName, " ", driver_props.driverInfo,
                       ", Vulkan ", VersionString(pr.apiVersion));

  // A queue family with compute; a compute-only one (async compute) when
  // there is one, else any.
  uint32_t nfam = 0;
  ifn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &nfam, nullptr);
  std::vector<VkQueueFamilyProperties> families(nfam);
  ifn.vkGetPhysicalDeviceQueueFamilyProperties(physical, &nfam,
                                               families.data());
  int family = -1;
  for (uint32_t i = 0; i < nfam; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) == 0) continue;
    if (family < 0) family = static_cast<int>(i);
  }
  if (family < 0) {
    *why_not = StrCat(pr.deviceName, " has no compute queue");
    return nullptr;
  }
  ctx->queue_family = static_cast<uint32_t>(family);
  ctx->caps.timestamp_bits = families[family].timestampValidBits;
  ctx->caps.timestamp_period_ns =
      ctx->caps.timestamp_bits > 0 ? pr.limits.timestampPeriod : 0.0;
  ctx->caps.subgroup_size = std::max(1u, props11.subgroupSize);
  ctx->caps.subgroup_reduce = HasSubgroupReduce(props11);
  ctx->caps.wide_rows = HasWideRows(pr.limits);
  ctx->caps.max_shared_memory = pr.limits.maxComputeSharedMemorySize;
  ctx->caps.max_group_count_x = pr.limits.maxComputeWorkGroupCount[0];
  ctx->caps.max_group_count_y = pr.limits.maxComputeWorkGroupCount[1];
  ctx->non_coherent_atom = std::max<VkDeviceSize>(1, pr.limits.nonCoherentAtomSize);
  ctx->caps.denorm = DenormSupportOf(float_controls);

  // Features: query, then enable what is there of what we use.
  VkPhysicalDeviceVulkan12Features f12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceCooperativeMatrixFeaturesNV fcoop{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  const bool has_coop =
      HasExtension(ifn, physical, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  // Pipeline statistics, only when SWITCHYARD_VULKAN_PIPELINE_STATS=1 asks
  // (pipeline_stats.h).
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fstats{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  const char* want_stats = Env("SWITCHYARD_VULKAN_PIPELINE_STATS");
  const bool has_stats =
      want_stats != nullptr && std::strcmp(want_stats, "1") == 0 &&
      HasExtension(ifn, physical, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  f11.pNext = &f12;
  f12.pNext = has_coop ? &fcoop : nullptr;
  if (has_stats) {
    fstats.pNext = f12.pNext;
    f12.pNext = &fstats;
  }
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &f11;
  ifn.vkGetPhysicalDeviceFeatures2(physical, &features);
  if (!f12.bufferDeviceAddress || !f12.timelineSemaphore ||
      !f12.hostQueryReset || !features.features.shaderInt64) {
    *why_not = StrCat(pr.deviceName,
                      " lacks bufferDeviceAddress, timelineSemaphore, "
                      "hostQueryReset or shaderInt64, which the plugin needs");
    return nullptr;
  }
  Caps& caps = ctx->caps;
  caps.storage16 = f11.storageBuffer16BitAccess;
  caps.float16 = f12.shaderFloat16 && caps.storage16;
  caps.storage8 = f12.storageBuffer8BitAccess && f12.shaderInt8;
  caps.int64 = features.features.shaderInt64;
  caps.float64 = features.features.shaderFloat64;
  // The kernel's SPIR-V declares the Vulkan memory model (glslang emits it
  // for coopMatLoadNV's coherent operand), so the feature is required and
  // enabled with the extension; its larger variant's shared buffer takes
  // SY_COOPMAT_SHARED_BYTES (CMakeLists.txt computes it from the tiles).
  caps.nv_cooperative_matrix = has_coop && fcoop.cooperativeMatrix &&
                               caps.float16 && caps.subgroup_size == 32 &&
                               f12.vulkanMemoryModel &&
                               caps.max_shared_memory >= SY_COOPMAT_SHARED_BYTES &&
                               HasCoopmatShape(physical);
  // Enable exactly what Caps reports (plus the required three).
  VkPhysicalDeviceVulkan12Features e12{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  e12.bufferDeviceAddress = VK_TRUE;
  e12.timelineSemaphore = VK_TRUE;
  e12.hostQueryReset = VK_TRUE;
  e12.shaderFloat16 = caps.float16;
  e12.shaderInt8 = caps.storage8;
  e12.storageBuffer8BitAccess = caps.storage8;
  e12.scalarBlockLayout = f12.scalarBlockLayout;
  e12.vulkanMemoryModel = caps.nv_cooperative_matrix;
  const char* bn = Env("SWITCHYARD_VULKAN_COOPMAT_BN");
  // 128×256 tiles where N allows: 160–164 against 152–162 TFLOP/s for
  // 128×128 on the H200 (docs/vulkan.md, "Cooperative matrices").
  caps.coopmat_bn = bn != nullptr && std::strcmp(bn, "128") == 0 ? 128 : 256;
  VkPhysicalDeviceVulkan11Features e11{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  e11.storageBuffer16BitAccess = caps.storage16;
  e11.pNext = &e12;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV ecoop{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  ecoop.cooperativeMatrix = VK_TRUE;
  if (caps.nv_cooperative_matrix) e12.pNext = &ecoop;
  const bool stats = has_stats && fstats.pipelineExecutableInfo;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR estats{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
  estats.pipelineExecutableInfo = VK_TRUE;
  if (stats) {
    estats.pNext = e12.pNext;
    e12.pNext = &estats;
  }
  VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  enable.pNext = &e11;
  enable.features.shaderInt64 = caps.int64;
  enable.features.shaderFloat64 = caps.float64;
  enable.features.shaderInt16 = features.features.shaderInt16;

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue_info.queueFamilyIndex = ctx->queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  std::vector<const char*> extensions;
  if (caps.nv_cooperative_matrix) extensions.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (stats) extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.pNext = &enable;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue_info;
  info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VkResult r = ifn.vkCreateDevice(physical, &info, nullptr, &ctx->device);
  if (r != VK_SUCCESS) {
    *why_not = StrCat("vkCreateDevice for ", pr.deviceName, " failed (",
                      ResultName(r), ")");
    return nullptr;
  }
  if (!LoadDeviceFns(ifn, ctx->device, &ctx->fn, why_not)) {
    // Destroy through the loader's own entry point: fn is incomplete.
    auto destroy = reinterpret_cast<PFN_vkDestroyDevice>(
        ifn.vkGetDeviceProcAddr(ctx->device, "vkDestroyDevice"));
    if (destroy != nullptr) destroy(ctx->device, nullptr);
    ctx->device = VK_NULL_HANDLE;
    return nullptr;
  }
  ctx->fn.vkGetDeviceQueue(ctx->device, ctx->queue_family, 0, &ctx->queue);
  if (stats) LoadPipelineStats(ifn, ctx->device, &ctx->pipeline_stats);

  VkPhysicalDeviceMemoryProperties mem{};
  ifn.vkGetPhysicalDeviceMemoryProperties(physical, &mem);
  const int local = FindMemoryType(mem, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  // Staging: host-visible, coherent and cached if possible (reads back
  // fast); non-coherent types are flushed and invalidated by hand.
  int host = FindMemoryType(mem,
                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                            VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (host < 0) {
    host = FindMemoryType(mem, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0);
  }
  if (local < 0 || host < 0) {
    *why_not = StrCat(pr.deviceName, " has no ",
                      local < 0 ? "device-local" : "host-visible",
                      " memory type");
    return nullptr;
  }
  ctx->host_memory_type = static_cast<uint32_t>(host);
  ctx->host_memory_coherent = (mem.memoryTypes[host].propertyFlags &
                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  const uint32_t heap = mem.memoryTypes[local].heapIndex;
  ctx->total_memory = mem.memoryHeaps[heap].size;
  // Compute units: SMs where the driver says (NVIDIA), CPU threads for a
  // CPU device, else 1 (core Vulkan does not tell).
  ctx->compute_units =
      sm.shaderSMCount > 0 ? static_cast<int32_t>(sm.shaderSMCount)
      : ctx->is_cpu ? static_cast<int32_t>(std::max(1u, std::thread::hardware_concurrency()))
                    : 1;
  const VkDeviceSize max_alloc =
      std::min<VkDeviceSize>(props11.maxMemoryAllocationSize,
                             mem.memoryHeaps[heap].size);
  Context* raw = ctx.get();
  ctx->memory = std::make_unique<DeviceMemory>(
      &ctx->fn, ctx->device, static_cast<uint32_t>(local), max_alloc,
      ctx->label, [raw] { raw->Drain(); });

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, kPushConstantBytes};
  VkPipelineLayoutCreateInfo layout{
      VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &range;
  r = ctx->fn.vkCreatePipelineLayout(ctx->device, &layout, nullptr,
                                     &ctx->layout);
  if (r != VK_SUCCESS) {
    *why_not = VkFailure("vkCreatePipelineLayout", *ctx, r);
    return nullptr;
  }
  return ctx;
}

Probe RunProbe() {
  Process& p = State();
  Probe probe;
  const std::string advice =
      "; install mesa-vulkan-drivers for a CPU device or a GPU driver";
  std::string why;
  if (!OpenLoader(&p.loader, &why)) {
    probe.reason = StrCat("no Vulkan device: ", why, advice,
                          " (and libvulkan1 for the loader)");
    return probe;
  }
  uint32_t api = VK_API_VERSION_1_0;
  if (p.loader.vkEnumerateInstanceVersion != nullptr) {
    p.loader.vkEnumerateInstanceVersion(&api);
  }
  if (api < VK_API_VERSION_1_2) {
    probe.reason = StrCat("no Vulkan device: the loader ", p.loader.path,
                          " speaks Vulkan ", VersionString(api),
                          " but the plugin needs 1.2", advice);
    return probe;
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "switchyard";
  app.pEngineName = "switchyard vulkan plugin";
  app.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  VkResult r = p.loader.vkCreateInstance(&info, nullptr, &p.instance);
  if (r != VK_SUCCESS) {
    probe.reason = StrCat("no Vulkan device: vkCreateInstance failed (",
                          ResultName(r), r == VK_ERROR_INCOMPATIBLE_DRIVER
                                             ? ": no Vulkan driver (ICD) found; "
                                               "check VK_DRIVER_FILES / "
                                               "VK_ICD_FILENAMES"
                                             : "",
                          ")", advice);
    p.instance = VK_NULL_HANDLE;
    return probe;
  }
  if (!LoadInstanceFns(p.loader, p.instance, &p.ifn, &why)) {
    probe.reason = StrCat("no Vulkan device: ", why, advice);
    return probe;
  }
  uint32_t count = 0;
  r = p.ifn.vkEnumeratePhysicalDevices(p.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> physical(count);
  if (r == VK_SUCCESS && count > 0) {
    r = p.ifn.vkEnumeratePhysicalDevices(p.instance, &count, physical.data());
  }
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    probe.reason = StrCat("no Vulkan device: vkEnumeratePhysicalDevices "
                          "failed (", ResultName(r), ")", advice);
    return probe;
  }
  if (count == 0) {
    probe.reason = StrCat("no Vulkan device: the loader found no driver with "
                          "a device (check VK_DRIVER_FILES / "
                          "VK_ICD_FILENAMES)", advice);
    return probe;
  }
  for (VkPhysicalDevice device : physical) {
    std::string skip;
    auto ctx = OpenDevice(device, static_cast<int32_t>(probe.devices.size()),
                          &skip);
    if (ctx == nullptr) {
      probe.skipped.push_back(skip);
      continue;
    }
    probe.summary += StrCat(probe.summary.empty() ? "" : "; ", ctx->label,
                            " = ", ctx->name, " (", ctx->driver,
                            ctx->caps.denorm.preserve32 ? ", keeps f32 denormals" : "",
                            ")");
    if (!ctx->caps.denorm.preserve32) {
      probe.notes.push_back(StrCat(
          ctx->label, " (", ctx->name,
          ") does not report shaderDenormPreserveFloat32, so its shaders "
          "cannot ask to keep f32 denormals (|x| < 1.18e-38): the driver may "
          "flush them to zero, and float ops on denormal inputs or with "
          "denormal results (abs, neg, add, mul, compare, cast to bool or "
          "int, sums, norms) may give 0 or false where the op set keeps the "
          "value; copy, fill, concat and f16/bf16 storage are exact "
          "(docs/vulkan.md, \"Denormals\")"));
    }
    probe.devices.push_back(std::move(ctx));
  }
  if (probe.devices.empty()) {
    std::string all;
    for (const std::string& s : probe.skipped) {
      all += StrCat(all.empty() ? "" : "; ", s);
    }
    probe.reason = StrCat("no Vulkan device: ", count,
                          " device(s) found but none usable (", all, ")",
                          advice);
  }
  return probe;
}

}  // namespace

Context::~Context() {
  if (device == VK_NULL_HANDLE) return;
  fn.vkDeviceWaitIdle(device);
  for (auto& [key, pipeline] : pipelines_) {
    fn.vkDestroyPipeline(device, pipeline, nullptr);
  }
  for (auto& [key, module] : modules_) {
    fn.vkDestroyShaderModule(device, module, nullptr);
  }
  if (layout != VK_NULL_HANDLE) {
    fn.vkDestroyPipelineLayout(device, layout, nullptr);
  }
  memory.reset();
  fn.vkDestroyDevice(device, nullptr);
}

bool Context::CreateShaderModule(std::span<const uint32_t> spirv,
                                 std::string_view name, VkShaderModule* module,
                                 std::string* error) const {
  // docs/vulkan.md, "Denormals": the device's own modes, added here
  // so that one SPIR-V blob serves every device.
  std::vector<uint32_t> words;
  std::string why;
  if (!AddDenormPreserve(spirv, caps.denorm, &words, &why)) {
    *error = StrCat("shader ", name, " for ", label, ": ", why,
                    "; this is a bug in the vulkan plugin (or a damaged "
                    "kernel cache: clear it)");
    return false;
  }
  VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  info.codeSize = words.size() * sizeof(uint32_t);
  info.pCode = words.data();
  const VkResult r = fn.vkCreateShaderModule(device, &info, nullptr, module);
  if (r != VK_SUCCESS) {
    *module = VK_NULL_HANDLE;
    *error = VkFailure(StrCat("vkCreateShaderModule(", name, ")"), *this, r);
    return false;
  }
  return true;
}

VkPipeline Context::Pipeline(const ShaderCode& shader,
                             std::span<const uint32_t> spec,
                             std::string* error) {
  if (spec.size() > kMaxSpec) {
    *error = StrCat("a pipeline of ", shader.name, " with ", spec.size(),
                    " specialization constants; this is a bug in the vulkan "
                    "plugin (at most ", kMaxSpec, ")");
    return VK_NULL_HANDLE;
  }
  PipelineKey key;
  key.shader = &shader;
  key.count = static_cast<uint32_t>(spec.size());
  std::copy(spec.begin(), spec.end(), key.spec.begin());
  std::lock_guard<std::mutex> lock(pipelines_mu_);
  auto found = pipelines_.find(key);
  if (found != pipelines_.end()) return found->second;
  VkShaderModule& module = modules_[&shader];
  if (module == VK_NULL_HANDLE &&
      !CreateShaderModule(std::span(shader.words, shader.num_words), shader.name,
                          &module, error)) {
    modules_.erase(&shader);
    return VK_NULL_HANDLE;
  }
  std::vector<VkSpecializationMapEntry> entries(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    entries[i] = {static_cast<uint32_t>(i),
                  static_cast<uint32_t>(i * sizeof(uint32_t)), sizeof(uint32_t)};
  }
  VkSpecializationInfo special{};
  special.mapEntryCount = static_cast<uint32_t>(entries.size());
  special.pMapEntries = entries.data();
  special.dataSize = spec.size() * sizeof(uint32_t);
  special.pData = spec.data();
  VkComputePipelineCreateInfo info{
      VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module;
  info.stage.pName = "main";
  info.stage.pSpecializationInfo = spec.empty() ? nullptr : &special;
  info.layout = layout;
  info.flags = PipelineStatsFlags(pipeline_stats);
  VkPipeline pipeline = VK_NULL_HANDLE;
  const VkResult r = fn.vkCreateComputePipelines(device, VK_NULL_HANDLE, 1,
                                                 &info, nullptr, &pipeline);
  if (r != VK_SUCCESS) {
    *error = VkFailure(StrCat("vkCreateComputePipelines(", shader.name, ")"),
                       *this, r);
    return VK_NULL_HANDLE;
  }
  if (pipeline_stats.enabled) {  // "norm_f32 [3,1,0]": the shader and its constants
    std::string what(shader.name);
    for (size_t i = 0; i < spec.size(); ++i) what += StrCat(i == 0 ? " [" : ",", spec[i]);
    if (!spec.empty()) what += "]";
    LogPipelineStats(pipeline_stats, device, pipeline, label, what);
  }
  pipelines_.emplace(key, pipeline);
  return pipeline;
}

void Context::AddStream(Stream* stream) {
  std::lock_guard<std::mutex> lock(streams_mu_);
  streams_.insert(stream);
}

void Context::RemoveStream(Stream* stream) {
  std::lock_guard<std::mutex> lock(streams_mu_);
  streams_.erase(stream);
}

void Context::Drain() {
  std::lock_guard<std::mutex> lock(streams_mu_);
  for (Stream* stream : streams_) {
    std::string ignored;  // a failed stream reports at its next sync
    auto stream_lock = stream->Lock();
    stream->Synchronize(&ignored);
  }
}

// Note [Probe lifetime]: the host calls sy_plugin_init once per opening of
// the library and `unload` when the last runtime lets that opening go, but
// a new runtime may open the library again (init runs again, on the same
// mapped image and its statics) while the old opening's `unload` is still
// running on another thread. So the probe is counted: AcquireVulkan (init)
// probes when nothing is probed, ReleaseVulkan (unload) tears down only
// when it drops the last count, both under one mutex.
namespace {
std::mutex& LifeMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}
int g_users = 0;
bool g_probed = false;
}  // namespace

const Probe& AcquireVulkan() {
  std::lock_guard<std::mutex> lock(LifeMutex());
  ++g_users;
  if (!g_probed) {
    State().probe = RunProbe();
    g_probed = true;
  }
  return State().probe;
}

const Probe& ProbeVulkan() { return State().probe; }

void ReleaseVulkan() {
  std::lock_guard<std::mutex> lock(LifeMutex());
  if (--g_users > 0) return;
  g_users = 0;
  Process& p = State();
  p.probe = Probe{};
  if (p.instance != VK_NULL_HANDLE && p.ifn.vkDestroyInstance != nullptr) {
    p.ifn.vkDestroyInstance(p.instance, nullptr);
  }
  p.instance = VK_NULL_HANDLE;
  g_probed = false;
}

}  // namespace sy::vulkan
