// A direct conv2d kernel of the plugin's own (conv2d.cc): one thread per
// output element, summing C/groups × kH × kW products (in double for f64,
// float otherwise) onto the bias, then ReLU when asked. It runs f64, which
// cuDNN's graph API has no engines for (docs/cuda.md), zero input
// channels, and any problem no cuDNN engine takes. Plain and exact rather
// than fast: any strides for every operand (no packing), groups, padding,
// dilation.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_DIRECT_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_DIRECT_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sy::cuda {

struct DirectConvArgs {
  int32_t dtype = 0;  // sy_dtype_t: f32 f64 f16 bf16
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;  // NULL: none
  void* y = nullptr;
  int64_t x_shape[4] = {}, w_shape[4] = {}, y_shape[4] = {};  // N C H W
  int64_t x_strides[4] = {}, w_strides[4] = {}, y_strides[4] = {};
  int64_t bias_stride = 1;
  int64_t stride[2] = {}, padding[2] = {}, dilation[2] = {};
  int64_t groups = 1;
  bool relu = false;
};

cudaError_t LaunchDirectConv2d(const DirectConvArgs& args, cudaStream_t stream);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_DIRECT_H_
