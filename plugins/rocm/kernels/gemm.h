// The rocm plugin's own GEMM, the engine under matmul and linear: Debian 12
// packages neither rocBLAS nor hipBLAS (ROCm 5.2 there is the HIP runtime
// and compiler only), and the plugin must build from Debian alone.
//
// Note [ROCm GEMM]: the problem is the SDK's gpu::GemmProblem (shared
// with the cuda plugin: any strides, batch dims that broadcast, an
// optional bias), run in place — no operand is copied, whatever its
// layout. Two kernels, both f32 f16 bf16 with f32 accumulation and one
// rounding on the way out:
//   - kMfma: the matrix cores of CDNA2 (gfx90a, MI200) through
//     __builtin_amdgcn_mfma_f32_32x32x8f16 / _32x32x8bf16_1k / _32x32x2f32:
//     a 256-thread block (4 wave64s, 2×2) computes a 128×128 tile of C, each
//     wave 2×2 MFMA 32×32 blocks; A and B pass through LDS in K-steps of 16.
//     f32 uses full-precision FP32 MFMA (no reduced-precision xf32), as the
//     op set's f32 tolerance requires.
//   - kTiled: portable to every target (RDNA gfx1030 has no MFMA): a
//     256-thread block computes a 64×64 tile from LDS in K-steps of 16, each
//     thread a 4×4 micro-tile with FMA.
// Each block loads its A and B tiles with the thread-to-element mapping
// that makes the operand's unit-stride dim the fast one (coalesced for
// row- and column-major alike). Batches run on the grid's z dimension.
//
// Variants (Note [GEMM variants] of the cuda plugin, here by kernel):
// "tiled" (0) and "mfma" (1); the autotuner may time both. Without a
// variant, and for "mfma" on a GPU without matrix cores, the device
// decides: kMfma on gfx90a, kTiled elsewhere.
//
// Not yet run on AMD hardware (docs/rocm.md): the MFMA operand and result
// layouts follow AMD's documented lane mappings for these instructions;
// the op harness's matmul/linear cases on a gfx90a are what confirm them.
#ifndef SWITCHYARD_PLUGINS_ROCM_KERNELS_GEMM_H_
#define SWITCHYARD_PLUGINS_ROCM_KERNELS_GEMM_H_

#include <string_view>

#include "switchyard/gpu/gemm_problem.h"
#include "switchyard/gpu/target.h"
#include "switchyard/plugin.h"

namespace sy::rocm {

enum class GemmKernel { kTiled = 0, kMfma = 1 };
inline constexpr int kGemmVariants = 2;

// Runs `p` on `stream` with the kernel variant `variant` asks for (-1: the
// device's best; see above). Errors name `op`: INVALID_ARGUMENT when the
// operands do not chain, UNIMPLEMENTED for a dtype other than f32 f16
// bf16, the launch's error otherwise.
sy_error_t* RunGemm(const gpu::Stream& stream, const gpu::GemmProblem& p,
                    int variant, std::string_view op);

}  // namespace sy::rocm

#endif  // SWITCHYARD_PLUGINS_ROCM_KERNELS_GEMM_H_
