// GEMMs through cuBLASLt: the engine under matmul, linear and the plugin's
// fused cuda::linear_gelu. The problem (gpu::GemmProblem) comes from the
// SDK's shared reading of the views (switchyard/gpu/gemm_problem.h).
//
// Note [GEMM mapping]: Switchyard tensors are row-major views with any
// strides; cuBLASLt is column-major. A row-major C[M,N] = A[M,K]·B[K,N] is
// the column-major C^T[N,M] = B^T·A^T, so cuBLASLt's "A" is our B and its
// "B" our A, and no data moves. Each operand matrix is used in place when
// one of its strides is 1 (row- or column-major with a leading dimension);
// otherwise (a sliced last dim, say) it is first copied to a dense
// temporary on the stream. Batch dims go to cuBLASLt's strided batches
// (stride 0 broadcasts); batch dims that do not merge into one stride are
// looped on the host.
//
// Precision: f32 computes in full FP32 (CUBLAS_COMPUTE_32F, no TF32: the
// core op set's f32 tolerance is 1e-5); f64 in full FP64
// (CUBLAS_COMPUTE_64F); f16 and bf16 use tensor cores with f32
// accumulation. Integer matmul is the plugin's own kernel (RunIntGemm).
//
// Note [GEMM variants]: cuBLASLt's heuristic ranks algorithms per problem,
// so a kernel's variants cannot name algorithms up front. Variant k means
// "the k-th algorithm the heuristic returns for this problem" (config: one
// int32); the autotuner times them per shape bucket. Without a variant the
// heuristic's first choice runs. Heuristic results are cached per problem,
// and descriptors per thread and problem (Note [GEMM plans], gemm.cc).
#ifndef SWITCHYARD_PLUGINS_CUDA_KERNELS_GEMM_H_
#define SWITCHYARD_PLUGINS_CUDA_KERNELS_GEMM_H_

#include <cstdint>
#include <string_view>

#include "switchyard/gpu/gemm_problem.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::cuda {

// Number of heuristic variants each GEMM kernel registers.
inline constexpr int kGemmVariants = 4;

// Runs `p` on `stream`, with heuristic choice `variant` (-1: the first).
// Errors name `op`. `stream` must be the plugin's (a cuda::Stream): its
// GEMM workspace is used.
sy_error_t* RunGemm(gpu::Stream& stream, const gpu::GemmProblem& p,
                    int variant, std::string_view op);

// Runs an integer `p` (i32 i64 i8 u8, no epilogue) with the plugin's own
// tiled kernel (gemm_int.cu): products wrap modulo 2^bits, as NumPy's.
sy_error_t* RunIntGemm(const gpu::Stream& stream, const gpu::GemmProblem& p,
                       std::string_view op);

// ---- Helpers in gemm_support.cu (they launch kernels) -------------------

// Copies the strided matrix `m` (batch dims as in the problem, for operand
// `which`) into a dense buffer from cudaMallocAsync on the stream, stored
// in *out_buffer (free with cudaFreeAsync), and rewrites `m` and the batch
// strides to point at it.
sy_error_t* DensifyOperand(const gpu::Stream& stream, gpu::GemmProblem& p,
                           int which, void** out_buffer, std::string_view op);
// Writes the bias (gelu(bias) with `gelu`, the tanh form as cuBLASLt's
// epilogue) into every row of the M×N output of every batch: a product
// with K = 0 and a bias epilogue.
sy_error_t* BiasOutput(const gpu::Stream& stream, const gpu::GemmProblem& p,
                       bool gelu, std::string_view op);
// Writes zeros into the M×N output of every batch (for K = 0).
sy_error_t* ZeroOutput(const gpu::Stream& stream, const gpu::GemmProblem& p,
                       std::string_view op);
// Copies `n` elements of dtype at `src` (stride `stride`) to dense `dst`.
sy_error_t* CopyVector(const gpu::Stream& stream, sy_dtype_t dtype, void* dst,
                       const void* src, int64_t n, int64_t stride,
                       std::string_view op);

}  // namespace sy::cuda

#endif  // SWITCHYARD_PLUGINS_CUDA_KERNELS_GEMM_H_
