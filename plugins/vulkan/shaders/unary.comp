// Unary elementwise ops: neg abs relu square on every numeric dtype (in the
// dtype's compute type, SY_FLOAT_OPS=0); the floating ops, for float inputs
// and for integer inputs with an f32 result: exp log tanh sigmoid silu erf
// gelu in f32 (math_f32.glsl, SY_FLOAT_OPS=2: no double, no shaderFloat64),
// sqrt rsqrt sin cos reciprocal in double (math.glsl, SY_FLOAT_OPS=1).
// OP (specialization constant 0) picks the op; kernels/unary.cc has the
// table. DT0 is the input dtype, DTO the output's.
#version 450
#include "common.glsl"
#include "select.glsl"
#if SY_FLOAT_OPS == 1
#include "math.glsl"
#elif SY_FLOAT_OPS == 2
#include "math_f32.glsl"
#endif

layout(constant_id = 0) const int OP = 0;

#include "elementwise_push.glsl"

struct Vals { C0 x; };
Vals load_vals(uint a, uint b, uint c) { return Vals(LD0(pc.in_addr[0], a)); }

void store_vals(uint o, Vals v) {
  C0 x = v.x;
#if SY_FLOAT_OPS == 1
  double d = f32_to_f64(float(x));
  double r;
  switch (OP) {
    case 6: r = sqrt(d); break;
    case 7: r = 1.0LF / sqrt(d); break;
    case 8: r = sincos_d(d, false); break;
    case 9: r = sincos_d(d, true); break;
    default: r = 1.0LF / d; break;  // 14
  }
  STO(pc.out_addr, o, CO(float(r)));
#elif SY_FLOAT_OPS == 2
  float f = float(x);
  float r;
  switch (OP) {
    case 4: r = exp_f(f); break;
    case 5: r = log_f(f); break;
    case 10: r = tanh_f(f); break;
    case 11: r = sigmoid_f(f); break;
    case 12: r = f * sigmoid_f(f); break;
    case 13: r = erf_f(f); break;
    case 15: r = gelu_f(f); break;
    default: r = gelu_tanh_f(f); break;  // 16
  }
  STO(pc.out_addr, o, CO(r));
#else
  C0 r;
  switch (OP) {
#if DT0 == DT_F32 || DT0 == DT_F16 || DT0 == DT_BF16
    // Sign-bit operations, as IEEE 754 defines negate and abs: exact for
    // every value (-0, NaN, subnormals on a device whose arithmetic flushes
    // them), where `x < 0 ? -x : x` gave abs(-0) = -0 and, under
    // flush-to-zero, abs(-1.4e-45) = -1.4e-45.
    case 0: r = uintBitsToFloat(floatBitsToUint(x) ^ 0x80000000u); break;  // neg
    case 1: r = uintBitsToFloat(floatBitsToUint(x) & 0x7fffffffu); break;  // abs
    // relu keeps NaN. Tested on the bits: NVIDIA's compiler folded
    // `x > 0 || x != x` into a max that gave relu(NaN) = 0.
    case 2: r = (x > C0(0) || (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u) ? x : C0(0); break;
#else
    case 0: r = -x; break;                                    // neg
    case 1: r = x < C0(0) ? -x : x; break;                    // abs
    case 2: r = x > C0(0) ? x : C0(0); break;                 // relu
#endif
    default: r = x * x; break;                                // square
  }
  STO(pc.out_addr, o, CO(r));
#endif
}

#include "elementwise.glsl"
