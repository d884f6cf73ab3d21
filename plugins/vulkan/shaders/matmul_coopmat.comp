// f16 matmul on cooperative matrices (GL_NV_cooperative_matrix: Debian 12's
// glslang predates GL_KHR_cooperative_matrix). Taken only on devices whose
// VK_NV_cooperative_matrix lists 16×16×16 f16·f16+f32 at subgroup scope
// with 32-wide subgroups, and only for shapes the host checked
// (kernels/matmul.cc, CoopmatFits): M and N multiples of 128, K of 16,
// unit column strides, row strides and addresses 16-byte aligned.
//
// A workgroup of four subgroups computes a 128×128 output tile; each
// subgroup a 64×64 quarter as 4×4 accumulators of 16×16 (f32), loading
// its A and B fragments straight from global memory (L1 serves the reuse).
// The layout and push constants are matmul.comp's.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define DT0 2
#define DTO 2
#include "common.glsl"

layout(local_size_x = 128) in;

layout(buffer_reference, std430, buffer_reference_align = 16) buffer BufH { float16_t v[]; };

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer MatmulLayout {
  uint m, n, k, batch;
  uint a_rs, a_cs, b_rs, b_cs;
  uint o_rs, o_cs, batch_ndim, row_tiles;
  uint batch_shape[8];
  uint batch_stride[3][8];
};

layout(push_constant, std430) uniform Push {
  uint64_t out_addr;
  uint64_t a_addr;
  uint64_t b_addr;
  uint64_t layout_addr;
} pc;

#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define FRAG fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>

void main() {
  MatmulLayout l = MatmulLayout(pc.layout_addr);
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
  uint sg = gl_SubgroupID;  // 0..3
  uint row0 = tile_m * 128u + (sg / 2u) * 64u;
  uint col0 = gl_WorkGroupID.x * 128u + (sg % 2u) * 64u;
  ACC acc[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = ACC(0.0);
  for (uint k0 = 0u; k0 < l.k; k0 += 16u) {
    FRAG a[4];
    FRAG b[4];
    for (int i = 0; i < 4; ++i) {
      coopMatLoadNV(a[i], BufH(pc.a_addr).v, ab + (row0 + 16u * uint(i)) * l.a_rs + k0,
                    l.a_rs, false);
    }
    for (int j = 0; j < 4; ++j) {
      coopMatLoadNV(b[j], BufH(pc.b_addr).v, bb + k0 * l.b_rs + col0 + 16u * uint(j),
                    l.b_rs, false);
    }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) acc[i][j] = coopMatMulAddNV(a[i], b[j], acc[i][j]);
  }
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      FRAG h = FRAG(acc[i][j]);
      coopMatStoreNV(h, BufH(pc.out_addr).v,
                     ob + (row0 + 16u * uint(i)) * l.o_rs + col0 + 16u * uint(j), l.o_rs,
                     false);
    }
  }
}
