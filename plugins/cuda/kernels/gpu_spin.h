// A kernel that keeps its stream busy for a while, so that work enqueued
// behind it starts only once all of it is enqueued: timing that work with
// events then measures the GPU alone, not the host's enqueue (nvbench's
// "blocking kernel" does the same). conv2d's engine search uses it.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_GPU_SPIN_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_GPU_SPIN_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sy::cuda {

// Enqueues one single-thread block on `stream` that returns after
// `nanoseconds` of the GPU's global timer; returns the launch's status.
cudaError_t LaunchSpin(cudaStream_t stream, int64_t nanoseconds);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_GPU_SPIN_H_
