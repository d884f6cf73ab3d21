// The rendezvous store of communicators: a small key-value store every rank
// of a job reaches, through which ranks announce themselves and engines
// exchange what they need to connect (Gloo its pair addresses, NCCL its
// ncclUniqueId). One store serves both engines, so a job names one
// rendezvous whatever its devices (docs/distributed.md#rendezvous).
//
//   file:///shared/dir       a directory every rank can read and write
//                            (one file per key, written then renamed)
//   tcp://host:port          rank 0 serves the keys from memory on
//                            host:port; the others connect to it
//
// The core owns the store rather than each engine's own (Gloo's FileStore;
// Gloo has no TCP store, and NCCL none at all): the NCCL plugin needs one
// too, and plugins reach it through sy_collective_store_t.
//
// Thread-safety: every method may be called from any thread.
#ifndef SWITCHYARD_DISPATCHER_COLLECTIVES_STORE_H_
#define SWITCHYARD_DISPATCHER_COLLECTIVES_STORE_H_

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace sy::core {

using Deadline = std::chrono::steady_clock::time_point;

class Store {
 public:
  virtual ~Store() = default;

  // Sets `key` (overwriting).
  virtual absl::Status Set(absl::string_view key, absl::string_view value) = 0;
  // Sets `key` unless it exists; false (and nothing written) when it did.
  virtual absl::StatusOr<bool> SetIfAbsent(absl::string_view key,
                                           absl::string_view value) = 0;
  // The value, or nullopt when the key is not (yet) set. Never blocks
  // beyond one round trip.
  virtual absl::StatusOr<std::optional<std::string>> TryGet(
      absl::string_view key) = 0;
  // "file:///dir" or "tcp://host:port", for messages.
  virtual const std::string& url() const = 0;

  // Waits for `key` until `deadline`: DeadlineExceeded naming the key and
  // the store when it passes.
  absl::StatusOr<std::string> Get(absl::string_view key, Deadline deadline);
  // Waits for every key; the error lists those still missing.
  absl::Status Wait(const std::vector<std::string>& keys, Deadline deadline);
};

// Opens the store a rendezvous URL names, as rank `rank` of the job
// (tcp://: rank 0 serves, the others connect, retrying until `deadline`).
// Stores are shared within the process: every communicator made with the
// same URL uses one (one server socket for tcp://), under its own key
// prefix. Errors: InvalidArgument for a URL of another scheme or without a
// path / host / port, saying what the forms are; Unavailable when the
// directory cannot be made or the port cannot be bound or reached.
absl::StatusOr<std::shared_ptr<Store>> OpenStore(absl::string_view url,
                                                 int rank, Deadline deadline);

// A view of `base` under a key prefix ("comm3/"): what each communicator
// (and its engine) sees.
std::shared_ptr<Store> PrefixStore(std::shared_ptr<Store> base,
                                   std::string prefix);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_COLLECTIVES_STORE_H_
