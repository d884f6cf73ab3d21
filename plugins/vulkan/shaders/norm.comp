// Normalizations over rows (rows.glsl): softmax (OP 0), log_softmax (1),
// layer_norm (2: weight/bias optional, SY_HAS_W/SY_HAS_B), rms_norm (3).
// x is DT0, weight/bias DT1/DT2, the output DTO (x's dtype). exp (the
// rows' own, exp_row_f) and log in f32 (math_f32.glsl), sums in float
// through subgroup shuffles (SY_SUBGROUP, the norm_sg_* variants, where
// the device has them) or a two-level shared-memory reduction: nothing
// here needs shaderFloat64. SY_WG invocations a row (rows.glsl): 256, or
// 512 in norm_w512_f32 and norm_sg_w512_f32 (f32 softmax rows longer than
// 4096), each caching 8192 / SY_WG values of a row.
#version 450
#extension GL_EXT_control_flow_attributes : require
#if SY_SUBGROUP
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif
#include "common.glsl"
#include "select.glsl"
#include "math_f32.glsl"
#include "rows.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const bool HAS_W = false;
layout(constant_id = 2) const bool HAS_B = false;

float nan_max(float m, float v) { return (v != v || m != m) ? v + m : max(m, v); }

// block_reduce(v, take_max, slot): the workgroup's sum (or NaN-keeping max)
// of one value per invocation, the same in every invocation. A row calls
// it at most twice, with slot 0 and then 1: each slot has its own shared
// arrays, so no barrier has to wait for the previous reduction's reads.
#if SY_SUBGROUP
// One value per subgroup (at least 4 wide, so at most SY_WG / 4 of them).
shared float s_red[2][SY_WG / 4u];

// A butterfly of XOR shuffles within each subgroup (log2 of its size
// steps; the size is a power of two, and 256 and 512 are multiples of
// it), then every invocation combines the subgroups' results in the same
// order: 1 barrier. Both sides of each step add (or nan_max) the same two
// values, so every lane ends with the same bits (but the sign of a zero
// max, which no result sees). Shuffles, not subgroupAdd/subgroupMax: with
// those, NVIDIA's driver (580.159) gave NaN softmax rows (docs/vulkan.md,
// "Ten barriers per reduction"). The default where the device has
// shuffles (Caps::subgroup_reduce).
float block_reduce(float v, bool take_max, uint slot) {
  float r = v;
  for (uint o = gl_SubgroupSize >> 1u; o > 0u; o >>= 1u) {
    float b = subgroupShuffleXor(r, o);
    r = take_max ? nan_max(r, b) : r + b;
  }
  if (gl_SubgroupInvocationID == 0u) s_red[slot][gl_SubgroupID] = r;
  barrier();
  float t = s_red[slot][0];
  for (uint i = 1u; i < gl_NumSubgroups; ++i) {
    float b = s_red[slot][i];
    t = take_max ? nan_max(t, b) : t + b;
  }
  return t;
}
#else
// SY_WG / 16 partials of 16 values each.
#define SY_PARTS (SY_WG / 16u)
shared float s_red[2][SY_WG];
shared float s_part[2][SY_PARTS];

// Two levels, 2 barriers (the binary tree this replaces took 10, in the
// row's critical path between its loads and its stores): invocations
// t < SY_PARTS each fold the 16 values t, t + SY_PARTS, … (neighbouring
// words per load, no bank conflict), then every invocation folds those
// partials in order (one broadcast word per load).
float block_reduce(float v, bool take_max, uint slot) {
  uint tid = gl_LocalInvocationID.x;
  s_red[slot][tid] = v;
  barrier();
  if (tid < SY_PARTS) {
    float t = s_red[slot][tid];
    [[unroll]] for (uint i = 1u; i < 16u; ++i) {
      float b = s_red[slot][tid + SY_PARTS * i];
      t = take_max ? nan_max(t, b) : t + b;
    }
    s_part[slot][tid] = t;
  }
  barrier();
  float t = s_part[slot][0];
  [[unroll]] for (uint i = 1u; i < SY_PARTS; ++i) {
    float b = s_part[slot][i];
    t = take_max ? nan_max(t, b) : t + b;
  }
  return t;
}
#endif

float load_x(RowLayout l, uint base, uint r) {
  return float(LD0(pc.in_addr[0], base + row_offset(l, r, 1)));
}

// Rows of at most SY_WG·SY_ROW_CACHE = 8192 elements over one inner dim (the usual
// case: the last dim) are read from memory once, into registers, and
// every pass runs over those: softmax reads x once instead of three times
// and computes each exp once, the norms read x once instead of two or
// three times (docs/vulkan.md, "Memory-bound kernels"). Every loop over
// the cache is unrolled ([[unroll]]): an array indexed by a loop counter
// the compiler did not unroll lives in local memory, not registers.
//
// Slot j of invocation tid holds row element slot_col(j): tid + SY_WG·j, or,
// for softmax and log_softmax rows of f32 that are contiguous, a multiple
// of 4 long and 16-byte aligned (x and the output), 4(tid + SY_WG·⌊j/4⌋) +
// j mod 4, so that each invocation loads and stores 16 bytes at a time
// (vec4, as the CUDA plugin's float4). The norms keep the scalar layout: on
// the H100 vec4 made 8192² softmax 1.6× faster (0.371 → 0.235 ms) but
// rms_norm 13 % slower (0.215 → 0.243 ms). Slots past the row's end hold 0 and are skipped
// (slot_col(j) < n: the same for a whole warp but in the row's last
// block). Padding softmax's slots with −inf instead, to drop the test,
// made softmax 1.6× slower on lavapipe.
#define SY_ROW_CACHE (8192u / SY_WG)
#if DT0 == DT_F32 && DTO == DT_F32
#define SY_ROW_VEC4 1
layout(buffer_reference, std430, buffer_reference_align = 16) buffer BufV4 { vec4 v[]; };
#else
#define SY_ROW_VEC4 0
#endif

uint slot_col(bool v4, uint tid, uint j) {
  return v4 ? 4u * (tid + SY_WG * (j >> 2u)) + (j & 3u) : tid + SY_WG * j;
}

// A row of n elements at xb (x) and ob (the output); with `one` (a
// single inner dim; else the row has one element) x, out, weight and bias
// step by sx, so, sw, sb along it.
void cached_row(uint n, uint xb, uint ob, bool one, uint sx, uint so, uint sw, uint sb) {
  uint tid = gl_LocalInvocationID.x;
  float c[SY_ROW_CACHE];
  bool v4 = false;
#if SY_ROW_VEC4
  uint64_t xa = pc.in_addr[0] + uint64_t(xb) * 4ul;
  uint64_t oa = pc.out_addr + uint64_t(ob) * 4ul;
  v4 = OP <= 1 && one && sx == 1u && so == 1u && (n & 3u) == 0u && ((xa | oa) & 15ul) == 0ul;
  if (v4) {
    [[unroll]] for (uint q = 0u; q < SY_ROW_CACHE / 4u; ++q) {
      vec4 v = vec4(0.0);
      if (4u * (tid + SY_WG * q) < n) v = BufV4(xa).v[tid + SY_WG * q];
      c[4u * q] = v.x;
      c[4u * q + 1u] = v.y;
      c[4u * q + 2u] = v.z;
      c[4u * q + 3u] = v.w;
    }
  } else
#endif
  {
    [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
      uint r = tid + j * SY_WG;
      c[j] = r < n ? float(LD0(pc.in_addr[0], xb + r * sx)) : 0.0;
    }
  }
  if (OP <= 1) {
    float m = -kF32Inf;
    [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
      if (slot_col(v4, tid, j) < n) m = nan_max(m, c[j]);
    }
    m = block_reduce(m, true, 0u);
    float s = 0.0;
    [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
      if (slot_col(v4, tid, j) < n) {
        float e = exp_row_f(c[j] - m);
        s += e;
        if (OP == 0) c[j] = e;  // softmax needs e; log_softmax keeps x
      }
    }
    s = block_reduce(s, false, 1u);
    float inv_s = 1.0 / s;
    float ls = log_f(s);
    [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
      if (slot_col(v4, tid, j) < n) c[j] = OP == 0 ? c[j] * inv_s : (c[j] - m) - ls;
    }
  } else {
    float mean = 0.0;
    if (OP == 2) {
      float s = 0.0;
      [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
        s += c[j];  // 0 past the row's end
      }
      mean = block_reduce(s, false, 0u) / float(n);
    }
    // The padding's (0 − mean)² is not the row's: those slots are tested.
    float q = 0.0;
    [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
      if (slot_col(v4, tid, j) < n) {
        float d = c[j] - mean;
        q += d * d;
      }
    }
    float var = block_reduce(q, false, 1u) / float(n);
    float inv = 1.0 / sqrt(var + pc.eps);
    [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
      uint r = slot_col(v4, tid, j);
      float y = (c[j] - mean) * inv;
      if (r < n) {
#if defined(DT1) && DT1 != 0
        if (HAS_W || OP == 3) y *= float(LD1(pc.in_addr[1], r * sw));
#endif
#if defined(DT2) && DT2 != 0
        if (HAS_B) y += float(LD2(pc.in_addr[2], r * sb));
#endif
      }
      c[j] = y;
    }
  }
#if SY_ROW_VEC4
  if (v4) {
    [[unroll]] for (uint q = 0u; q < SY_ROW_CACHE / 4u; ++q) {
      if (4u * (tid + SY_WG * q) < n) {
        BufV4(oa).v[tid + SY_WG * q] =
            vec4(c[4u * q], c[4u * q + 1u], c[4u * q + 2u], c[4u * q + 3u]);
      }
    }
    return;
  }
#endif
  [[unroll]] for (uint j = 0u; j < SY_ROW_CACHE; ++j) {
    uint r = tid + j * SY_WG;
    if (r < n) STO(pc.out_addr, ob + r * so, CO(c[j]));
  }
}

void main() {
  uint row = row_index();
  if (pc.dense_size != 0u && pc.dense_size <= SY_WG * SY_ROW_CACHE) {
    // Note [Dense rows] (rows.glsl).
    if (row >= pc.dense_rows) return;
    uint dn = pc.dense_size;
    cached_row(dn, row * dn, row * dn, true, 1u, 1u, 1u, 1u);
    return;
  }
  RowLayout l = RowLayout(pc.layout_addr);
  if (row >= l.rows) return;
  uint tid = gl_LocalInvocationID.x;
  uint n = l.row_size;
  uint xb = row_base(l, row, 1);
  uint ob = row_base(l, row, 0);
  if (l.inner_ndim <= 1u && n <= SY_WG * SY_ROW_CACHE) {
    bool one = l.inner_ndim == 1u;
    cached_row(n, xb, ob, one, one ? l.inner_stride[1][0] : 0u, one ? l.inner_stride[0][0] : 0u,
               one ? l.inner_stride[2][0] : 0u, one ? l.inner_stride[3][0] : 0u);
    return;
  }
  if (OP <= 1) {
    // Longer or multi-dim rows: the statistics in one read (online
    // softmax: each invocation keeps its running max mt and the sum st of
    // exp(x − mt), rescaling st when the max grows), then one read to
    // write. Special values end as in the cached path: a NaN, a +inf or
    // an all −inf row makes s NaN (or 0 with m = −inf), so every output
    // is NaN.
    float mt = -kF32Inf, st = 0.0, mnan = -kF32Inf;
    for (uint r = tid; r < n; r += SY_WG) {
      float v = load_x(l, xb, r);
      if (v > mt) {
        st = fma(st, exp_row_f(mt - v), 1.0);
        mt = v;
      } else if (v != -kF32Inf) {
        st += exp_row_f(v - mt);  // NaN v makes st NaN
      }
      mnan = (v != v || mnan != mnan) ? v + mnan : max(mnan, v);
    }
    float m = block_reduce(mnan, true, 0u);
    float s = block_reduce(mt == -kF32Inf ? 0.0 : st * exp_row_f(mt - m), false, 1u);
    float inv_s = 1.0 / s;
    float ls = log_f(s);
    for (uint r = tid; r < n; r += SY_WG) {
      float v = load_x(l, xb, r) - m;
      float y = OP == 0 ? exp_row_f(v) * inv_s : v - ls;
      STO(pc.out_addr, ob + row_offset(l, r, 0), CO(y));
    }
    return;
  }
  float mean = 0.0;
  if (OP == 2) {
    float s = 0.0;
    for (uint r = tid; r < n; r += SY_WG) s += load_x(l, xb, r);
    mean = block_reduce(s, false, 0u) / float(n);
  }
  float q = 0.0;
  for (uint r = tid; r < n; r += SY_WG) {
    float d = load_x(l, xb, r) - mean;
    q += d * d;
  }
  float var = block_reduce(q, false, 1u) / float(n);
  float inv = 1.0 / sqrt(var + pc.eps);
  for (uint r = tid; r < n; r += SY_WG) {
    float y = (load_x(l, xb, r) - mean) * inv;
#if defined(DT1) && DT1 != 0
    if (HAS_W || OP == 3) y *= float(LD1(pc.in_addr[1], row_offset(l, r, 2)));
#endif
#if defined(DT2) && DT2 != 0
    if (HAS_B) y += float(LD2(pc.in_addr[2], row_offset(l, r, 3)));
#endif
    STO(pc.out_addr, ob + row_offset(l, r, 0), CO(y));
  }
}
