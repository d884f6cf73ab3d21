// Comparisons eq ne lt le gt ge → bool, .Tensor (two inputs) and .Scalar
// (SY_SCALAR), in the inputs' compute type (float for floating dtypes, so a
// NaN compares unequal to everything). OP: kernels/compare.cc.
#version 450
#include "common.glsl"
#include "select.glsl"

layout(constant_id = 0) const int OP = 0;

#include "elementwise_push.glsl"

struct Vals { C0 x; C0 y; };
Vals load_vals(uint a, uint b, uint c) {
  C0 x = LD0(pc.in_addr[0], a);
#if SY_SCALAR
#if DT0 == DT_F32 || DT0 == DT_F16 || DT0 == DT_BF16
  C0 y = pc.scalar_f;
#elif DT0 == DT_I64
  C0 y = C0((uint64_t(pc.scalar_hi) << 32) | uint64_t(pc.scalar_lo));
#else
  C0 y = C0(pc.scalar_i);
#endif
#else
  C0 y = LD1(pc.in_addr[1], b);
#endif
  return Vals(x, y);
}

void store_vals(uint o, Vals v) {
  C0 x = v.x, y = v.y;
  bool r;
  switch (OP) {
    case 0: r = x == y; break;
    case 1: r = x != y; break;
    case 2: r = x < y; break;
    case 3: r = x <= y; break;
    case 4: r = x > y; break;
    default: r = x >= y; break;
  }
  STO(pc.out_addr, o, r ? 1 : 0);
}

#include "elementwise.glsl"
