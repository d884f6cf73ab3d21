// Device tensors the core makes once and then reuses: constants that a
// decomposition would otherwise build on the host and copy to the device on
// every call (the attention decomposition's causal mask: Note [Cached causal
// masks] in dispatch/decompositions/attention.cc).
//
// Entries are keyed by device and a string the maker chooses, and are
// read-only by contract: the core passes them as op inputs, never as
// outputs, and never hands them to users. A cached tensor holds its device's
// plugin like any storage, so the runtime drops the entries of a plugin
// before unloading it (DropDevicesOf) and all of them before counting live
// tensors at its end (Clear). The cache holds at most kMaxBytes; a maker
// whose tensor would pass that empties it first (a workload with many
// shapes rebuilds, as without the cache), and one larger than the whole
// budget is returned uncached.
//
// Thread-safety: every method may be called concurrently. `make` runs
// without the cache's lock held (it may call ops); when two threads make
// the same entry at once, both get a correct tensor and the first kept
// stays.
#ifndef SWITCHYARD_DISPATCHER_MEMORY_CONSTANT_CACHE_H_
#define SWITCHYARD_DISPATCHER_MEMORY_CONSTANT_CACHE_H_

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "dispatcher/memory/tensor.h"

namespace sy::core {

class PluginInstance;

class ConstantCache {
 public:
  static constexpr size_t kMaxBytes = size_t{64} << 20;

  ConstantCache() = default;
  ConstantCache(const ConstantCache&) = delete;
  ConstantCache& operator=(const ConstantCache&) = delete;

  // The tensor kept for (device, key); else the one `make` returns (its
  // error as is), kept when it fits.
  absl::StatusOr<Tensor> GetOrMake(Device& device, const std::string& key,
                                   absl::FunctionRef<absl::StatusOr<Tensor>()> make);

  // Drops the entries on devices of `plugin` (before it unloads).
  void DropDevicesOf(const PluginInstance* plugin);
  // Drops the entries on `device` (sy_device_empty_cache).
  void DropDevice(const Device& device);
  // Drops every entry.
  void Clear();

  size_t size() const;   // entries
  size_t bytes() const;  // their nbytes, summed

 private:
  using Key = std::pair<const Device*, std::string>;

  void DropIf(absl::FunctionRef<bool(const Device&)> drop);

  mutable std::mutex mu_;
  std::map<Key, Tensor> entries_;
  size_t bytes_ = 0;
};

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_MEMORY_CONSTANT_CACHE_H_
