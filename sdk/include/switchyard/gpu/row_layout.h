// Row layouts: how reductions and normalizations see a tensor as rows.
//
// A row op splits the dims of x into *outer* dims (one row per index) and
// *inner* dims (the elements of a row: the reduced dims, the softmax dim,
// the normalized trailing dims). Up to kRowOperands operands (x, the
// output, weight, bias) address the same (row, element) pairs through their
// own strides; stride 0 broadcasts (weight along rows, a reduction's output
// along the row). Adjacent dims that are dense for every operand are
// merged, so the usual contiguous case has one outer and one inner dim and
// a row's elements at unit stride.
#ifndef SWITCHYARD_GPU_ROW_LAYOUT_H_
#define SWITCHYARD_GPU_ROW_LAYOUT_H_

#include <cstdint>

#include "switchyard/plugin.h"

#if defined(__CUDACC__) || defined(__HIPCC__)
#define SY_GPU_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define SY_GPU_HOST_DEVICE inline
#endif

namespace sy::gpu {

inline constexpr int kRowOperands = 4;

struct RowLayout {
  int num_operands = 0;
  int outer_ndim = 0;
  int inner_ndim = 0;
  int64_t rows = 1;     // product of the outer dims
  int64_t row_len = 1;  // product of the inner dims
  int64_t outer_shape[SY_MAX_RANK] = {};
  int64_t inner_shape[SY_MAX_RANK] = {};
  int64_t outer_stride[kRowOperands][SY_MAX_RANK] = {};
  int64_t inner_stride[kRowOperands][SY_MAX_RANK] = {};

  // Offset (in elements) of row `row` for operand k.
  SY_GPU_HOST_DEVICE int64_t RowOffset(int64_t row, int k) const {
    int64_t off = 0;
    for (int d = outer_ndim - 1; d >= 0; --d) {
      const int64_t idx = row % outer_shape[d];
      row /= outer_shape[d];
      off += idx * outer_stride[k][d];
    }
    return off;
  }
  // Offset of element `i` of a row, for operand k.
  SY_GPU_HOST_DEVICE int64_t InnerOffset(int64_t i, int k) const {
    if (inner_ndim == 1) return i * inner_stride[k][0];
    int64_t off = 0;
    for (int d = inner_ndim - 1; d >= 0; --d) {
      const int64_t idx = i % inner_shape[d];
      i /= inner_shape[d];
      off += idx * inner_stride[k][d];
    }
    return off;
  }
  // True when the row's elements are at unit stride for operands [0, n).
  SY_GPU_HOST_DEVICE bool UnitInner(int n) const {
    if (inner_ndim > 1) return false;
    for (int k = 0; k < n; ++k) {
      if (inner_ndim == 1 && inner_stride[k][0] != 1) return false;
    }
    return true;
  }
};

// Builds the layout of x's shape (ndim dims), where dim d is inner when
// inner[d]. strides[k][d] is operand k's stride along x's dim d (0 where
// it broadcasts).
RowLayout MakeRowLayout(const int64_t* shape, int ndim, const bool* inner,
                        int num_operands,
                        const int64_t (*strides)[SY_MAX_RANK]);

}  // namespace sy::gpu

#endif  // SWITCHYARD_GPU_ROW_LAYOUT_H_
