// What the driver's compiler made of each compute pipeline, for whoever
// tunes the shaders (docs/vulkan.md, "Pipeline statistics").
//
// With SWITCHYARD_VULKAN_PIPELINE_STATS=1, on a device that offers
// VK_KHR_pipeline_executable_properties, the plugin enables the extension,
// creates every compute pipeline (its own kernels and the fused ones) with
// VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR, and logs the driver's
// statistics once per pipeline at info level — on NVIDIA's driver the
// register count, shared and local memory, which decide how many
// workgroups an SM holds. Off by default: capturing may slow pipeline
// creation, and the line is noise to everyone else.
#ifndef SWITCHYARD_PLUGINS_VULKAN_PIPELINE_STATS_H_
#define SWITCHYARD_PLUGINS_VULKAN_PIPELINE_STATS_H_

#include <string>
#include <string_view>

#include "vk_loader.h"

namespace sy::vulkan {

struct PipelineStats {
  bool enabled = false;  // extension and feature enabled on the device
  PFN_vkGetPipelineExecutablePropertiesKHR properties = nullptr;
  PFN_vkGetPipelineExecutableStatisticsKHR statistics = nullptr;
};

// Loads the two entry points of an enabled extension; false (and
// `enabled` stays false) when the driver lacks one.
bool LoadPipelineStats(const InstanceFns& ifn, VkDevice device, PipelineStats* stats);

// The creation flag to add: the capture bit when enabled, else 0.
VkPipelineCreateFlags PipelineStatsFlags(const PipelineStats& stats);

// Logs "vulkan plugin: pipeline <what> on <label>: <name> <value>, …"
// (every executable's statistics) at info level; nothing when disabled.
void LogPipelineStats(const PipelineStats& stats, VkDevice device, VkPipeline pipeline,
                      std::string_view label, std::string_view what);

}  // namespace sy::vulkan

#endif  // SWITCHYARD_PLUGINS_VULKAN_PIPELINE_STATS_H_
