// Making and freeing Gloo communicators from the host's rendezvous store.
#include "collectives/gloo_comm.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "gloo/barrier.h"
#include "gloo/common/error.h"
#include "gloo/rendezvous/store.h"
#include "gloo/transport/tcp/device.h"

namespace sy::cpu {
namespace {

constexpr std::string_view kWhere = "cpu plugin: gloo";

// Gloo's Store over the host's (sy_collective_store_t): Gloo exchanges its
// pair addresses through it. Gloo's interface throws, so errors become
// gloo::IoException here and an sy_error_t again in CommCreate.
class HostStore final : public gloo::rendezvous::Store {
 public:
  explicit HostStore(const sy_collective_store_t* store) : store_(store) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    Check(plugin::StoreSet(store_, key,
                           std::string_view(data.data(), data.size())));
  }
  std::vector<char> get(const std::string& key) override {
    std::string value;
    Check(plugin::StoreGet(store_, key, value));
    return std::vector<char>(value.begin(), value.end());
  }
  void wait(const std::vector<std::string>& keys) override {
    wait(keys, std::chrono::milliseconds(0));  // the communicator's timeout
  }
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override {
    std::vector<const char*> list;
    for (const std::string& key : keys) list.push_back(key.c_str());
    Check(store_->wait(store_->self, list.data(),
                       static_cast<int32_t>(list.size()), timeout.count()));
  }

  // The first store error, kept whole (code and message) for CommCreate.
  sy_error_t* TakeError() {
    sy_error_t* e = error_;
    error_ = nullptr;
    return e;
  }
  ~HostStore() override {
    if (error_ != nullptr) plugin::Host()->error_destroy(error_);
  }

 private:
  void Check(sy_error_t* error) {
    if (error == nullptr) return;
    if (error_ == nullptr) {
      error_ = error;
    } else {
      plugin::Host()->error_destroy(error);
    }
    throw gloo::IoException("the rendezvous store failed");
  }

  const sy_collective_store_t* store_;
  sy_error_t* error_ = nullptr;
};

// Where Gloo's pairs listen: SWITCHYARD_GLOO_IFACE (an interface name), or
// GLOO_SOCKET_IFNAME as torch.distributed users set it, else the loopback
// address — one host; across hosts set one of the two (docs/distributed.md).
gloo::transport::tcp::attr TransportAttr() {
  gloo::transport::tcp::attr attr;
  for (const char* name : {"SWITCHYARD_GLOO_IFACE", "GLOO_SOCKET_IFNAME"}) {
#if defined(__GLIBC__)
    const char* value = secure_getenv(name);
#else
    const char* value = std::getenv(name);
#endif
    if (value != nullptr && *value != '\0') {
      attr.iface = value;
      return attr;
    }
  }
  attr.hostname = "127.0.0.1";
  return attr;
}

sy_error_t* CommCreate(void*, sy_comm_create_args_t* args) {
  return plugin::Guard(kWhere, [&]() -> sy_error_t* {
    auto comm = std::make_unique<GlooComm>();
    comm->rank = args->rank;
    comm->size = args->world_size;
    comm->timeout = std::chrono::milliseconds(args->timeout_ms);
    HostStore store(args->store);
    try {
      std::shared_ptr<gloo::transport::Device> device =
          gloo::transport::tcp::CreateDevice(TransportAttr());
      comm->context = std::make_shared<gloo::rendezvous::Context>(
          args->rank, args->world_size);
      comm->context->setTimeout(comm->timeout);
      comm->context->connectFullMesh(store, device);
      // connectFullMesh returns on a rank once its own side of every pair is
      // up, not the peers' side: a rank that then exits at once (or frees
      // the communicator) resets a pair that a slower rank is still
      // completing, and that rank fails with "Connection closed by peer".
      // A barrier over the new pairs makes creation collective, as NCCL's
      // ncclCommInitRank is: it returns on no rank before every rank is
      // connected. (Seen as a flaky test under load, 15 of 100 creations.)
      gloo::BarrierOptions barrier(comm->context);
      barrier.setTag(comm->next_tag++);
      barrier.setTimeout(comm->timeout);
      gloo::barrier(barrier);
    } catch (const gloo::Exception& e) {
      if (sy_error_t* from_store = store.TakeError()) return from_store;
      return plugin::MakeError(
          SY_STATUS_UNAVAILABLE,
          plugin::StrCat(kWhere, ": rank ", args->rank, " of ",
                         args->world_size, " could not connect to its peers: ",
                         e.what(), "; check that every rank is running and "
                         "that their hosts reach each other (set "
                         "SWITCHYARD_GLOO_IFACE to the interface to use)"));
    }
    args->out_handle = comm.release();
    return nullptr;
  });
}

// The cpu stream is synchronous: no work of this communicator is pending.
void CommDestroy(void*, const sy_comm_destroy_args_t* args) {
  if (args != nullptr) delete static_cast<GlooComm*>(args->handle);
}

}  // namespace

const sy_collectives_extension_t kCpuCollectivesExtension = {
    .base = {.struct_size = sizeof(sy_collectives_extension_t),
             .type = SY_EXTENSION_COLLECTIVES,
             .reserved = 0,
             .next = nullptr},
    .device_type = "cpu",
    .engine = "gloo",
    .comm_create = CommCreate,
    .comm_destroy = CommDestroy,
    .self = nullptr,
};

}  // namespace sy::cpu
