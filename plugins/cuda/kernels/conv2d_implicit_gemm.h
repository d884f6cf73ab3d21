// The plugin's own tensor-core convolution for 16-bit problems with few
// input channels and a short reduction (conv2d_implicit_gemm.cu): C ≤ 16,
// C·kH·kW ≤ 256, groups 1 — ResNet's stem (3→64, 7×7, stride 2) above
// all, where every cuDNN 9 engine that accumulates in f32 runs at about
// half the speed of the reduced-precision engines PyTorch picks
// (docs/cuda.md, "Convolution's own kernel").
//
// Note [Implicit GEMM conv]: an implicit GEMM whose M is output pixels, N
// output channels and K the C·kH·kW products, f32 accumulation, bias and
// ReLU on the accumulator, one rounding to the output dtype — the
// numerics the plugin holds its cuDNN engines to. A thread block owns a
// channel tile of 64 and walks a run of consecutive tiles, each 128
// output pixels of one output row (persistent blocks: the weight tile is
// loaded once per block, and neighbouring rows' input is still in L1):
// it stages the input patch those pixels read (zeros where
// padding falls) in shared memory, by cp.async in 16-byte chunks where
// x's rows are whole chunks, builds the A fragments from the patch
// through a table of each k's offset (no im2col buffer), reads B with
// ldmatrix from the weight tile, runs mma.sync m16n8k16, and writes the
// tile through shared memory with 16-byte stores in the output's layout.
// K is padded to a multiple of 16 with zero weights. conv2d_plans.cc
// times it beside cuDNN's engines in the measured pick, and the
// conv2d variant "implicit_gemm" asks for it outright. On the H200 it
// wins the stem in f16 and bf16, both layouts (docs/performance.md,
// 2026-11-29), which lists the variants measured slower and not kept.
//
// Operands are dense in one layout (NCHW, or NHWC with the weight KRSC),
// as conv2d.cc lays them out for cuDNN; the bias is dense.
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_IMPLICIT_GEMM_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_IMPLICIT_GEMM_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace sy::cuda {

struct ImplicitGemmConvArgs {
  int32_t dtype = 0;  // sy_dtype_t: f16 or bf16
  bool nhwc = false;  // every operand channels-last (weight K R S C)
  bool relu = false;
  const void* x = nullptr;
  const void* w = nullptr;
  const void* bias = nullptr;  // NULL: none
  void* y = nullptr;
  int64_t x_shape[4] = {};  // N C H W
  int64_t w_shape[4] = {};  // K C kH kW
  int64_t y_shape[4] = {};  // N K OH OW
  int64_t stride[2] = {}, padding[2] = {}, dilation[2] = {};
};

// Whether the kernel takes the problem (dtype, groups 1, C ≤ 16,
// C·kH·kW ≤ 256, sizes within 32-bit indexing, the input patch within
// shared memory).
bool ImplicitGemmConvTakes(const ImplicitGemmConvArgs& args);

// Enqueues the convolution on `stream`; cudaErrorInvalidValue for a
// problem the kernel does not take.
cudaError_t LaunchImplicitGemmConv(const ImplicitGemmConvArgs& args,
                                   cudaStream_t stream);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_CONV2D_IMPLICIT_GEMM_H_
