// Rows: the shape shared by reductions and normalizations. The op reduces
// (or normalizes) over the "inner" dims for each index of the "outer"
// dims; one workgroup of SY_WG invocations (256 unless the variant says
// otherwise: norm_w512_f32 has 512) takes one row. Operand strides: 0 the
// output, 1 x, 2 weight, 3 bias (kernels/rows.h, RowLayout).
#ifndef SY_WG
#define SY_WG 256u
#endif
layout(local_size_x = SY_WG) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer RowLayout {
  uint outer_ndim;
  uint inner_ndim;
  uint rows;
  uint row_size;
  uint outer_shape[8];
  uint inner_shape[8];
  uint outer_stride[4][8];
  uint inner_stride[4][8];
};

// Note [Dense rows]: where every operand's rows are dense — one inner dim
// of unit stride, x and the output row_size apart, weight and bias the
// same for every row — the host (kernels/rows.cc, DenseRows) also passes
// the row count and length here, and a kernel that reads them finds its
// row's offsets without the RowLayout's dependent loads and divisions.
// dense_size 0: use the RowLayout.
layout(push_constant, std430) uniform Push {
  uint64_t out_addr;
  uint64_t in_addr[3];
  uint64_t layout_addr;
  float eps;
  uint dense_rows;
  uint dense_size;
} pc;

uint row_index() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

// Offsets of operand k at the start of row `row`.
uint row_base(RowLayout l, uint row, int k) {
  uint off = 0u, rem = row;
  for (int d = int(l.outer_ndim) - 1; d >= 0; --d) {
    uint size = l.outer_shape[d];
    off += (rem % size) * l.outer_stride[k][d];
    rem /= size;
  }
  return off;
}

// Offset of element r of a row for operand k.
uint row_offset(RowLayout l, uint r, int k) {
  if (l.inner_ndim == 1u) return r * l.inner_stride[k][0];
  uint off = 0u, rem = r;
  for (int d = int(l.inner_ndim) - 1; d >= 0; --d) {
    uint size = l.inner_shape[d];
    off += (rem % size) * l.inner_stride[k][d];
    rem /= size;
  }
  return off;
}
