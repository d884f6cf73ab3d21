// CUDA C from the fused-kernel IR (Note [Fused-kernel IR], plugin.h): the
// cuda plugin's code generator, compiled at run time by NVRTC
// (nvrtc_compiler.h). Plain C++ with no CUDA headers, so its output can be
// unit-tested anywhere (tests/fusion/cuda_codegen_test.cc), and compiled
// by NVRTC wherever the toolkit is, GPU or not. The generator is
// cuda_codegen.cc (its CUDA spelling of dtypes, values and ops:
// cuda_spelling.h); the row-shape options and launch configurations below
// (DefaultRowShape … LaunchConfigs) are row_options.cc.
//
// Note [CUDA fused kernels]: every shape and stride is a constant of the
// source, so index math folds and a kernel is specialized to its call.
//   - Elementwise kernels walk the domain with a grid-stride loop. Where
//     every operand is contiguous over the domain (or one element), the
//     walk is flat: VEC consecutive elements per step with one 16-byte
//     load or store per operand (VEC = 16 / the widest element), whatever
//     the innermost extent, and the last numel % VEC elements as a scalar
//     tail. Otherwise, where every operand is unit or zero along the
//     innermost dim, the walk is per row with VEC the widest width (16, 8,
//     4 bytes …) that divides the rows and keeps their starts aligned. A
//     second entry point without vector accesses serves operands that are
//     not 16-byte aligned.
//   - Row kernels (reductions): Note [Row kernel shapes]; rows of a
//     length VEC does not divide keep the 16-byte form where every operand
//     read along the row has the same offsets (Note [Shifted rows] in
//     vector_width.h). Reductions
//     combine with warp shuffles, across warps through shared memory, and
//     across a cluster's blocks by pushes into each block's shared memory
//     (Note [Cluster reductions by pushes] in cuda_prelude.cc); every
//     thread gets the result.
//   - Vector stores are one st.global of 16 (8, 4, 2) bytes, elements
//     packed into 32-bit words (sy_store): a store of the vector type is
//     split by NVCC into one store per element after control flow.
//   - Values compute in float (double for f64); an f16 or bf16 value is
//     rounded only where it is cast to 16 bits or stored (Note [16-bit
//     intermediates] in cuda_spelling.cc), through inline PTX (one cvt;
//     bf16's is bit operations before sm_80) — the source includes no
//     header, so NVRTC needs none.
//
// Note [Row kernel shapes]: a row of up to 1024 elements goes to a warp
// (8 rows per block of 256); a longer one to a block, or on sm_90 to a
// thread-block cluster (__cluster_dims__, so a plain launch forms it).
// Inputs that more than one stage reads per element (softmax's x: max,
// sum, output) are kept as they are stored, v-wide, so the row is read
// from memory once: in dynamic shared memory for 16-bit rows and for f32
// rows that a cluster of 256-thread blocks holds (Note [Rows kept in
// shared memory] in cuda_codegen.cc: blocks of up to 256 threads, about 8
// vector steps each, before a cluster of up to 8), else in registers — at
// most 128 bytes per thread and input (32 f32, 64 bf16 values). The rest
// of this note is about rows kept in registers. The thread count follows:
// enough threads that each keeps at most 128 bytes, a block of 128 … 1024
// threads. Past the largest block (DefaultRowShape: 1024 for f32 rows) a
// row spreads over a cluster of up to 8 blocks — only where the kept
// element is 32 bits or wider: measured on the H100 with codegen 5
// (device_run.sh rowshapes, docs/fusion.md "Row kernels"), clusters cost
// register-kept 16-bit rows a third of their bandwidth (bf16 at 262144:
// softmax 0.31 of copy with clusters, 0.50 with one block re-reading its
// row per stage; rms_norm 0.48 and 0.69) but carry f32's (softmax at
// 65536: 0.79 with, 0.53 without), and f32 is best with blocks of 1024
// before the cluster (rms_norm at 65536: 0.92 with 2 × 1024, 0.90 with
// 4 × 512). Where a row needs 8 blocks of 1024 (f32 at 262144), it takes
// 16 blocks of 512 instead (RowDefaults::split_block; sm_90's
// non-portable cluster size, opted in when the kernel loads), so that two
// blocks share an SM and one loads while the other reduces: measured on
// the H200 with codegen 14, softmax and rms_norm at 262144 read 0.91–0.93
// of copy bandwidth, against 0.82 and 0.88–0.89 with 8 × 1024. A row
// more than the largest block or cluster can keep (bf16 beyond 65536, f32
// beyond 262144, f64 beyond 131072), or a long row before sm_90, is read
// again per stage (from L2 while it holds it). Rows with nothing to keep take about 8
// vector accesses per thread and stage. The scalar entry keeps one element
// per register, so it keeps bf16 rows up to 8192 only.
//
// These defaults are launch configuration 0 of a row kernel. With the
// autotuner on (SWITCHYARD_AUTOTUNE=on; Note [Launch configurations] in
// switchyard/plugin/fusion.h) the host times the others LaunchConfigs
// offers for rows longer than a warp's 1024 — the default; the row in
// registers; in shared memory; no cluster; clusters of up to 8 (for
// register-kept 16-bit rows, whose default has none); blocks of at most
// 512 and 256 before a cluster; 64 kept bytes per thread in registers
// (twice the threads, half the registers) — each only where it changes
// the kernel (the same source and shape as an earlier one is dropped),
// and keeps the fastest per kernel and device in the autotune cache. The
// measurements above pick the default; the alternatives are where they were close
// (rms_norm f32 at 65536: 2 × 1024 against 4 × 512) or where another
// GPU's SM count and L2 may tip them. Warp rows, elementwise kernels and
// shapes pinned by SWITCHYARD_CUDA_FUSED_ROWS have one configuration.
// Other clusters of 16 are there to be asked for (cluster=16) and are no
// configuration: the long rows in shared memory over 16 blocks of 256 or
// 512 threads, several rows an SM, measured no faster than the defaults
// on the H200 (docs/fusion.md, "Clusters of 16"). The "cluster 8"
// configuration is the 8 × 1024 kernel where the default splits.
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
  // Row kernels (Note [Row kernel shapes]): the bytes of each kept input a
  // thread holds in registers, at most, and the largest block before a
  // row spreads over a cluster (a power of two, 32 … 1024), and the
  // largest cluster (1: no clusters). 0 for either of the last two: the
  // default for the row's kept dtype (RowDefaults).
  int row_kept_bytes = 128;
  int row_max_block = 0;
  int row_max_cluster = 0;
  // Where block rows keep their kept inputs (Note [Rows kept in shared
  // memory] in cuda_codegen.cc): -1 by the kept dtype and row (16-bit rows
  // and f32 rows that a cluster of 256-thread blocks holds: shared
  // memory), 0 registers, 1 dynamic shared memory — where the block's
  // share of the row fits in row_max_shared bytes (the device's opt-in
  // limit per block, less the block reductions' static buffers; 48 KiB
  // without opting in) with a cluster row's reduction partials, else
  // registers.
  int row_shared = -1;
  int row_max_shared = 48 * 1024;
  // Max-then-sum stage pairs reduce once, online (Note [Online softmax] in
  // online_softmax.h); false (the default): two reductions, as the IR has
  // them, which ran as fast or faster on the H200 at every row length.
  // The other form is a launch configuration for the autotuner.
  bool online_softmax = false;
};

// The default row shape by the size of the widest element a row kernel
// keeps in registers (Note [Row kernel shapes], measured on the H100):
// 16-bit rows take no clusters (a block of up to 1024 threads, re-reading
// the rows it cannot keep); 32-bit rows take blocks of up to 1024 before a
// cluster of up to 8; 64-bit rows (unmeasured) blocks of 512, clusters of 8.
struct RowDefaults {
  int max_block;
  int max_cluster;
  // Where a row needs the largest cluster of blocks of 1024, it takes
  // twice as many blocks of this size instead (a cluster of 16, sm_90's
  // non-portable size), so that two blocks share an SM; 0: never.
  int split_block = 0;
};
RowDefaults DefaultRowShape(int kept_element_bytes);
// The row shape of rows kept in shared memory, whatever the dtype: blocks
// of up to 256 threads before a cluster of up to 8.
RowDefaults SharedRowShape();

// Row-kernel options from "kept=<bytes>,block=<threads>,cluster=<blocks>"
// (any part may be left out, and keeps its value — for block and cluster
// the per-dtype default; a part that is set applies to every dtype;
// SWITCHYARD_CUDA_FUSED_ROWS, docs/fusion.md), ",shared=1" and
// ",online=0": false with *error naming the part that is wrong, and *out
// unchanged. kept: 4 … 1024; block: a power of two, 32 … 1024; cluster:
// 1, 2, 4, 8; shared: 0 or 1; online: 0 or 1.
bool ParseRowOptions(const std::string& text, CodegenOptions* out, std::string* error);

// One launch configuration of a kernel (Note [Row kernel shapes]): its
// name, as the autotuner and graph descriptions show it ("no cluster:
// block 1024"), and the options that generate it.
struct LaunchConfig {
  std::string name;
  CodegenOptions options;
};
inline constexpr int kMaxLaunchConfigs = 8;

// The launch configurations of `kernel` with `base` (the device's options,
// SWITCHYARD_CUDA_FUSED_ROWS applied): `base` itself first, then the
// alternatives whose kernels differ from every earlier one, at most
// kMaxLaunchConfigs in all. Just `base` for kernels without a row longer
// than 1024, before sm_90 for the cluster ones, and when `pinned` (the
// environment chose the shape). An IR GenerateCuda refuses gives `base`
// alone (its compile then says why).
std::vector<LaunchConfig> LaunchConfigs(const sy_fused_kernel_t& kernel,
                                        const CodegenOptions& base, bool pinned);

// The source for `kernel`; false with *error for an IR it cannot handle.
bool GenerateCuda(const sy_fused_kernel_t& kernel, const CodegenOptions& options,
                  GeneratedKernel* out, std::string* error);

// A C identifier from the kernel's name ("sy_fused0_mul_add").
std::string EntryName(const char* name);

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_CUDA_CODEGEN_H_
