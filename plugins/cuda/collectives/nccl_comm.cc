// NCCL communicators: made from the host's store, watched (Note [NCCL
// watchdog] in nccl_comm.h), destroyed after their work.
#include "collectives/nccl_comm.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

#include "cuda_util.h"
#include "switchyard/gpu/kernel_util.h"

namespace sy::cuda {
namespace {

using ::sy::plugin::StrCat;

constexpr std::string_view kWhere = "cuda plugin: nccl";
constexpr auto kPoll = std::chrono::milliseconds(2);

// Makes `device` current for the scope, and restores the caller's.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    cudaGetDevice(&saved_);
    cudaSetDevice(device);
  }
  ~DeviceScope() { cudaSetDevice(saved_); }

 private:
  int saved_ = 0;
};

// NVLink multicast (NVLS) stays off unless the user turns it on: on shared
// hosts a program that uses it can put the GPUs out of service for others
// (docs/distributed.md#nvlink-multicast). NCCL reads the variable at its
// first communicator; set once, never overwriting the user's value.
void KeepMulticastOff() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0); });
}

sy_error_t* CommCreate(void*, sy_comm_create_args_t* args) {
  return plugin::Guard(kWhere, [&]() -> sy_error_t* {
    KeepMulticastOff();
    std::string why_not;
    const NcclLibrary* lib = NcclLibrary::Get(&why_not);
    if (lib == nullptr) {
      return plugin::MakeError(
          SY_STATUS_FAILED_PRECONDITION,
          StrCat(kWhere, ": ", why_not, "; install NCCL 2 (NVIDIA's libnccl2 "
                 "package, the CUDA toolkit's, or PyTorch's nvidia-nccl wheel) "
                 "and put libnccl.so.2 on the library path, or name it in "
                 "SWITCHYARD_NCCL_LIBRARY"));
    }
    // Rank 0 makes the id; everyone reads it from the store.
    ncclUniqueId id{};
    std::string bytes;
    if (args->rank == 0) {
      if (ncclResult_t r = lib->ncclGetUniqueId(&id); r != ncclSuccess) {
        return plugin::MakeError(SY_STATUS_UNAVAILABLE,
                                 StrCat(kWhere, ": ", NcclErrorText(*lib, r,
                                        "ncclGetUniqueId failed")));
      }
      SY_PLUGIN_RETURN_IF_ERROR(plugin::StoreSet(
          args->store, "nccl_unique_id",
          std::string_view(reinterpret_cast<const char*>(&id), sizeof id)));
    } else {
      SY_PLUGIN_RETURN_IF_ERROR(plugin::StoreGet(args->store, "nccl_unique_id", bytes));
      if (bytes.size() != sizeof id) {
        return plugin::MakeError(
            SY_STATUS_INTERNAL,
            StrCat(kWhere, ": rank 0 published an id of ", bytes.size(),
                   " bytes, not ", sizeof id, "; do all ranks run the same "
                   "NCCL?"));
      }
      std::memcpy(&id, bytes.data(), sizeof id);
    }
    ncclComm_t comm = nullptr;
    {
      DeviceScope scope(args->device);
      // Blocking init: every rank has arrived (the host's rendezvous), so
      // this returns once NCCL has connected them.
      if (ncclResult_t r = lib->ncclCommInitRank(&comm, args->world_size, id,
                                                 args->rank);
          r != ncclSuccess) {
        return plugin::MakeError(
            SY_STATUS_UNAVAILABLE,
            StrCat(kWhere, ": rank ", args->rank, " of ", args->world_size,
                   " on cuda:", args->device, ": ",
                   NcclErrorText(*lib, r, "ncclCommInitRank failed"),
                   "; check that every rank runs on its own GPU and that the "
                   "hosts reach each other (NCCL_SOCKET_IFNAME, NCCL_DEBUG=INFO)"));
      }
    }
    args->out_handle = new NcclComm(*lib, comm, args->device, args->rank,
                                    args->world_size,
                                    std::chrono::milliseconds(args->timeout_ms));
    return nullptr;
  });
}

void CommDestroy(void*, const sy_comm_destroy_args_t* args) {
  if (args != nullptr) delete static_cast<NcclComm*>(args->handle);
}

}  // namespace

NcclComm::NcclComm(const NcclLibrary& lib, ncclComm_t comm, int device,
                   int rank, int size, std::chrono::milliseconds timeout)
    : lib_(lib), comm_(comm), device_(device), rank_(rank), size_(size),
      timeout_(timeout) {
  watchdog_ = std::thread([this] { WatchdogLoop(); });
}

NcclComm::~NcclComm() {
  {
    // comm_destroy waits for the work enqueued (plugin.h); the watchdog
    // bounds the wait by aborting what does not finish.
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return pending_.empty() || aborted_; });
    stop_ = true;
  }
  cv_.notify_all();
  watchdog_.join();
  DeviceScope scope(device_);
  if (!aborted_) lib_.ncclCommDestroy(comm_);
  for (cudaEvent_t e : free_events_) cudaEventDestroy(e);
  for (const Pending& p : pending_) cudaEventDestroy(p.event);
}

sy_error_t* NcclComm::FailedEarlier(plugin::KernelSite site,
                                    const sy_communicator_ref_t& ref) {
  return plugin::MakeError(
      SY_STATUS_FAILED_PRECONDITION,
      StrCat(site.plugin, ": ", plugin::DescribeCall(site, ref, "nccl"),
             ": the communicator failed earlier (", failed_, "); destroy it "
             "and make a new one on every rank"));
}

sy_error_t* NcclComm::NcclFailure(plugin::KernelSite site,
                                  const sy_communicator_ref_t& ref,
                                  ncclResult_t r) {
  const sy_status_code_t code =
      r == ncclInvalidArgument || r == ncclInvalidUsage
          ? SY_STATUS_INVALID_ARGUMENT
          : SY_STATUS_UNAVAILABLE;
  return plugin::EngineError(code, site, ref, "nccl",
                             NcclErrorText(lib_, r, "NCCL refused the call"));
}

sy_error_t* NcclComm::Watch(plugin::KernelSite site, cudaStream_t stream) {
  cudaEvent_t event = nullptr;
  if (!free_events_.empty()) {
    event = free_events_.back();
    free_events_.pop_back();
  } else if (cudaError_t e = cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
             e != cudaSuccess) {
    return CudaError(e, site.op, "cudaEventCreate for the NCCL watchdog failed");
  }
  if (cudaError_t e = cudaEventRecord(event, stream); e != cudaSuccess) {
    free_events_.push_back(event);
    return CudaError(e, site.op, "cudaEventRecord for the NCCL watchdog failed");
  }
  pending_.push_back({event, std::chrono::steady_clock::now(), site.op});
  if (pending_.size() == 1) cv_.notify_all();
  return nullptr;
}

void NcclComm::AbortLocked(std::string why) {
  failed_ = std::move(why);
  aborted_ = true;
  {
    DeviceScope scope(device_);
    lib_.ncclCommAbort(comm_);  // ends this rank's NCCL kernels
  }
  for (const Pending& p : pending_) free_events_.push_back(p.event);
  pending_.clear();
  cv_.notify_all();
}

void NcclComm::WatchdogLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (pending_.empty() || aborted_) {
      cv_.wait(lock, [&] { return stop_ || (!pending_.empty() && !aborted_); });
      continue;
    }
    const Pending& oldest = pending_.front();
    const cudaError_t state = cudaEventQuery(oldest.event);
    if (state == cudaSuccess) {
      free_events_.push_back(oldest.event);
      pending_.pop_front();
      if (pending_.empty()) cv_.notify_all();  // a destructor may wait
      continue;
    }
    ncclResult_t async = ncclSuccess;
    lib_.ncclCommGetAsyncError(comm_, &async);
    if (async != ncclSuccess && async != ncclInProgress) {
      AbortLocked(NcclErrorText(lib_, async, StrCat(oldest.op, " failed in NCCL")));
      continue;
    }
    if (state != cudaErrorNotReady) {
      AbortLocked(StrCat(oldest.op, " failed on the GPU (", cudaGetErrorName(state),
                         ")"));
      continue;
    }
    if (std::chrono::steady_clock::now() - oldest.since > timeout_) {
      AbortLocked(StrCat(oldest.op, " did not finish within ", timeout_.count(),
                         " ms on rank ", rank_, " of ", size_, "; a peer may "
                         "have died, or called another collective or shape; "
                         "the communicator was aborted"));
      continue;
    }
    cv_.wait_for(lock, kPoll);
  }
}

const sy_collectives_extension_t kCudaCollectivesExtension = {
    .base = {.struct_size = sizeof(sy_collectives_extension_t),
             .type = SY_EXTENSION_COLLECTIVES,
             .reserved = 0,
             .next = nullptr},
    .device_type = "cuda",
    .engine = "nccl",
    .comm_create = CommCreate,
    .comm_destroy = CommDestroy,
    .self = nullptr,
};

}  // namespace sy::cuda
