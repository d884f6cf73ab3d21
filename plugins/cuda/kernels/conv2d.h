// conv2d (NCHW) on cuda through cuDNN 9 (cudnn_library.h), for f32, f16
// and bf16, each with and without bias. Registered only when cuDNN loaded
// (cuda_plugin.cc decides and logs why not).
//
// Numerics: f32 runs in full FP32 (CUDNN_FMA_MATH, no TF32), like the
// plugin's GEMMs; f16/bf16 on tensor cores (CUDNN_TENSOR_OP_MATH) with f32
// accumulation (compute type CUDNN_DATA_FLOAT). The bias is added after
// the convolution (cudnnAddTensor), so f16/bf16 outputs round twice.
//
// Layouts: inputs and output with any strides. Packed NCHW views are used
// in place; anything else (sliced, permuted, broadcast) is first copied to
// a packed NCHW temporary (strided_copy4d.h), and a non-packed output is
// computed into a temporary and scattered back the same way. cuDNN's own
// strided descriptors are not used for this: its algorithms accept only
// some stride patterns, and none take the zero strides of broadcasts.
//
// Algorithm: timed once per problem (device, dtype, shapes, attributes)
// with cudnnFindConvolutionForwardAlgorithmEx on the first call's own
// buffers, with up to 256 MiB of search workspace, and cached; the fastest
// algorithm whose workspace can be allocated and that runs is used. Why a
// search rather than cuDNN's heuristic (cudnnGetConvolutionForwardAlgorithm_v7,
// kept as the fallback when the search fails): on an H100 the search's
// choice ran ResNet-50's 1x1 256->64 convolution 3.5-4x faster than the
// heuristic's first choice (docs/cuda.md#cudnn). The price: the first call
// of each shape blocks the host for the search (milliseconds), and the
// choice may differ between runs when two algorithms time alike.
//
// Thread safety: kernels are stateless sy_kernel_fns; the algorithm cache
// is mutex-guarded and handles are leased per call.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_H_

#include <span>

#include "switchyard/plugin.hpp"

namespace sy::cuda {

// The conv2d kernels; call only after CudnnLibrary::Get() succeeded.
std::span<const plugin::KernelSpec> Conv2dKernels();

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_H_
