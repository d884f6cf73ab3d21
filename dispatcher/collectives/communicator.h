// sy::core::Communicator — one rank's membership of a group of processes
// that run collective ops together, bound to one device (docs/distributed.md).
// Made by the collectives extension (plugin.h, SY_EXTENSION_COLLECTIVES) of
// the device's type after a rendezvous through a Store (store.h); ops see
// it as an attribute of kind SY_ATTR_COMMUNICATOR pointing at ref().
//
// Lifetime: shared. Each holder (the C API's handle, a call in progress)
// keeps it alive; the last one destroys the engine communicator through
// comm_destroy, which waits for the work already enqueued with it. It keeps
// its device's plugin loaded (PluginInstance::RetainObject) meanwhile.
// Thread-safety: immutable after Create; every method is thread-safe.
#ifndef SWITCHYARD_DISPATCHER_COLLECTIVES_COMMUNICATOR_H_
#define SWITCHYARD_DISPATCHER_COLLECTIVES_COMMUNICATOR_H_

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "dispatcher/collectives/store.h"
#include "dispatcher/memory/device.h"
#include "switchyard/plugin.h"

namespace sy::core {

struct CommunicatorOptions {
  int rank = 0;
  int world_size = 1;
  std::string rendezvous;  // "file:///dir" or "tcp://host:port"
  // How long the rendezvous waits for every rank, and what each blocking
  // step of the engine waits for a peer.
  std::chrono::milliseconds timeout{60000};
};

class Communicator {
 public:
  // Rendezvous as `options.rank` of `options.world_size` on `device`, then
  // makes the engine's communicator. Blocks until every rank arrived (or
  // the timeout). Errors: InvalidArgument for a rank outside the world, a
  // world size < 1, a bad rendezvous URL, a rank that arrived with another
  // world size or device type, or a rank claimed twice (or a file://
  // directory left by an earlier job); DeadlineExceeded naming the ranks
  // that did not arrive; Unimplemented when the device type has no
  // collectives; the engine's error (FailedPrecondition when its library is
  // missing).
  static absl::StatusOr<std::shared_ptr<Communicator>> Create(
      Device& device, const CommunicatorOptions& options);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  // What kernels and shape functions receive (value.comm).
  const sy_communicator_ref_t& ref() const { return ref_.ref; }
  Device& device() const { return device_; }
  int rank() const { return ref_.ref.rank; }
  int world_size() const { return ref_.ref.world_size; }
  const std::string& rendezvous() const { return rendezvous_; }
  const char* engine() const;  // "gloo", "nccl"
  // "communicator rank 1 of 4 on cpu:0 (gloo, tcp://127.0.0.1:29500)".
  std::string Describe() const;

  // The communicator behind a ref() it handed out. Only for refs that came
  // from ref() (what binding accepts).
  static const Communicator& FromRef(const sy_communicator_ref_t* ref);

 private:
  Communicator(Device& device, std::string rendezvous);

  // Standard layout, `ref` first: FromRef converts back.
  struct Ref {
    sy_communicator_ref_t ref;
    const Communicator* self;
  };
  Ref ref_{};
  Device& device_;
  std::string rendezvous_;
  std::shared_ptr<Store> store_;  // keeps a tcp:// server up for the others
};

// The collectives extension on `type`'s device table, or null.
const sy_collectives_extension_t* FindCollectives(const DeviceType& type);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_COLLECTIVES_COMMUNICATOR_H_
