#include "vk_loader.h"

#include <dlfcn.h>

#include <cstdlib>

#include "switchyard/plugin.hpp"

namespace sy::vulkan {

using ::sy::plugin::StrCat;

bool OpenLoader(Loader* loader, std::string* why_not) {
  // The override exists for tests (a loader that is not there) and for
  // machines whose loader lives off the library path.
#if defined(__GLIBC__)
  const char* env = secure_getenv("SWITCHYARD_VULKAN_LOADER");
#else
  const char* env = std::getenv("SWITCHYARD_VULKAN_LOADER");
#endif
  loader->path = env != nullptr && *env != '\0' ? env : "libvulkan.so.1";
  // RTLD_LOCAL: the loader's symbols stay out of the global namespace, so
  // another copy in the process (a renderer's) is not disturbed.
  loader->library = dlopen(loader->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (loader->library == nullptr) {
    const char* error = dlerror();
    *why_not = StrCat("the Vulkan loader ", loader->path,
                      " could not be opened (", error ? error : "unknown",
                      ")");
    return false;
  }
  loader->vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(loader->library, "vkGetInstanceProcAddr"));
  if (loader->vkGetInstanceProcAddr == nullptr) {
    *why_not = StrCat(loader->path, " has no vkGetInstanceProcAddr; it is "
                      "not a Vulkan loader");
    return false;
  }
  loader->vkCreateInstance = reinterpret_cast<PFN_vkCreateInstance>(
      loader->vkGetInstanceProcAddr(nullptr, "vkCreateInstance"));
  loader->vkEnumerateInstanceVersion =
      reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
          loader->vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
  if (loader->vkCreateInstance == nullptr) {
    *why_not = StrCat(loader->path, " returned no vkCreateInstance");
    return false;
  }
  return true;
}

bool LoadInstanceFns(const Loader& loader, VkInstance instance,
                     InstanceFns* fns, std::string* why_not) {
#define SY_VK_LOAD(name)                                              \
  fns->name = reinterpret_cast<PFN_##name>(                           \
      loader.vkGetInstanceProcAddr(instance, #name));                 \
  if (fns->name == nullptr) {                                         \
    *why_not = StrCat("the Vulkan loader lacks " #name              \
                      " (a Vulkan 1.2 loader is needed)");            \
    return false;                                                     \
  }
  SY_VK_INSTANCE_FNS(SY_VK_LOAD)
#undef SY_VK_LOAD
  return true;
}

bool LoadDeviceFns(const InstanceFns& ifns, VkDevice device, DeviceFns* fns,
                   std::string* why_not) {
#define SY_VK_LOAD(name)                                                    \
  fns->name =                                                               \
      reinterpret_cast<PFN_##name>(ifns.vkGetDeviceProcAddr(device, #name)); \
  if (fns->name == nullptr) {                                               \
    *why_not = StrCat("the driver lacks " #name                             \
                      " (a Vulkan 1.2 driver is needed)");                  \
    return false;                                                           \
  }
  SY_VK_DEVICE_FNS(SY_VK_LOAD)
#undef SY_VK_LOAD
  return true;
}

const char* ResultName(VkResult result) {
  switch (result) {
#define SY_VK_CASE(r) \
  case r:             \
    return #r;
    SY_VK_CASE(VK_SUCCESS)
    SY_VK_CASE(VK_NOT_READY)
    SY_VK_CASE(VK_TIMEOUT)
    SY_VK_CASE(VK_INCOMPLETE)
    SY_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    SY_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    SY_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    SY_VK_CASE(VK_ERROR_DEVICE_LOST)
    SY_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    SY_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    SY_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    SY_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    SY_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    SY_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    SY_VK_CASE(VK_ERROR_UNKNOWN)
    SY_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    SY_VK_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef SY_VK_CASE
    default:
      return "VkResult (unnamed)";
  }
}

}  // namespace sy::vulkan
