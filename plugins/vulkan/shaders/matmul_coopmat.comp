// f16 matmul on cooperative matrices (GL_NV_cooperative_matrix: Debian 12's
// glslang predates GL_KHR_cooperative_matrix). Taken only on devices whose
// VK_NV_cooperative_matrix lists 16×16×16 f16·f16+f32 at subgroup scope
// with 32-wide subgroups, and only for shapes the host checked
// (kernels/matmul.cc, CoopmatMisfit): M a multiple of BM, N of BN, K
// a multiple of 8, unit column strides, row and batch strides multiples of
// 8 elements and addresses 16-byte aligned (every row start 16 bytes). The
// layout and push constants are matmul.comp's.
//
// Note [Cooperative-matrix matmul] (docs/vulkan.md, "Cooperative matrices")
//
// A workgroup of 8 subgroups (256 invocations) computes a BM×BN output
// tile, K in steps of BK: 128×256×32 (matmul_coopmat_bn256_f16, for N a
// multiple of 256) or 128×128×64 (matmul_coopmat_f16, any other N a
// multiple of 128, and every N under SWITCHYARD_VULKAN_COOPMAT_BN=128),
// from -DSY_BN / -DSY_BK. The subgroups form a 2 (rows) × 4 (columns)
// grid; each owns 64×(BN/4) of the tile as 4×(BN/64) f32 accumulators of
// 16×16.
//
// - Staging: per K step the workgroup copies A's BM×BK and B's BK×BN
//   slices into shared memory with 16-byte loads (uvec4 = 8 halves; 2–4 of A
//   and 4 of B per invocation, consecutive invocations along a row, so a
//   subgroup's loads are whole row segments). Fragments are then loaded
//   from shared memory (coopMatLoadNV on the uvec4 arrays: offsets and
//   strides count 16-byte units), so each element of A is read from
//   global memory once per workgroup instead of once per subgroup column
//   (4×), B's once instead of twice.
// - One shared buffer, deep K steps: step t issues the global loads of
//   tile t + 1 into registers before its math, and stores them to the
//   buffer between two barriers after it. 32 multiply-adds per subgroup a
//   step (BK / 16 rounds of 4 × BN/64 fragments) hide those loads. Two
//   buffers with one barrier a step fit only K steps half as deep in the
//   48 KiB a workgroup may declare on NVIDIA's driver; on the H200 they
//   ran slower (docs/vulkan.md has the variants measured), and so did a
//   second register set that gives each load two steps to land.
// - Bank conflicts: rows are padded by 16 bytes (A: BK + 8 halves, 80 or
//   144 bytes; B: BN + 8, 272 or 528 bytes). A fragment row is 32 bytes,
//   and the 8 rows that one 128-byte shared-memory wavefront serves then
//   start in 8 different 16-byte bank groups (80·r, 144·r, 272·r and 528·r
//   mod 128 are distinct for r < 8). coopMatLoadNV takes a linear stride,
//   so padding, not an XOR swizzle, is what fits.
// - Shared memory: BM·(BK + 8) + BK·(BN + 8) halves: 27,136 bytes for
//   128×256×32, 35,840 for 128×128×64 (NVIDIA allows 48 KiB).
// - K tail: K need only be a multiple of 8 (one 16-byte chunk); chunks past
//   K are zeros in shared memory, so the last step's extra products add 0.
// - Addresses are 64-bit (base + byte offset), so batches past 2^32
//   elements in all are reached; a stride itself is 32-bit, as in the
//   tiled kernel.
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_control_flow_attributes : require
#define DT0 2
#define DTO 2
#include "common.glsl"

layout(local_size_x = 256) in;

#ifndef SY_BN
#define SY_BN 128u
#endif
#ifndef SY_BK
#define SY_BK 64u
#endif
const uint BM = 128u, BN = SY_BN, BK = SY_BK;
const uint NF = BN / 64u;  // B fragments (accumulator columns) a subgroup
// Shared rows in 16-byte units, padded by one.
const uint SA = (BK + 8u) / 8u;
const uint SB = (BN + 8u) / 8u;
// 16-byte chunks a row, and the copies each invocation makes per step.
const uint AC = BK / 8u, BC = BN / 8u;
const uint A_PER = BM * AC / 256u, B_PER = BK * BC / 256u;

shared uvec4 s_a[BM * SA];
shared uvec4 s_b[BK * SB];

layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer BufQ { uvec4 v[]; };
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

// Byte address of element `e` (in halves) past `base`.
uint64_t at(uint64_t base, uint64_t e) { return base + 2ul * e; }

uvec4 load16(uint64_t addr, bool ok) { return ok ? BufQ(addr).v[0] : uvec4(0u); }

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
  uint row0 = tile_m * BM, col0 = gl_WorkGroupID.x * BN;
  uint tid = gl_LocalInvocationID.x;
  uint K = l.k;

  // This invocation's copies: A rows ar + (256 / AC)·q, chunk ac; B rows
  // br + (256 / BC)·q, chunk bc.
  uint ar = tid / AC, ac = tid % AC;
  uint br = tid / BC, bc = tid % BC;
  uint64_t a_src = at(pc.a_addr, uint64_t(ab) + uint64_t(row0 + ar) * l.a_rs + 8u * ac);
  uint64_t a_src_step = at(0ul, uint64_t(256u / AC) * l.a_rs);
  uint64_t b_src = at(pc.b_addr, uint64_t(bb) + uint64_t(br) * l.b_rs + col0 + 8u * bc);
  uint64_t b_src_step = at(0ul, uint64_t(256u / BC) * l.b_rs);
  uint a_dst = ar * SA + ac, b_dst = br * SB + bc;

  uvec4 ra[A_PER], rb[B_PER];
#define SY_FETCH(k0)                                                         \
  {                                                                          \
    uint64_t ka = 2ul * uint64_t(k0), kb = 2ul * uint64_t(k0) * l.b_rs;     \
    bool aok = (k0) + 8u * ac < K;                                           \
    [[unroll]] for (uint q = 0u; q < A_PER; ++q) {                           \
      ra[q] = load16(a_src + q * a_src_step + ka, aok);                      \
    }                                                                        \
    [[unroll]] for (uint q = 0u; q < B_PER; ++q) {                           \
      rb[q] = load16(b_src + q * b_src_step + kb, (k0) + br + (256u / BC) * q < K); \
    }                                                                        \
  }
#define SY_STASH()                                                           \
  {                                                                          \
    [[unroll]] for (uint q = 0u; q < A_PER; ++q) {                           \
      s_a[a_dst + (256u / AC) * q * SA] = ra[q];                             \
    }                                                                        \
    [[unroll]] for (uint q = 0u; q < B_PER; ++q) {                           \
      s_b[b_dst + (256u / BC) * q * SB] = rb[q];                             \
    }                                                                        \
  }

  // Subgroup (wm, wn) of the 2×4 grid: rows 64·wm, columns (BN / 4)·wn.
  uint sg = gl_SubgroupID;
  uint wm = sg / 4u, wn = sg % 4u;
  ACC acc[4][NF];
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    [[unroll]] for (uint j = 0u; j < NF; ++j) acc[i][j] = ACC(0.0);
  }

  uint steps = (K + BK - 1u) / BK;
  SY_FETCH(0u);
  SY_STASH();
  barrier();
  for (uint t = 0u; t < steps; ++t) {
    bool more = t + 1u < steps;
    if (more) SY_FETCH((t + 1u) * BK);
    [[unroll]] for (uint kk = 0u; kk < BK / 16u; ++kk) {
      FRAG fa[4];
      FRAG fb[NF];
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        coopMatLoadNV(fa[i], s_a, (64u * wm + 16u * i) * SA + 2u * kk, SA, false);
      }
      [[unroll]] for (uint j = 0u; j < NF; ++j) {
        coopMatLoadNV(fb[j], s_b, 16u * kk * SB + (BN / 4u * wn + 16u * j) / 8u, SB, false);
      }
      [[unroll]] for (uint i = 0u; i < 4u; ++i) {
        [[unroll]] for (uint j = 0u; j < NF; ++j) {
          acc[i][j] = coopMatMulAddNV(fa[i], fb[j], acc[i][j]);
        }
      }
    }
    // Every subgroup is done reading this tile before it is overwritten,
    // and done writing the next before anyone reads it.
    barrier();
    if (more) {
      SY_STASH();
      barrier();
    }
  }

  uint64_t o_base =
      at(pc.out_addr, uint64_t(ob) + uint64_t(row0 + 64u * wm) * l.o_rs + col0 + BN / 4u * wn);
  [[unroll]] for (uint i = 0u; i < 4u; ++i) {
    [[unroll]] for (uint j = 0u; j < NF; ++j) {
      FRAG h = FRAG(acc[i][j]);
      coopMatStoreNV(h, BufH(o_base).v, 16u * i * l.o_rs + 16u * j, l.o_rs, false);
    }
  }
}
