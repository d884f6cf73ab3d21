// The cuda plugin's collectives through NCCL (docs/distributed.md): the
// extension (plugin.h, SY_EXTENSION_COLLECTIVES) that makes NCCL
// communicators, exchanging the ncclUniqueId through the host's rendezvous
// store, and the kernels of the collective ops, which enqueue on the
// call's stream like any kernel.
//
// Note [NCCL watchdog]: NCCL operations never time out by themselves: a
// peer that died leaves this rank's kernels waiting on the GPU forever.
// Each communicator records an event after every operation it enqueues;
// a watchdog thread polls the oldest, and one still pending after the
// communicator's timeout (or an asynchronous NCCL error) aborts the
// communicator (ncclCommAbort ends its kernels, so the stream moves on) and
// marks it failed: the next collective on it returns the error, naming the
// operation that did not finish, and so does comm_destroy's wait.
#ifndef SWITCHYARD_PLUGINS_CUDA_COLLECTIVES_NCCL_COMM_H_
#define SWITCHYARD_PLUGINS_CUDA_COLLECTIVES_NCCL_COMM_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "collectives/nccl_library.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {

class NcclComm {
 public:
  NcclComm(const NcclLibrary& lib, ncclComm_t comm, int device, int rank,
           int size, std::chrono::milliseconds timeout);
  // Waits for the enqueued work (up to the timeout, then aborts), stops the
  // watchdog, destroys the NCCL communicator.
  ~NcclComm();

  const NcclLibrary& lib() const { return lib_; }
  ncclComm_t get() const { return comm_; }
  int device() const { return device_; }

  // Enqueues with `enqueue(comm)` (which returns the NCCL result) on
  // `stream` under the communicator's lock, then records the watchdog's
  // event. NULL, or the error: the communicator failed earlier, NCCL
  // refused, CUDA failed.
  template <class F>
  sy_error_t* Enqueue(plugin::KernelSite site, const sy_communicator_ref_t& ref,
                      cudaStream_t stream, F&& enqueue) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failed_.empty()) return FailedEarlier(site, ref);
    const ncclResult_t r = enqueue(comm_);
    if (r != ncclSuccess) return NcclFailure(site, ref, r);
    return Watch(site, stream);
  }

 private:
  struct Pending {
    cudaEvent_t event;
    std::chrono::steady_clock::time_point since;
    std::string_view op;  // a static string
  };

  sy_error_t* FailedEarlier(plugin::KernelSite site,
                            const sy_communicator_ref_t& ref);
  sy_error_t* NcclFailure(plugin::KernelSite site,
                          const sy_communicator_ref_t& ref, ncclResult_t r);
  sy_error_t* Watch(plugin::KernelSite site, cudaStream_t stream);  // mu_ held
  void WatchdogLoop();
  void AbortLocked(std::string why);  // mu_ held

  const NcclLibrary& lib_;
  ncclComm_t comm_;
  int device_, rank_, size_;
  std::chrono::milliseconds timeout_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> pending_;         // oldest first
  std::vector<cudaEvent_t> free_events_;
  std::string failed_;                  // why the communicator was aborted
  bool aborted_ = false;
  bool stop_ = false;
  std::thread watchdog_;  // started last
};

extern const sy_collectives_extension_t kCudaCollectivesExtension;

// The kernels of the collective ops, in registration order.
std::span<const plugin::KernelSpec> CollectiveKernels();

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_COLLECTIVES_NCCL_COMM_H_
