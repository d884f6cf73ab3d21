// Batched matmul, out[b] = a[b] · b[b], tiled in shared memory: a 128×128
// output tile per 256-invocation workgroup, 8×8 outputs per invocation
// (rows tr + 16i, columns tc + 16j, so neighbours read neighbouring
// shared words), K in steps of 8. Operands are read through their strides (any layout;
// the host folds broadcast batch dims into stride 0), accumulated in
// float, stored as DTO. Workgroup (x, y) = (column tile, row tile);
// z-less: batch index in gl_WorkGroupID.y / row_tiles.
#version 450
#include "common.glsl"
#include "select.glsl"

layout(local_size_x = 256) in;

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer MatmulLayout {
  uint m, n, k, batch;
  uint a_rs, a_cs, b_rs, b_cs;  // row and column strides, in elements
  uint o_rs, o_cs, batch_ndim, row_tiles;
  uint batch_shape[8];
  uint batch_stride[3][8];  // out, a, b
};

layout(push_constant, std430) uniform Push {
  uint64_t out_addr;
  uint64_t a_addr;
  uint64_t b_addr;
  uint64_t layout_addr;
} pc;

shared float s_a[8][128];
shared float s_b[8][128];

void main() {
  MatmulLayout l = MatmulLayout(pc.layout_addr);
  uint tile_n = gl_WorkGroupID.x;
  uint batch = gl_WorkGroupID.y / l.row_tiles;
  uint tile_m = gl_WorkGroupID.y % l.row_tiles;
  uint ob = 0u, ab = 0u, bb = 0u, rem = batch;
  for (int d = int(l.batch_ndim) - 1; d >= 0; --d) {
    uint idx = rem % l.batch_shape[d];
    rem /= l.batch_shape[d];
    ob += idx * l.batch_stride[0][d];
    ab += idx * l.batch_stride[1][d];
    bb += idx * l.batch_stride[2][d];
  }
  uint tid = gl_LocalInvocationID.x;
  uint tr = tid / 16u, tc = tid % 16u;
  uint row0 = tile_m * 128u, col0 = tile_n * 128u;
  float acc[8][8];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0;
  for (uint k0 = 0u; k0 < l.k; k0 += 8u) {
    // 1024 elements of each tile, 4 per invocation. A is walked along K
    // fastest when its columns are dense (a_cs == 1), B along N.
    for (uint e = tid; e < 1024u; e += 256u) {
      uint r = e / 8u, kk = e % 8u;
      uint gr = row0 + r, gk = k0 + kk;
      s_a[kk][r] = (gr < l.m && gk < l.k) ? float(LD0(pc.a_addr, ab + gr * l.a_rs + gk * l.a_cs)) : 0.0;
      uint kb = e / 128u, c = e % 128u;
      uint gkb = k0 + kb, gc = col0 + c;
      s_b[kb][c] = (gkb < l.k && gc < l.n) ? float(LD1(pc.b_addr, bb + gkb * l.b_rs + gc * l.b_cs)) : 0.0;
    }
    barrier();
    for (uint kk = 0u; kk < 8u; ++kk) {
      float av[8], bv[8];
      for (int i = 0; i < 8; ++i) av[i] = s_a[kk][tr + 16u * uint(i)];
      for (int j = 0; j < 8; ++j) bv[j] = s_b[kk][tc + 16u * uint(j)];
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
    barrier();
  }
  for (int i = 0; i < 8; ++i) {
    uint gr = row0 + tr + 16u * uint(i);
    if (gr >= l.m) continue;
    for (int j = 0; j < 8; ++j) {
      uint gc = col0 + tc + 16u * uint(j);
      if (gc < l.n) STO(pc.out_addr, ob + gr * l.o_rs + gc * l.o_cs, CO(acc[i][j]));
    }
  }
}
