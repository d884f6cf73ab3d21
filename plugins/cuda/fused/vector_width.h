// How wide a fused kernel's memory accesses are: 16 bytes of the widest
// operand read or written along the innermost dim where the layouts allow
// it, else narrower, else one element (the scalar entry). The CUDA code
// generator (cuda_codegen.cc) plans its vector entry with these.
//
// Note [Shifted rows]: where the row length is not a multiple of VEC
// (GPT-2's vocabulary of 50,257), or a row's step is not, rows start at
// every alignment, and the vector form (16-byte accesses) used to be
// refused for the whole kernel: the scalar form read the row one element
// at a time, at about 0.6 of what the vector form reads. A row kernel
// whose operands read along the row all have the same offsets (the same
// strides over the kept dims: softmax's x and output) instead splits
// each row into a head (the elements before its first 16-byte aligned
// one, sy_head < VEC), whole aligned VEC-wide steps (sy_steps), and a
// tail (< VEC). The steps run exactly as an aligned row's do — the same
// unguarded loop (Note [Unguarded row steps]) and kept slots, one fewer
// step at most — and the head's and tail's elements (sy_edges < 2·VEC)
// go one a lane to the first lanes, each kept in one register (ce<k>).
// A first build that shifted every step instead, reading a partial
// first and last step under a per-step branch, was slower than the
// scalar form (f32 softmax at 50,257: 393 µs against 259 µs on the
// H200): the branch ahead of every load is what Note [Unguarded row
// steps] removed. The launch takes the vector entry only where each
// operand read along the row has a 16-byte aligned base, so the head is
// the same for all of them. An operand read along the row at other
// offsets (rms_norm's weight, one row for all rows) keeps the kernel
// scalar.
#ifndef SWITCHYARD_PLUGINS_CUDA_FUSED_VECTOR_WIDTH_H_
#define SWITCHYARD_PLUGINS_CUDA_FUSED_VECTOR_WIDTH_H_

#include <cstdint>
#include <vector>

#include "switchyard/plugin/fused_codegen.hpp"

namespace sy::cuda::fusion {

struct VectorPlan {
  // Elements per access of the vector entry; 1: there is none.
  int vec = 1;
  // Rows of a row kernel start unaligned: Note [Shifted rows].
  bool shifted = false;
  // With `shifted`: the operand whose row offset gives each row's head.
  int shift_operand = -1;
  // The operands the vector entry accesses vec-wide: the launch takes it
  // only where each of their bases is 16-byte aligned.
  std::vector<int> aligned;
};

// The vector entry of a kernel over `shape` (rank `ndim`) with
// `reduce_ndim` reduced trailing dims: every operand is unit or zero along
// the innermost dim; VEC divides that dim and every other step of a unit
// operand keeps the access aligned — or, for a row kernel of one reduced
// dim whose unit operands share their row offsets, the rows shift.
VectorPlan PlanVectorWidth(const std::vector<::sy::plugin::fused::OperandPlan>& operands,
                           const int64_t* shape, int ndim, int reduce_ndim);

// The width of a flat walk over the domain (elementwise kernels): 16 bytes
// of the widest operand when every operand is contiguous over the domain
// or one element for all of it; 1 otherwise.
int FlatVectorWidth(const std::vector<::sy::plugin::fused::OperandPlan>& operands,
                    const int64_t* shape, int ndim);

}  // namespace sy::cuda::fusion

#endif  // SWITCHYARD_PLUGINS_CUDA_FUSED_VECTOR_WIDTH_H_
