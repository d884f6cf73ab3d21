// Reductions over rows (rows.glsl): sum mean max min argmax. Floats
// accumulate in double through a tree (no overflow of partial sums whose
// total fits), integers in int64_t; max/min propagate NaN; argmax returns the first index of the
// maximum, a NaN counting as the maximum (as PyTorch does). OP:
// kernels/reduction.cc.
#version 450
#include "common.glsl"
#include "select.glsl"
#include "rows.glsl"
#if DT0 == DT_F32 || DT0 == DT_F16 || DT0 == DT_BF16
#include "math.glsl"
#endif

layout(constant_id = 0) const int OP = 0;

#if DT0 == DT_F32 || DT0 == DT_F16 || DT0 == DT_BF16
#define SY_IS_FLOAT 1
#define AT double
#else
#define SY_IS_FLOAT 0
#define AT int64_t
#endif

shared AT s_val[256];
shared uint s_idx[256];

bool is_nan_a(AT v) {
#if SY_IS_FLOAT
  return v != v;
#else
  return false;
#endif
}

// Whether (v, i) beats (w, j) for max (want_max) or min.
bool better(AT v, uint i, AT w, uint j, bool want_max) {
  if (is_nan_a(v) || is_nan_a(w)) {
    if (is_nan_a(v) && is_nan_a(w)) return i < j;
    return is_nan_a(v);
  }
  if (v == w) return i < j;
  return want_max ? v > w : v < w;
}

void main() {
  RowLayout l = RowLayout(pc.layout_addr);
  uint row = row_index();
  if (row >= l.rows) return;
  uint tid = gl_LocalInvocationID.x;
  uint in_base = row_base(l, row, 1);
  bool extreme = OP >= 2;
  bool want_max = OP != 3;
  AT acc = AT(0);
  uint acc_i = 0xffffffffu;
  for (uint r = tid; r < l.row_size; r += 256u) {
#if SY_IS_FLOAT
    AT v = f32_to_f64(LD0(pc.in_addr[0], in_base + row_offset(l, r, 1)));
#else
    AT v = AT(LD0(pc.in_addr[0], in_base + row_offset(l, r, 1)));
#endif
    if (!extreme) {
      acc += v;
    } else if (acc_i == 0xffffffffu || better(v, r, acc, acc_i, want_max)) {
      acc = v;
      acc_i = r;
    }
  }
  s_val[tid] = acc;
  s_idx[tid] = acc_i;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1u) {
    if (tid < s) {
      if (!extreme) {
        s_val[tid] += s_val[tid + s];
      } else if (s_idx[tid + s] != 0xffffffffu &&
                 (s_idx[tid] == 0xffffffffu ||
                  better(s_val[tid + s], s_idx[tid + s], s_val[tid], s_idx[tid], want_max))) {
        s_val[tid] = s_val[tid + s];
        s_idx[tid] = s_idx[tid + s];
      }
    }
    barrier();
  }
  if (tid != 0u) return;
  uint o = row_base(l, row, 0);
  AT result = s_val[0];
  if (OP == 1) {
#if SY_IS_FLOAT
    result = result / double(l.row_size);
#endif
  }
  if (OP == 4) {
#if DTO == DT_I64
    st_i64(pc.out_addr, o, int64_t(s_idx[0]));
#endif
  } else {
    STO(pc.out_addr, o, CO(result));  // double → float rounds once
  }
}
