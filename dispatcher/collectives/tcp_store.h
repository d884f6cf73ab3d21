// Internal to collectives/: the tcp:// rendezvous store (store.h). Gloo
// ships no TCP store (Debian's gloo 0.0~git20220518 has file, hash, prefix
// and redis stores) and NCCL none, so the core has this small one.
#ifndef SWITCHYARD_DISPATCHER_COLLECTIVES_TCP_STORE_H_
#define SWITCHYARD_DISPATCHER_COLLECTIVES_TCP_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "dispatcher/collectives/store.h"

namespace sy::core {

// With `serve`, listens on host:port and serves the keys from memory (a
// thread, ended with the store); then, as every rank, connects to it,
// retrying until `deadline` while the server is not up yet.
//
// Protocol, one request per round trip over one connection: a request is
// op (1 byte: 'S' set, 'A' set if absent, 'G' get), key length and value
// length (4 bytes each, little-endian), key, value; the answer is a status
// byte ('1' found/set, '0' not) and for 'G' the value's length and bytes.
absl::StatusOr<std::shared_ptr<Store>> OpenTcpStore(const std::string& url,
                                                    const std::string& host,
                                                    int port, bool serve,
                                                    Deadline deadline);

}  // namespace sy::core

#endif  // SWITCHYARD_DISPATCHER_COLLECTIVES_TCP_STORE_H_
