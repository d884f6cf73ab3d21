// Tensor views as oneDNN memory: descriptors built from the views' own
// strides, and the few cases oneDNN cannot take as they are.
//
// oneDNN's plain memory descriptors take any non-negative strides, so
// transposed, sliced and offset views are passed as they are (oneDNN picks
// a JIT kernel for the layouts it has one for and its reference kernel
// otherwise). Two things are adjusted:
//   - rank 0 becomes [1] (oneDNN has no rank-0 memory);
//   - a stride of 0 on a dimension of size > 1 (a broadcast view from
//     `expand`, or an elementwise op's broadcast input) is not a layout
//     oneDNN supports: where the primitive broadcasts by itself (binary
//     src1, matmul batch dims, post-op operands) the dimension becomes 1,
//     otherwise the view is copied densely into scratch memory first.
// Dimensions of size 1 get the stride a dense layout would have, so that a
// contiguous view whose unit dims carry odd strides is still seen as dense.
//
// Thread-safety: all functions are; Scratch is per call.
#ifndef SWITCHYARD_PLUGINS_ONEDNN_MEMORY_H_
#define SWITCHYARD_PLUGINS_ONEDNN_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "switchyard/plugin.h"

namespace sy::onednn {

using dt = dnnl::memory::data_type;

// f32 → dt::f32, bf16 → dt::bf16; dt::undef otherwise.
dt DnnlType(sy_dtype_t dtype);

// Temporary host buffers of one kernel call, 64-byte aligned, freed when
// the Scratch goes away.
class Scratch {
 public:
  void* Allocate(size_t bytes);

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  std::vector<std::unique_ptr<void, Free>> blocks_;
};

// One tensor as oneDNN sees it: rank >= 1.
struct Operand {
  dnnl::memory::dims dims;
  dnnl::memory::dims strides;
  dt type = dt::undef;
  void* data = nullptr;

  int rank() const { return static_cast<int>(dims.size()); }
  dnnl::memory::desc desc() const { return {dims, type, strides}; }
  // A memory object over `data` on the plugin's engine.
  dnnl::memory memory() const;
  // Same dims as `desc`, dense row-major strides.
  bool IsDense() const;
};

// How Input treats a stride of 0 on a dimension of size > 1.
enum class ZeroStride {
  kCopy,       // copy the view densely into scratch
  kBroadcast,  // make the dimension 1: the primitive broadcasts it
};

// `view` (an input) as an operand; see the top of the file.
Operand Input(const sy_tensor_view_t& view, Scratch& scratch,
              ZeroStride zero_stride = ZeroStride::kCopy);

// `view` (an output: never stride 0 on a dim > 1, never aliasing an input).
Operand Output(const sy_tensor_view_t& view);

// `op` with a dimension of size 1 inserted before index `pos` (0..rank).
Operand Unsqueeze(const Operand& op, int pos);

// Prepends size-1 dimensions up to `rank`.
Operand PadLeading(const Operand& op, int rank);

// Merges dims [0, rank - keep) into one when their strides allow it
// (returns false and leaves *out alone otherwise).
bool CollapseLeading(const Operand& op, int keep, Operand* out);

// The same operand with dense row-major strides, in new scratch memory,
// holding a copy of op's elements.
Operand DenseCopy(const Operand& op, Scratch& scratch);

// Executes `primitive` on the thread's stream and waits for it.
void Execute(const dnnl::primitive& primitive,
             const std::unordered_map<int, dnnl::memory>& args);

// Copies src into dst (equal dims and types; any layouts).
void Reorder(const dnnl::memory& src, const dnnl::memory& dst);

}  // namespace sy::onednn

#endif  // SWITCHYARD_PLUGINS_ONEDNN_MEMORY_H_
