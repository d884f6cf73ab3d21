// The Vulkan loader, opened at run time.
//
// The plugin never links libvulkan: it dlopens libvulkan.so.1 (or the file
// SWITCHYARD_VULKAN_LOADER names, read with secure_getenv) and fetches every
// entry point through vkGetInstanceProcAddr / vkGetDeviceProcAddr. A
// machine without the loader therefore still loads the plugin, which then
// registers the `vulkan` device type with zero devices and says why.
//
// The function tables below are X-macro lists: adding an entry point is one
// line. Instance-level functions live in InstanceFns (one per process),
// device-level ones in DeviceFns (one per VkDevice, fetched with
// vkGetDeviceProcAddr, so calls skip the loader's trampoline).
#ifndef SWITCHYARD_PLUGINS_VULKAN_VK_LOADER_H_
#define SWITCHYARD_PLUGINS_VULKAN_VK_LOADER_H_

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace sy::vulkan {

#define SY_VK_INSTANCE_FNS(X)                  \
  X(vkDestroyInstance)                         \
  X(vkEnumeratePhysicalDevices)                \
  X(vkGetPhysicalDeviceProperties)             \
  X(vkGetPhysicalDeviceProperties2)            \
  X(vkGetPhysicalDeviceFeatures2)              \
  X(vkGetPhysicalDeviceQueueFamilyProperties)  \
  X(vkGetPhysicalDeviceMemoryProperties)       \
  X(vkEnumerateDeviceExtensionProperties)      \
  X(vkCreateDevice)                            \
  X(vkGetDeviceProcAddr)

#define SY_VK_DEVICE_FNS(X)            \
  X(vkDestroyDevice)                   \
  X(vkGetDeviceQueue)                  \
  X(vkDeviceWaitIdle)                  \
  X(vkQueueSubmit)                     \
  X(vkAllocateMemory)                  \
  X(vkFreeMemory)                      \
  X(vkMapMemory)                       \
  X(vkUnmapMemory)                     \
  X(vkInvalidateMappedMemoryRanges)    \
  X(vkFlushMappedMemoryRanges)         \
  X(vkCreateBuffer)                    \
  X(vkDestroyBuffer)                   \
  X(vkGetBufferMemoryRequirements)     \
  X(vkBindBufferMemory)                \
  X(vkGetBufferDeviceAddress)          \
  X(vkCreateCommandPool)               \
  X(vkDestroyCommandPool)              \
  X(vkAllocateCommandBuffers)          \
  X(vkFreeCommandBuffers)              \
  X(vkBeginCommandBuffer)              \
  X(vkEndCommandBuffer)                \
  X(vkResetCommandBuffer)              \
  X(vkCmdPipelineBarrier)              \
  X(vkCmdCopyBuffer)                   \
  X(vkCmdFillBuffer)                   \
  X(vkCmdUpdateBuffer)                 \
  X(vkCmdBindPipeline)                 \
  X(vkCmdPushConstants)                \
  X(vkCmdDispatch)                     \
  X(vkCmdResetQueryPool)               \
  X(vkCmdWriteTimestamp)               \
  X(vkCreateSemaphore)                 \
  X(vkDestroySemaphore)                \
  X(vkWaitSemaphores)                  \
  X(vkGetSemaphoreCounterValue)        \
  X(vkCreateQueryPool)                 \
  X(vkDestroyQueryPool)                \
  X(vkGetQueryPoolResults)             \
  X(vkResetQueryPool)                  \
  X(vkCreateShaderModule)              \
  X(vkDestroyShaderModule)             \
  X(vkCreatePipelineLayout)            \
  X(vkDestroyPipelineLayout)           \
  X(vkCreateComputePipelines)          \
  X(vkDestroyPipeline)

#define SY_VK_DECLARE_FN(name) PFN_##name name = nullptr;

struct InstanceFns {
  SY_VK_INSTANCE_FNS(SY_VK_DECLARE_FN)
};

struct DeviceFns {
  SY_VK_DEVICE_FNS(SY_VK_DECLARE_FN)
};

// The opened loader and its global entry points.
struct Loader {
  void* library = nullptr;  // dlopen handle; kept open for the process
  std::string path;         // what was opened
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  PFN_vkCreateInstance vkCreateInstance = nullptr;
  PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
};

// Opens the loader. On failure returns false and sets *why_not to a
// sentence naming the file and dlerror(). Thread-compatible: called once,
// from the probe.
bool OpenLoader(Loader* loader, std::string* why_not);

// Fills `fns` from `instance`; false (naming the missing function in
// *why_not) when an entry point is absent.
bool LoadInstanceFns(const Loader& loader, VkInstance instance,
                     InstanceFns* fns, std::string* why_not);
bool LoadDeviceFns(const InstanceFns& ifns, VkDevice device, DeviceFns* fns,
                   std::string* why_not);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" etc.; "VkResult <n>" for others.
const char* ResultName(VkResult result);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_VK_LOADER_H_
