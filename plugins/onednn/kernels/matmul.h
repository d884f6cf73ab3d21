// The operand layouts of matmul and linear as oneDNN's matmul primitive
// takes them, shared by the plain kernels (matmul.cc) and the fused ones
// (fused_ops.cc), which add post-ops.
//
// oneDNN's matmul is src [..., M, K] × weights [..., K, N] → dst [..., M, N]
// with equal ranks, batch dims that broadcast (size 1 against the dst's),
// and any strides; weights given as a transposed view ([N, K] memory read
// as [K, N]) cost nothing. A stride-0 batch dim becomes a broadcast size-1
// dim; stride 0 in the M/K/N dims makes a dense copy.
#ifndef SWITCHYARD_PLUGINS_ONEDNN_KERNELS_MATMUL_H_
#define SWITCHYARD_PLUGINS_ONEDNN_KERNELS_MATMUL_H_

#include <optional>
#include <unordered_map>

#include "dnnl.hpp"
#include "memory.h"
#include "switchyard/plugin.h"

namespace sy::onednn {

struct MatmulOperands {
  Operand src, weights, dst;
  std::optional<Operand> bias;  // [1, …, 1, N]
  // How the core's output shape maps to dst: for matmul's 1-D operands,
  // the unit dims inserted into the output (AlignToDst repeats them).
  bool unsqueeze_m = false;
  bool unsqueeze_n = false;
  int out_rank = 0;
};

// NumPy matmul of `a` and `b` into `out` (the shape function's result).
MatmulOperands MatmulLayout(const sy_tensor_view_t& a,
                            const sy_tensor_view_t& b,
                            const sy_tensor_view_t& out, Scratch& scratch);

// linear: x [..., in] × weight [out, in]ᵀ (+ bias [out]) into `out`.
MatmulOperands LinearLayout(const sy_tensor_view_t& x,
                            const sy_tensor_view_t& weight,
                            const sy_tensor_view_t* bias,
                            const sy_tensor_view_t& out, Scratch& scratch);

// `c`, which broadcasts to the core's output shape, as an operand of dst's
// rank with size-1 dims where it broadcasts (a binary post-op's src1).
Operand AlignToDst(const sy_tensor_view_t& c, const MatmulOperands& layout,
                   Scratch& scratch);

// Runs the matmul primitive with `attr` (post-ops); `extra` holds the
// post-ops' arguments.
void RunMatmul(const MatmulOperands& layout,
               const dnnl::primitive_attr& attr = {},
               const std::unordered_map<int, dnnl::memory>& extra = {});

}  // namespace sy::onednn

#endif  // SWITCHYARD_PLUGINS_ONEDNN_KERNELS_MATMUL_H_
