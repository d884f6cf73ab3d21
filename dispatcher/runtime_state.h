// Everything one runtime owns, in the order it must be torn down (members
// are destroyed bottom-up: kernels first, plugin libraries last, because
// device teardown still calls into the libraries).
#ifndef SWITCHYARD_DISPATCHER_RUNTIME_STATE_H_
#define SWITCHYARD_DISPATCHER_RUNTIME_STATE_H_

#include <memory>
#include <mutex>
#include <vector>

#include "dispatcher/call_tracker.h"
#include "dispatcher/device.h"
#include "dispatcher/kernel_table.h"
#include "dispatcher/load_record.h"
#include "dispatcher/op_registry.h"
#include "dispatcher/plugin_instance.h"

namespace sy {

struct RuntimeState {
  std::mutex plugins_mu;  // guards plugins and records
  std::vector<std::unique_ptr<PluginInstance>> plugins;
  std::vector<LoadRecord> records;
  OpRegistry ops;
  DeviceManager devices;
  KernelRegistry kernels;
  CallTracker calls;
  bool cpu_fallback = false;
};

}  // namespace sy

#endif  // SWITCHYARD_DISPATCHER_RUNTIME_STATE_H_
