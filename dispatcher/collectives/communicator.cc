#include "dispatcher/collectives/communicator.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "dispatcher/base/error.h"
#include "dispatcher/base/plugin_instance.h"

namespace sy::core {
namespace {

Deadline DeadlineAfter(std::chrono::milliseconds timeout) {
  return std::chrono::steady_clock::now() + timeout;
}

// Note [Communicator key prefixes]: several communicators may share one
// rendezvous (one tcp:// server, one directory). Each gets the keys under
// "c<N>/", N counting the communicators this process made with that URL;
// SPMD programs make them in the same order on every rank, as
// torch.distributed's group counter assumes.
std::string NextPrefix(const std::string& url) {
  static std::mutex mu;
  static auto* counts = new std::map<std::string, int>;
  std::lock_guard<std::mutex> lock(mu);
  return absl::StrCat("c", (*counts)[url]++, "/");
}

// What each rank announces: compared across ranks so that a mismatch is an
// error here, not a hang in the engine.
std::string Announcement(int world_size, const std::string& device_type) {
  return absl::StrCat("world_size=", world_size, ";device_type=", device_type);
}

// The plugin's view of the store (sy_collective_store_t), over `Store`.
struct PluginStore {
  Store* store;
  std::chrono::milliseconds timeout;

  Deadline DeadlineFor(int64_t timeout_ms) const {
    return DeadlineAfter(timeout_ms > 0 ? std::chrono::milliseconds(timeout_ms)
                                        : timeout);
  }

  static sy_error_t* Set(void* self, const char* key, const void* value,
                         size_t size) {
    if (key == nullptr || (value == nullptr && size > 0)) {
      return CreateError(SY_STATUS_INVALID_ARGUMENT,
                         "store set: key and value must not be NULL");
    }
    auto* s = static_cast<PluginStore*>(self);
    return ErrorFromStatus(s->store->Set(
        key, absl::string_view(static_cast<const char*>(value), size)));
  }

  static sy_error_t* Get(void* self, const char* key, void* buffer,
                         size_t capacity, size_t* out_size,
                         int64_t timeout_ms) {
    if (key == nullptr || out_size == nullptr ||
        (buffer == nullptr && capacity > 0)) {
      return CreateError(SY_STATUS_INVALID_ARGUMENT,
                         "store get: key, out_size (and a buffer with "
                         "capacity) must not be NULL");
    }
    auto* s = static_cast<PluginStore*>(self);
    absl::StatusOr<std::string> value =
        s->store->Get(key, s->DeadlineFor(timeout_ms));
    if (!value.ok()) return ErrorFromStatus(value.status());
    *out_size = value->size();
    const size_t n = std::min(capacity, value->size());
    if (n > 0) std::memcpy(buffer, value->data(), n);
    return nullptr;
  }

  static sy_error_t* Wait(void* self, const char* const* keys,
                          int32_t num_keys, int64_t timeout_ms) {
    if (num_keys < 0 || (num_keys > 0 && keys == nullptr)) {
      return CreateError(SY_STATUS_INVALID_ARGUMENT,
                         "store wait: bad key list");
    }
    auto* s = static_cast<PluginStore*>(self);
    std::vector<std::string> list;
    for (int32_t i = 0; i < num_keys; ++i) {
      if (keys[i] == nullptr) {
        return CreateError(SY_STATUS_INVALID_ARGUMENT,
                           "store wait: a key is NULL");
      }
      list.emplace_back(keys[i]);
    }
    return ErrorFromStatus(s->store->Wait(list, s->DeadlineFor(timeout_ms)));
  }
};

// Announces this rank, then reads every rank's announcement in rank order
// until the deadline, so a mismatch shows as soon as the first differing
// rank has arrived and a missing rank is named.
absl::Status Rendezvous(Store& store, const std::string& where, int rank,
                        int world_size, const std::string& device_type,
                        Deadline deadline) {
  const std::string mine = Announcement(world_size, device_type);
  absl::StatusOr<bool> fresh =
      store.SetIfAbsent(absl::StrCat("rank/", rank), mine);
  if (!fresh.ok()) return fresh.status();
  if (!*fresh) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": rank ", rank, " has already arrived at this rendezvous: "
        "two processes were given rank ", rank, ", or a file:// directory "
        "holds an earlier job's files (use a fresh directory per job)"));
  }
  std::vector<int> missing;
  for (int r = 0; r < world_size; ++r) missing.push_back(r);
  auto interval = std::chrono::microseconds(200);
  while (true) {
    std::vector<int> still;
    for (int r : missing) {
      absl::StatusOr<std::optional<std::string>> theirs =
          store.TryGet(absl::StrCat("rank/", r));
      if (!theirs.ok()) return theirs.status();
      if (!theirs->has_value()) {
        still.push_back(r);
        continue;
      }
      if (**theirs != mine) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": rank ", r, " arrived with ", **theirs, " but this rank ",
            rank, " with ", mine, "; start every rank with the same world "
            "size, on devices of the same type"));
      }
    }
    missing = std::move(still);
    if (missing.empty()) return absl::OkStatus();
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(interval);
    interval = std::min<std::chrono::microseconds>(interval * 2,
                                                   std::chrono::milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat(
      where, ": rank", missing.size() > 1 ? "s " : " ",
      absl::StrJoin(missing, ", "), " of ", world_size,
      " did not arrive before the timeout; "
      "start every rank with the same rendezvous and world size, check that "
      "none failed, or raise the timeout"));
}

}  // namespace

const sy_collectives_extension_t* FindCollectives(const DeviceType& type) {
  const sy_extension_t* chain = type.api().extension;
  // A chain is a plugin's static data; the bound keeps a cycle from
  // hanging the host (as the fusion pass's walk).
  for (int guard = 0; chain != nullptr && guard < 64;
       chain = chain->next, ++guard) {
    if (chain->struct_size < sizeof(sy_extension_t)) break;
    if (chain->type != SY_EXTENSION_COLLECTIVES) continue;
    if (chain->struct_size < SY_STRUCT_SIZE(sy_collectives_extension_t, self)) {
      continue;
    }
    const auto* ext = reinterpret_cast<const sy_collectives_extension_t*>(chain);
    if (ext->comm_create != nullptr && ext->comm_destroy != nullptr) return ext;
  }
  return nullptr;
}

Communicator::Communicator(Device& device, std::string rendezvous)
    : device_(device), rendezvous_(std::move(rendezvous)) {
  ref_.self = this;
  if (PluginInstance* plugin = device_.type().plugin()) plugin->RetainObject();
}

Communicator::~Communicator() {
  if (ref_.ref.handle != nullptr && ref_.ref.owner != nullptr) {
    sy_comm_destroy_args_t args{};
    args.struct_size = sizeof args;
    args.handle = ref_.ref.handle;
    ref_.ref.owner->comm_destroy(ref_.ref.owner->self, &args);
  }
  if (PluginInstance* plugin = device_.type().plugin()) plugin->ReleaseObject();
}

const char* Communicator::engine() const {
  return ref_.ref.owner != nullptr && ref_.ref.owner->engine != nullptr
             ? ref_.ref.owner->engine
             : "?";
}

std::string Communicator::Describe() const {
  return absl::StrCat("communicator rank ", rank(), " of ", world_size(),
                      " on ", device_.label(), " (", engine(), ", ",
                      rendezvous_, ")");
}

const Communicator& Communicator::FromRef(const sy_communicator_ref_t* ref) {
  return *reinterpret_cast<const Ref*>(ref)->self;
}

absl::StatusOr<std::shared_ptr<Communicator>> Communicator::Create(
    Device& device, const CommunicatorOptions& options) {
  const std::string where =
      absl::StrCat("communicator rank ", options.rank, " of ",
                   options.world_size, " on ", device.label(), " (",
                   options.rendezvous, ")");
  if (options.world_size < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": world_size must be >= 1, got ", options.world_size));
  }
  if (options.rank < 0 || options.rank >= options.world_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": rank must be in 0..", options.world_size - 1, ", got ",
        options.rank));
  }
  if (options.timeout.count() <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": the timeout must be > 0 ms, got ", options.timeout.count()));
  }
  const sy_collectives_extension_t* ext = FindCollectives(device.type());
  if (ext == nullptr) {
    return absl::UnimplementedError(absl::StrCat(
        where, ": device type '", device.type().name(), "' (plugin '",
        device.type().plugin() != nullptr ? device.type().plugin()->name()
                                          : std::string("?"),
        "') has no collectives; use a device whose plugin has them (cpu "
        "through Gloo, cuda through NCCL)"));
  }
  const Deadline deadline = DeadlineAfter(options.timeout);
  absl::StatusOr<std::shared_ptr<Store>> base =
      OpenStore(options.rendezvous, options.rank, deadline);
  if (!base.ok()) return base.status();
  std::shared_ptr<Store> store =
      PrefixStore(*base, NextPrefix(options.rendezvous));
  if (absl::Status s = Rendezvous(*store, where, options.rank,
                                  options.world_size, device.type().name(),
                                  deadline);
      !s.ok()) {
    return s;
  }

  std::shared_ptr<Communicator> comm(
      new Communicator(device, options.rendezvous));
  std::shared_ptr<Store> engine_store = PrefixStore(store, "engine/");
  PluginStore adapter{engine_store.get(), options.timeout};
  sy_collective_store_t plugin_store{};
  plugin_store.struct_size = sizeof plugin_store;
  plugin_store.self = &adapter;
  plugin_store.set = &PluginStore::Set;
  plugin_store.get = &PluginStore::Get;
  plugin_store.wait = &PluginStore::Wait;

  sy_comm_create_args_t args{};
  args.struct_size = sizeof args;
  args.store = &plugin_store;
  args.device = device.index();
  args.rank = options.rank;
  args.world_size = options.world_size;
  args.timeout_ms = options.timeout.count();
  if (absl::Status s = TakeError(ext->comm_create(ext->self, &args),
                                 absl::StrCat(where, ": ", ext->engine));
      !s.ok()) {
    return s;
  }
  sy_communicator_ref_t& ref = comm->ref_.ref;
  ref.struct_size = sizeof ref;
  ref.handle = args.out_handle;
  ref.owner = ext;
  ref.device = device.dl_device();
  ref.rank = options.rank;
  ref.world_size = options.world_size;
  ref.timeout_ms = options.timeout.count();
  comm->store_ = *base;
  return comm;
}

}  // namespace sy::core
