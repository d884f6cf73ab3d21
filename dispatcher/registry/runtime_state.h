// Everything one runtime owns, in the order it must be torn down (members
// are destroyed bottom-up: kernels first, plugin libraries last, because
// device teardown still calls into the libraries).
#ifndef SWITCHYARD_DISPATCHER_REGISTRY_RUNTIME_STATE_H_
#define SWITCHYARD_DISPATCHER_REGISTRY_RUNTIME_STATE_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <mutex>
#include <vector>

#include "dispatcher/base/call_tracker.h"
#include "dispatcher/memory/constant_cache.h"
#include "dispatcher/memory/device.h"
#include "dispatcher/registry/kernel_table.h"
#include "dispatcher/registry/load_record.h"
#include "dispatcher/registry/op_registry.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::core {

class TuningHook;  // dispatch/tuning.h

struct RuntimeState {
  mutable std::mutex plugins_mu;  // guards plugins and records
  std::vector<std::unique_ptr<PluginInstance>> plugins;
  std::vector<LoadRecord> records;
  OpRegistry ops;
  DeviceManager devices;
  KernelRegistry kernels;
  CallTracker calls;
  bool cpu_fallback = false;
  // The autotuner's hook (dispatch/tuning.h), or null. Not owned.
  std::atomic<TuningHook*> tuning{nullptr};
  // Plugin options users gave (plugin_options.h), by source; fixed when the
  // runtime is created.
  std::map<std::string, std::map<std::string, std::string>> options_from_env;
  std::map<std::string, std::map<std::string, std::string>> options_from_context;
  // Device constants the core reuses (memory/constant_cache.h). Last, so
  // destroyed first: its tensors go before the devices and plugins they use.
  ConstantCache constants;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_REGISTRY_RUNTIME_STATE_H_
