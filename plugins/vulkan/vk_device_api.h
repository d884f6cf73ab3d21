// The `vulkan` device type's sy_device_api_t.
//
// Devices are the probe's (vk_context.h): vulkan:0 … in the loader's
// order, lavapipe included. Memory handles are buffer device addresses
// (Note [Vulkan memory handles], vk_memory.h); streams batch their work
// (Note [Batched submission], vk_stream.h); an event is a point on a
// stream's timeline semaphore plus a timestamp query, so elapsed time is
// measured on the device. Streams, events and allocations are checked
// against the live sets, so a stale, foreign or doubly freed handle is an
// error rather than a crash.
//
// Thread-safety: every slot may be called from any thread.
#ifndef SWITCHYARD_PLUGINS_VULKAN_VK_DEVICE_API_H_
#define SWITCHYARD_PLUGINS_VULKAN_VK_DEVICE_API_H_

#include "switchyard/plugin.h"
#include "vk_stream.h"

namespace sy::vulkan {

// Static: valid for as long as the library is loaded.
const sy_device_api_t& VulkanDeviceApi();

// The live stream behind a handle, or null when it is not one of ours.
Stream* FindStream(sy_stream_t handle);

// Destroys what is left (streams and events the host did not destroy)
// before the devices go (plugin unload).
void DestroyLeftovers();

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_VK_DEVICE_API_H_
