#include "pipeline_stats.h"

#include <vector>

#include "switchyard/plugin.hpp"

namespace sy::vulkan {

using ::sy::plugin::StrCat;

bool LoadPipelineStats(const InstanceFns& ifn, VkDevice device, PipelineStats* stats) {
  stats->properties = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      ifn.vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  stats->statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      ifn.vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
  stats->enabled = stats->properties != nullptr && stats->statistics != nullptr;
  return stats->enabled;
}

VkPipelineCreateFlags PipelineStatsFlags(const PipelineStats& stats) {
  return stats.enabled ? VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR : 0;
}

namespace {

std::string ValueOf(const VkPipelineExecutableStatisticKHR& s) {
  switch (s.format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
      return s.value.b32 ? "true" : "false";
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
      return StrCat(s.value.i64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
      return StrCat(s.value.u64);
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
      return StrCat(s.value.f64);
    default:
      return "?";
  }
}

}  // namespace

void LogPipelineStats(const PipelineStats& stats, VkDevice device, VkPipeline pipeline,
                      std::string_view label, std::string_view what) {
  if (!stats.enabled) return;
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  uint32_t count = 0;
  std::string line = StrCat("vulkan plugin: pipeline ", what, " on ", label, ":");
  if (stats.properties(device, &info, &count, nullptr) != VK_SUCCESS) {
    plugin::Log(plugin::Host(), nullptr, SY_LOG_INFO, StrCat(line, " no statistics"));
    return;
  }
  for (uint32_t e = 0; e < count; ++e) {
    VkPipelineExecutableInfoKHR exec{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
    exec.pipeline = pipeline;
    exec.executableIndex = e;
    uint32_t n = 0;
    if (stats.statistics(device, &exec, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> all(
        n, VkPipelineExecutableStatisticKHR{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
    if (stats.statistics(device, &exec, &n, all.data()) != VK_SUCCESS) continue;
    for (uint32_t i = 0; i < n; ++i) {
      line += StrCat(i == 0 && e == 0 ? " " : ", ", all[i].name, " ", ValueOf(all[i]));
    }
  }
  plugin::Log(plugin::Host(), nullptr, SY_LOG_INFO, line);
}

}  // namespace sy::vulkan
