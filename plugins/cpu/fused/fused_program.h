// The cpu plugin's fused kernels: a tiled evaluator over the fused-kernel
// IR (Note [Fused-kernel IR] in switchyard/plugin.h).
//
// Note [Tiled evaluator]: compiling turns the IR into a Program — each
// instruction with the array function it runs, every per-element value
// given a tile buffer by a linear scan over its stage (buffers are reused
// once a value is dead), per-row values and constants given buffers of
// their own that are filled once per row or once per thread. Running walks
// the domain in tiles of kTile elements along its innermost dim and runs
// the program one instruction at a time over a whole tile: each step is a
// simple loop over L1-resident arrays (vectorized by the compiler, or
// glibc's libmvec for exp/tanh/…, as the plugin's own kernels), so a chain
// of 8 ops reads its inputs and writes its outputs once instead of 8 times.
// A load of a contiguous input of the compute type reads it in place.
// Row kernels run a row at a time (rows split over threads), one stage
// after another; reductions accumulate tile by tile (in double for sums,
// as the plugin's reduction kernels do).
//
// Generated code (C compiled at run time and dlopened) was the other
// option: it would remove the per-instruction loop overhead (~2 %, the
// tiles are 1024 elements) but needs a compiler on the user's machine and
// costs ~100 ms per kernel. docs/fusion.md has the measurement.
//
// Values compute in float (f32, f16, bf16, bool, i8, u8) or double (f64,
// i32, i64); f16 and bf16 results are rounded to their dtype after every
// instruction, as unfused kernels round every op's output.
//
// Thread-safety: a Program is immutable; Run may be called from several
// threads at once.
#ifndef SWITCHYARD_PLUGINS_CPU_FUSED_FUSED_PROGRAM_H_
#define SWITCHYARD_PLUGINS_CPU_FUSED_FUSED_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "switchyard/plugin.h"

namespace sy::cpu::fusion {

// Elements per tile: 1024 floats (4 KiB) per buffer keeps a chain's live
// buffers in L1/L2 (measured in docs/fusion.md). The default and the
// largest: the tile buffers are sized for it. A kernel may run with a
// smaller tile (its launch configuration, Note [Launch configurations] in
// switchyard/plugin/fusion.h): kTileConfigs lists them, the default first.
inline constexpr int64_t kTile = 1024;
inline constexpr int64_t kTileConfigs[] = {1024, 512, 256};

enum class Kind : uint8_t { kF32, kF64 };
Kind KindOf(sy_dtype_t dtype);

struct Operand {
  sy_dtype_t dtype = 0;
  int64_t strides[SY_MAX_RANK] = {};
};

struct Step {
  int32_t op = 0;
  sy_dtype_t dtype = 0;
  Kind kind = Kind::kF32;
  int32_t a = -1, b = -1, c = -1;
  int32_t index = 0;
  int32_t stage = 0;
  bool per_row = false;  // a per-row instruction (not a REDUCE)
  double imm = 0;
  int32_t slot = -1;     // per element: its tile buffer
};

struct Program {
  std::string name;
  int ndim = 1;         // >= 1 (a rank-0 domain runs as [1])
  int reduce_ndim = 0;
  int64_t shape[SY_MAX_RANK] = {};
  int64_t rows = 1;
  int64_t row_length = 1;
  int64_t tile = kTile;  // elements per tile, one of kTileConfigs
  std::vector<Operand> inputs, outputs;
  std::vector<Step> steps;
  int num_stages = 1;
  int num_slots = 0;
  // Per stage: the instructions in order, split as they run.
  std::vector<std::vector<int>> row_steps, elem_steps;
  // Per-row values (and per-element constants) some per-element step
  // reads: each gets a buffer filled with its value.
  std::vector<int> broadcast_values;  // instruction indices
  std::vector<int> broadcast_slot;    // by instruction: its buffer or -1
  // Per stage: the per-row values and reductions its per-element steps read
  // (filled into their buffers at the stage's start, once per row).
  std::vector<std::vector<int>> stage_fills;
};

// Builds a Program; an error (as text) for an IR it cannot run.
std::unique_ptr<Program> CompileProgram(const sy_fused_kernel_t& kernel,
                                        std::string* error);

// Runs it on views laid over its domain (launch_fused's).
void RunProgram(const Program& program, const sy_tensor_view_t* inputs,
                const sy_tensor_view_t* outputs);

}  // namespace sy::cpu::fusion

#endif  // SWITCHYARD_PLUGINS_CPU_FUSED_FUSED_PROGRAM_H_
