// Binary arithmetic (add sub mul div pow maximum minimum), the .Tensor
// overloads (two inputs, already broadcast) and the .Scalar ones (the
// scalar in push constants; SY_SCALAR). Floats compute in float, except
// pow (double, math.glsl); integers in their type, with integer division
// truncating and pow by repeated squaring. OP: kernels/binary.cc.
#version 450
#include "common.glsl"
#include "select.glsl"
#if SY_FLOAT
#include "math.glsl"
#endif

layout(constant_id = 0) const int OP = 0;

#include "elementwise_push.glsl"

#if SY_FLOAT
#define CT float
#else
#define CT C0
#endif

#if !SY_FLOAT
CT ipow(CT base, CT e) {
  CT result = CT(1);
  if (e < CT(0)) return base == CT(1) ? CT(1) : (base == CT(-1) ? ((e & CT(1)) != CT(0) ? CT(-1) : CT(1)) : CT(0));
  while (e > CT(0)) {
    if ((e & CT(1)) != CT(0)) result *= base;
    base *= base;
    e >>= CT(1);
  }
  return result;
}
#endif

struct Vals { CT x; CT y; };
Vals load_vals(uint a, uint b, uint c) {
  CT x = CT(LD0(pc.in_addr[0], a));
#if SY_SCALAR
#if SY_FLOAT
  CT y = pc.scalar_f;
#elif DT0 == DT_I64
  CT y = CT((uint64_t(pc.scalar_hi) << 32) | uint64_t(pc.scalar_lo));
#else
  CT y = CT(pc.scalar_i);
#endif
#else
  CT y = CT(LD1(pc.in_addr[1], b));
#endif
  return Vals(x, y);
}

void store_vals(uint o, Vals v) {
  CT x = v.x, y = v.y;
  CT r;
#if SY_FLOAT
  switch (OP) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    // In double: drivers may divide as x · (1/y), and with f32 subnormals
    // flushed 1/3.4e38 is 0, so inf / 3.4e38 came out NaN (NVIDIA).
    case 3: r = float(f32_to_f64(x) / f32_to_f64(y)); break;
    case 4: r = float(pow_d(f32_to_f64(x), f32_to_f64(y))); break;
    case 5: r = (x != x || y != y) ? (x + y) : max(x, y); break;
    default: r = (x != x || y != y) ? (x + y) : min(x, y); break;
  }
#else
  switch (OP) {
    case 0: r = x + y; break;
    case 1: r = x - y; break;
    case 2: r = x * y; break;
    case 3: r = y == CT(0) ? CT(0) : x / y; break;
    case 4: r = ipow(x, y); break;
    case 5: r = max(x, y); break;
    default: r = min(x, y); break;
  }
#endif
  STO(pc.out_addr, o, CO(r));
}

#include "elementwise.glsl"
