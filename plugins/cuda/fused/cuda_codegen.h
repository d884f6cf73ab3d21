// CUDA C from the fused-kernel IR (Note [Fused-kernel IR], plugin.h): the
// cuda plugin's code generator, compiled at run time by NVRTC
// (nvrtc_compiler.h). Plain C++ with no CUDA headers, so its output can be
// unit-tested anywhere (tests/fusion/cuda_codegen_test.cc), and compiled
// by NVRTC wherever the toolkit is, GPU or not.
//
// Note [CUDA fused kernels]: every shape and stride is a constant of the
// source, so index math folds and a kernel is specialized to its call.
//   - Elementwise kernels walk the domain with a grid-stride loop. Where
//     every operand is contiguous or broadcast along the innermost dim (the
//     usual case once the host has merged dims), each thread takes VEC
//     consecutive elements with one 16-byte load or store per operand
//     (VEC = 16 / the widest element); a second entry point without vector
//     accesses serves operands that are not 16-byte aligned.
//   - Row kernels (reductions) give a row to a warp when it is at most 1024
//     elements long (8 rows per block of 256) and to a block otherwise,
//     128 to 1024 threads sized by the row length; each stage walks the row
//     (vectorized the same way), reductions combine with warp shuffles and,
//     across warps, shared memory, and every thread gets the result. When a
//     thread's share of the row is at most 32 elements the inputs a later
//     stage reads again stay in registers, so the row is read from memory
//     once (softmax: max, sum and the output in one read); longer rows are
//     read again per stage (from L2 while it holds them).
//   - Values compute in float (double for f64); f16 and bf16 round after
//     every instruction, through inline PTX and bit operations — the
//     source includes no header, so NVRTC needs none.
//
// Thread-safety: pure function.
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_CODEGEN_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_CODEGEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/plugin.h"

namespace sy::cuda::fusion {

struct LaunchShape {
  std::string entry;  // extern "C" symbol
  int64_t grid = 1;
  int block = 256;
  int smem = 0;  // bytes of dynamic shared memory
  // Blocks per thread-block cluster (the source's __cluster_dims__; the
  // grid is a multiple). 1: no cluster.
  int cluster = 1;
};

struct GeneratedKernel {
  std::string source;
  LaunchShape vector;  // the entry with 16-byte accesses ("" when none)
  LaunchShape scalar;  // the entry that takes any alignment
  // Operands (inputs, then outputs) the vector entry reads or writes with
  // 16-byte accesses: their data + byte_offset must be 16-byte aligned.
  std::vector<int> aligned_operands;
  int vec = 1;  // elements per access in the vector entry
};

struct CodegenOptions {
  int sm_count = 132;  // caps grid-stride grids
  int arch = 90;       // major * 10 + minor: clusters from 90 on
};

// The source for `kernel`; false with *error for an IR it cannot handle.
bool GenerateCuda(const sy_fused_kernel_t& kernel, const CodegenOptions& options,
                  GeneratedKernel* out, std::string* error);

// A C identifier from the kernel's name ("sy_fused0_mul_add").
std::string EntryName(const char* name);

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_CODEGEN_H_
