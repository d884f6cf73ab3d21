// The cpu plugin's collectives through Gloo (docs/distributed.md): the
// extension (plugin.h, SY_EXTENSION_COLLECTIVES) that makes Gloo contexts
// over TCP from the host's rendezvous store, and the kernels of the
// collective ops. The cpu stream is synchronous, so a kernel returns when
// its collective is done.
#ifndef SWITCHYARD_PLUGINS_CPU_COLLECTIVES_GLOO_COMM_H_
#define SWITCHYARD_PLUGINS_CPU_COLLECTIVES_GLOO_COMM_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "gloo/rendezvous/context.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cpu {

// One communicator: a Gloo context whose pairs are connected. Kernels take
// `mu` for the whole collective: Gloo runs one operation of a context at a
// time, and calls from several threads must not interleave (every rank must
// see the same order anyway).
struct GlooComm {
  std::shared_ptr<gloo::rendezvous::Context> context;
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout{60000};
  std::mutex mu;
  uint32_t next_tag = 0;  // guarded by mu; equal on every rank
  // The first failure: a Gloo context whose pair broke cannot be used again.
  std::string broken;     // guarded by mu
};

extern const sy_collectives_extension_t kCpuCollectivesExtension;

// The kernels of the collective ops, in registration order.
std::span<const plugin::KernelSpec> CollectiveKernels();

}  // namespace sy::cpu

#endif  // SWITCHYARD_PLUGINS_CPU_COLLECTIVES_GLOO_COMM_H_
