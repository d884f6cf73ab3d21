#include "dispatcher/memory/constant_cache.h"

#include <vector>

#include "dispatcher/memory/device.h"

namespace sy::core {

absl::StatusOr<Tensor> ConstantCache::GetOrMake(
    Device& device, const std::string& key,
    absl::FunctionRef<absl::StatusOr<Tensor>()> make) {
  Key k(&device, key);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = entries_.find(k); it != entries_.end()) return it->second;
  }
  absl::StatusOr<Tensor> made = make();
  if (!made.ok()) return made.status();
  const size_t bytes = made->nbytes();
  if (bytes > kMaxBytes) return made;
  // Tensors dropped here are destroyed after the lock is released: a
  // storage's destructor may wait for its device (wrapped memory).
  std::map<Key, Tensor> dropped;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = entries_.find(k); it != entries_.end()) return it->second;
    if (bytes_ + bytes > kMaxBytes) {
      dropped.swap(entries_);
      bytes_ = 0;
    }
    entries_.emplace(std::move(k), *made);
    bytes_ += bytes;
  }
  return made;
}

void ConstantCache::DropDevicesOf(const PluginInstance* plugin) {
  DropIf([plugin](const Device& d) { return d.type().plugin() == plugin; });
}

void ConstantCache::DropDevice(const Device& device) {
  DropIf([&device](const Device& d) { return &d == &device; });
}

void ConstantCache::DropIf(absl::FunctionRef<bool(const Device&)> drop) {
  std::vector<Tensor> dropped;  // destroyed after the lock is released
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (drop(*it->first.first)) {
      bytes_ -= it->second.nbytes();
      dropped.push_back(std::move(it->second));
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

void ConstantCache::Clear() {
  std::map<Key, Tensor> dropped;
  std::lock_guard<std::mutex> lock(mu_);
  dropped.swap(entries_);
  bytes_ = 0;
}

size_t ConstantCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

size_t ConstantCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace sy::core
