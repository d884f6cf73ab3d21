#include "switchyard/gpu/row_layout.h"

namespace sy::gpu {
namespace {

// Appends dim d to one side's list, merging it into the previous one when
// that is dense over it for every operand.
void Append(int64_t size, const int64_t (*strides)[SY_MAX_RANK], int d,
            int num_operands, int& ndim, int64_t* shape,
            int64_t (*out)[SY_MAX_RANK]) {
  if (size == 1) return;
  bool merge = ndim > 0;
  for (int k = 0; k < num_operands && merge; ++k) {
    merge = out[k][ndim - 1] == strides[k][d] * size;
  }
  if (merge) {
    shape[ndim - 1] *= size;
    for (int k = 0; k < num_operands; ++k) out[k][ndim - 1] = strides[k][d];
    return;
  }
  shape[ndim] = size;
  for (int k = 0; k < num_operands; ++k) out[k][ndim] = strides[k][d];
  ++ndim;
}

}  // namespace

RowLayout MakeRowLayout(const int64_t* shape, int ndim, const bool* inner,
                        int num_operands,
                        const int64_t (*strides)[SY_MAX_RANK]) {
  RowLayout l;
  l.num_operands = num_operands;
  for (int d = 0; d < ndim; ++d) {
    if (inner[d]) {
      l.row_len *= shape[d];
      Append(shape[d], strides, d, num_operands, l.inner_ndim, l.inner_shape,
             l.inner_stride);
    } else {
      l.rows *= shape[d];
      Append(shape[d], strides, d, num_operands, l.outer_ndim, l.outer_shape,
             l.outer_stride);
    }
  }
  return l;
}

}  // namespace sy::gpu
