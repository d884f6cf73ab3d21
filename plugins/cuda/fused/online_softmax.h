// Note [Online softmax]: softmax and log_softmax reach a fused row kernel as
// two reductions in two stages — the row's max m, then the sum of
// exp(x − m) — and a block or cluster row pays a reduction's barriers
// (two cluster barriers and three block barriers) for each. Computed
// online (Milakov and Gimelshein, 2018), each thread takes the max m_t of
// its own elements and the sum s_t of exp(x − m_t) over them without
// waiting, and one reduction combines the pairs: m = max(m_a, m_b),
// s = s_a·exp(m_a − m) + s_b·exp(m_b − m). The row's elements are read from
// where the row is kept, as in the two-stage kernel, and exp runs once per
// element in the sum, as before; only one reduction's barriers are left.
// Warp rows (up to 1024 elements) keep their two reductions: a warp
// reduces with shuffles, no barrier, and the pair's combine (two exps a
// step) cost more than it saved — bf16 softmax at rows of 256 fell from
// 1.03 to 0.86–0.88 of copy bandwidth on the H100, where f32 at 262144
// rose from 0.68–0.69 to 0.76–0.77 (2026-11-28, bench_fusion's row sweep).
// A thread whose own max is −inf (no elements, or all −inf) sums
// exp(x − 0) over them, 0, and its pair combines as (−inf, 0): no
// exp(−inf − (−inf)). NaN and +inf give NaN as the two-stage kernel does.
//
// Since codegen 8 it is a launch configuration, not the default: on the
// H200 the two-stage form ran as fast or faster at every row length (f32
// 16384: 1.00 against 0.93 of copy), the pair's extra exps showing once
// memory time fell 1.4× (docs/fusion.md, "Two stages again by default").
//
// This file finds the pairs in a kernel's IR; the generator
// (cuda_codegen.cc) emits them.
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_ONLINE_SOFTMAX_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_ONLINE_SOFTMAX_H_

#include <vector>

#include "switchyard/plugin.h"

namespace sy::cuda::fusion {

// A REDUCE_MAX of stage s and the REDUCE_SUM of stage s + 1 that reduce
// into one online pair.
struct OnlinePair {
  int max = -1;  // instruction indices
  int sum = -1;
};

// The pairs of `kernel`: stage s's only reduction is REDUCE_MAX over some
// value X (f32 or 16-bit); stage s + 1's only reduction is REDUCE_SUM over
// EXP(SUB(X', max)) where X' computes what X does (the same instructions,
// read again in the later stage), and stage s + 1 does nothing else — no
// store, no row-level instruction, no element instruction outside that
// sum — so no one observes its per-thread values. Row kernels only
// (reduce_ndim 1 or more).
std::vector<OnlinePair> FindOnlinePairs(const sy_fused_kernel_t& kernel);

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_ONLINE_SOFTMAX_H_
