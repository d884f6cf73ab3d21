// Scratch memory for one kernel call: the host's call workspace (ABI 1.1,
// host->kernel_workspace through plugin::Workspace: the core's caching
// allocator, stream-ordered, returned when the kernel returns), or, from a
// host without it (a 1.0 host, a test's own table), stream-ordered
// cudaMallocAsync blocks freed when the Scratch goes out of scope. Either
// way a block is valid for the work the call enqueues on its stream.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_SCRATCH_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_SCRATCH_H_

#include <cuda_runtime_api.h>

#include <string_view>
#include <vector>

#include "cuda_util.h"
#include "switchyard/plugin.hpp"

namespace sy::cuda {

class Scratch {
 public:
  Scratch(const sy_kernel_call_t* call, cudaStream_t stream)
      : call_(call), stream_(stream) {}
  ~Scratch() {
    for (void* b : owned_) cudaFreeAsync(b, stream_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  // `bytes` of device memory (NULL for 0), 256-byte aligned. Errors name
  // `op` and `what` ("allocating the conv2d workspace").
  sy_error_t* Get(size_t bytes, std::string_view op, std::string_view what,
                  void** out) {
    *out = nullptr;
    if (bytes == 0) return nullptr;
    if (call_ != nullptr && SY_STRUCT_HAS(call_, sy_kernel_call_t, host_call) &&
        call_->host_call != nullptr) {
      return plugin::Workspace(call_, bytes, out);
    }
    SY_PLUGIN_RETURN_IF_ERROR(CudaError(cudaMallocAsync(out, bytes, stream_),
                                        plugin::StrCat("cuda plugin: ", op),
                                        what));
    owned_.push_back(*out);
    return nullptr;
  }

 private:
  const sy_kernel_call_t* call_;
  cudaStream_t stream_;
  std::vector<void*> owned_;
};

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_SCRATCH_H_
