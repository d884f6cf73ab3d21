// Normalizations over rows (rows.glsl): softmax (OP 0), log_softmax (1),
// layer_norm (2: weight/bias optional, SY_HAS_W/SY_HAS_B), rms_norm (3).
// x is DT0, weight/bias DT1/DT2, the output DTO (x's dtype). exp and log
// in double (math.glsl); sums in float through a tree.
#version 450
#include "common.glsl"
#include "select.glsl"
#include "math.glsl"
#include "rows.glsl"

layout(constant_id = 0) const int OP = 0;
layout(constant_id = 1) const bool HAS_W = false;
layout(constant_id = 2) const bool HAS_B = false;

shared float s_red[256];

// Tree reduction of one value per invocation; max when `take_max`.
float block_reduce(float v, bool take_max) {
  uint tid = gl_LocalInvocationID.x;
  barrier();
  s_red[tid] = v;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (tid < s) {
      float a = s_red[tid], b = s_red[tid + s];
      s_red[tid] = take_max ? ((a != a || b != b) ? a + b : max(a, b)) : a + b;
    }
    barrier();
  }
  return s_red[0];
}

float load_x(RowLayout l, uint base, uint r) {
  return float(LD0(pc.in_addr[0], base + row_offset(l, r, 1)));
}

void main() {
  RowLayout l = RowLayout(pc.layout_addr);
  uint row = row_index();
  if (row >= l.rows) return;
  uint tid = gl_LocalInvocationID.x;
  uint n = l.row_size;
  uint xb = row_base(l, row, 1);
  uint ob = row_base(l, row, 0);
  if (OP <= 1) {
    float m = -1.0 / 0.0;
    for (uint r = tid; r < n; r += 256u) {
      float v = load_x(l, xb, r);
      m = (v != v || m != m) ? v + m : max(m, v);
    }
    m = block_reduce(m, true);
    float s = 0.0;
    double md = f32_to_f64(m);
    for (uint r = tid; r < n; r += 256u) {
      s += float(exp_d(f32_to_f64(load_x(l, xb, r)) - md));
    }
    s = block_reduce(s, false);
    double ls = log_d(double(s));
    for (uint r = tid; r < n; r += 256u) {
      double v = f32_to_f64(load_x(l, xb, r)) - md;
      float y = OP == 0 ? float(exp_d(v) / double(s)) : float(v - ls);
      STO(pc.out_addr, ob + row_offset(l, r, 0), CO(y));
    }
    return;
  }
  float mean = 0.0;
  if (OP == 2) {
    float s = 0.0;
    for (uint r = tid; r < n; r += 256u) s += load_x(l, xb, r);
    mean = block_reduce(s, false) / float(n);
  }
  float q = 0.0;
  for (uint r = tid; r < n; r += 256u) {
    float d = load_x(l, xb, r) - mean;
    q += d * d;
  }
  float var = block_reduce(q, false) / float(n);
  float inv = float(1.0LF / sqrt(double(var) + double(pc.eps)));
  for (uint r = tid; r < n; r += 256u) {
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
