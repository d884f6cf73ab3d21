// Transcendental functions for the float kernels, evaluated in double and
// rounded once to the result type.
//
// Why not GLSL's exp/sin/…: Vulkan allows them 3 + 2|x| ulp (exp) or an
// absolute 2^-11 (sin, cos), and GPUs use exactly that freedom, while the
// core op set asks for 1e-6 relative in f32 (docs/testing.md). Range
// reduction plus a series in double gives about 1e-15 relative for the
// arguments tensors carry, with nothing but +, ×, ÷ (correctly rounded in
// Vulkan), floor, frexp and ldexp. It needs shaderFloat64; devices without
// it do not get these ops (kernels/unary.cc). Inputs are widened with
// f32_to_f64 so that a subnormal argument is not flushed to zero first.
#ifndef SY_MATH_GLSL
#define SY_MATH_GLSL

const double kLn2Hi = 6.93147180369123816490e-01LF;
const double kLn2Lo = 1.90821492927058770002e-10LF;
const double kInvLn2 = 1.44269504088896338700e+00LF;
const double kPio2Hi = 1.57079632673412561417e+00LF;  // 33 bits: k·hi exact
const double kPio2Lo = 6.07710050650619224932e-11LF;
const double kTwoOverPi = 6.36619772367581382433e-01LF;
const double kTwoOverSqrtPi = 1.12837916709551257390e+00LF;
const double kInvSqrtPi = 5.64189583547756286948e-01LF;

bool is_nan_d(double x) { return x != x; }

// Exact f32 → f64, subnormals included (bit by bit, no FTZ on the way).
double f32_to_f64(float f) {
  uint b = floatBitsToUint(f);
  uint e = (b >> 23) & 0xffu;
  uint m = b & 0x7fffffu;
  double s = (b & 0x80000000u) != 0u ? -1.0LF : 1.0LF;
  if (e == 0xffu) return m != 0u ? double(f) : s * (1.0LF / 0.0LF);
  if (e == 0u) return s * ldexp(double(m), -149);
  return s * ldexp(double(m | 0x800000u), int(e) - 150);
}

// Series coefficients (generated: 1/k!, 1/(2k+1), (-1)^n/(2n+1)!, …), so
// that every series is a Horner loop of fused multiply-adds with no
// division in it.
const double kExpC[14] = double[](
    1.0LF,
    1.0LF,
    0.5LF,
    0.16666666666666666LF,
    0.041666666666666664LF,
    0.008333333333333333LF,
    0.001388888888888889LF,
    0.0001984126984126984LF,
    2.48015873015873e-05LF,
    2.7557319223985893e-06LF,
    2.755731922398589e-07LF,
    2.505210838544172e-08LF,
    2.08767569878681e-09LF,
    1.6059043836821613e-10LF);
const double kExpm1C[17] = double[](
    1.0LF,
    0.5LF,
    0.16666666666666666LF,
    0.041666666666666664LF,
    0.008333333333333333LF,
    0.001388888888888889LF,
    0.0001984126984126984LF,
    2.48015873015873e-05LF,
    2.7557319223985893e-06LF,
    2.755731922398589e-07LF,
    2.505210838544172e-08LF,
    2.08767569878681e-09LF,
    1.6059043836821613e-10LF,
    1.1470745597729725e-11LF,
    7.647163731819816e-13LF,
    4.779477332387385e-14LF,
    2.8114572543455206e-15LF);
const double kLogC[13] = double[](
    1.0LF,
    0.3333333333333333LF,
    0.2LF,
    0.14285714285714285LF,
    0.1111111111111111LF,
    0.09090909090909091LF,
    0.07692307692307693LF,
    0.06666666666666667LF,
    0.058823529411764705LF,
    0.05263157894736842LF,
    0.047619047619047616LF,
    0.043478260869565216LF,
    0.04LF);
const double kSinC[10] = double[](
    1.0LF,
    -0.16666666666666666LF,
    0.008333333333333333LF,
    -0.0001984126984126984LF,
    2.7557319223985893e-06LF,
    -2.505210838544172e-08LF,
    1.6059043836821613e-10LF,
    -7.647163731819816e-13LF,
    2.8114572543455206e-15LF,
    -8.22063524662433e-18LF);
const double kCosC[10] = double[](
    1.0LF,
    -0.5LF,
    0.041666666666666664LF,
    -0.001388888888888889LF,
    2.48015873015873e-05LF,
    -2.755731922398589e-07LF,
    2.08767569878681e-09LF,
    -1.1470745597729725e-11LF,
    4.779477332387385e-14LF,
    -1.5619206968586225e-16LF);
const double kErfC[30] = double[](
    1.0LF,
    -0.3333333333333333LF,
    0.1LF,
    -0.023809523809523808LF,
    0.004629629629629629LF,
    -0.0007575757575757576LF,
    0.00010683760683760684LF,
    -1.3227513227513228e-05LF,
    1.4589169000933706e-06LF,
    -1.4503852223150468e-07LF,
    1.3122532963802806e-08LF,
    -1.0892221037148573e-09LF,
    8.35070279514724e-11LF,
    -5.9477940136376354e-12LF,
    3.9554295164585257e-13LF,
    -2.466827010264457e-14LF,
    1.4483264643598138e-15LF,
    -8.032735012415773e-17LF,
    4.221407288807088e-18LF,
    -2.107855191442136e-19LF,
    1.0025164934907719e-20LF,
    -4.5518467589282e-22LF,
    1.977064753877905e-23LF,
    -8.230149299214221e-25LF,
    3.289260349175752e-26LF,
    -1.2641078988989164e-27LF,
    4.6784835155184856e-29LF,
    -1.669761793417372e-30LF,
    5.754191643982172e-32LF,
    -1.9169428621097826e-33LF);

// Horner: c[0] + x·(c[1] + x·(…)).
#define SY_HORNER(c, n, x, out)                              \
  {                                                          \
    out = c[n - 1];                                          \
    for (int i_ = n - 2; i_ >= 0; --i_) out = fma(out, x, c[i_]); \
  }

double exp_d(double x) {
  if (is_nan_d(x)) return x;
  if (x > 709.78LF) return 1.0LF / 0.0LF;
  if (x < -745.2LF) return 0.0LF;
  double k = floor(x * kInvLn2 + 0.5LF);
  double r = (x - k * kLn2Hi) - k * kLn2Lo;  // |r| <= 0.35
  double sum;
  SY_HORNER(kExpC, 14, r, sum)
  int ki = int(k);
  int half_k = ki / 2;
  return ldexp(ldexp(sum, half_k), ki - half_k);
}

// exp(x) - 1 without cancellation near 0.
double expm1_d(double x) {
  if (abs(x) >= 0.5LF) return exp_d(x) - 1.0LF;
  double p;
  SY_HORNER(kExpm1C, 17, x, p)
  return x * p;
}

double log_d(double x) {
  if (is_nan_d(x) || x < 0.0LF) return 0.0LF / 0.0LF;
  if (x == 0.0LF) return -1.0LF / 0.0LF;
  if (x == 1.0LF / 0.0LF) return x;
  int e;
  double m = frexp(x, e);  // [0.5, 1)
  if (m < 0.70710678118654752440LF) {
    m *= 2.0LF;
    e -= 1;
  }
  double s = (m - 1.0LF) / (m + 1.0LF);  // |s| <= 0.172
  double sum;
  SY_HORNER(kLogC, 13, s * s, sum)
  double de = double(e);
  return de * kLn2Hi + (2.0LF * s * sum + de * kLn2Lo);
}

// sin and cos after Cody–Waite reduction by π/2: accurate while |x| stays
// below about 2^20 (k·kPio2Hi exact); beyond that the result degrades.
double sin_poly(double r) {
  double p;
  SY_HORNER(kSinC, 10, r * r, p)
  return r * p;
}
double cos_poly(double r) {
  double p;
  SY_HORNER(kCosC, 10, r * r, p)
  return p;
}
double sincos_d(double x, bool want_cos) {
  if (is_nan_d(x) || abs(x) == 1.0LF / 0.0LF) return 0.0LF / 0.0LF;
  double k = floor(x * kTwoOverPi + 0.5LF);
  double r = (x - k * kPio2Hi) - k * kPio2Lo;
  int q = (int(mod(k, 4.0LF)) + (want_cos ? 1 : 0)) & 3;
  if (q == 0) return sin_poly(r);
  if (q == 1) return cos_poly(r);
  if (q == 2) return -sin_poly(r);
  return -cos_poly(r);
}

double tanh_d(double x) {
  if (is_nan_d(x)) return x;
  if (abs(x) > 20.0LF) return sign(x);
  double e = expm1_d(2.0LF * x);
  return e / (e + 2.0LF);
}

// erfc(z) for z >= 2 by its continued fraction, evaluated backwards
// (40 terms: 5e-14 relative at z = 2, better beyond).
double erfc_large(double z) {
  double t = z;
  for (int n = 40; n >= 1; --n) t = z + (double(n) * 0.5LF) / t;
  return exp_d(-z * z) * kInvSqrtPi / t;
}
// erf(z) for |z| < 2 by its Taylor series (30 terms: 3e-16 at |z| = 2).
double erf_series(double z) {
  double p;
  SY_HORNER(kErfC, 30, z * z, p)
  return kTwoOverSqrtPi * z * p;
}
double erf_d(double z) {
  if (is_nan_d(z)) return z;
  if (abs(z) >= 2.0LF) {
    if (abs(z) > 6.0LF) return sign(z);
    return sign(z) * (1.0LF - erfc_large(abs(z)));
  }
  return erf_series(z);
}
double erfc_d(double z) {
  if (is_nan_d(z)) return z;
  if (z >= 2.0LF) return z > 27.0LF ? 0.0LF : erfc_large(z);
  return 1.0LF - erf_d(z);
}

double sigmoid_d(double x) {
  if (is_nan_d(x)) return x;
  return 1.0LF / (1.0LF + exp_d(-x));
}

// gelu(x) = x·½·erfc(−x/√2): no cancellation for negative x.
double gelu_d(double x) {
  if (is_nan_d(x)) return x;
  return 0.5LF * x * erfc_d(-x * 0.70710678118654752440LF);
}
double gelu_tanh_d(double x) {
  if (is_nan_d(x)) return x;
  double inner = 0.79788456080286535588LF * (x + 0.044715LF * x * x * x);
  return 0.5LF * x * (1.0LF + tanh_d(inner));
}

// pow as C99 specifies it, special cases first.
double pow_d(double x, double y) {
  const double inf = 1.0LF / 0.0LF;
  if (y == 0.0LF || x == 1.0LF) return 1.0LF;
  if (is_nan_d(x) || is_nan_d(y)) return 0.0LF / 0.0LF;
  bool y_int = floor(y) == y;
  bool y_odd = y_int && abs(y) < 9007199254740992.0LF && mod(y, 2.0LF) == 1.0LF;
  if (abs(y) == inf) {
    if (abs(x) == 1.0LF) return 1.0LF;
    return (abs(x) < 1.0LF) == (y > 0.0LF) ? 0.0LF : inf;
  }
  if (x == 0.0LF) {
    bool neg = y_odd && (doubleBitsToUint64(x) >> 63) != 0ul;
    double r = y < 0.0LF ? inf : 0.0LF;
    return neg ? -r : r;
  }
  if (abs(x) == inf) {
    double r = y < 0.0LF ? 0.0LF : inf;
    return (x < 0.0LF && y_odd) ? -r : r;
  }
  if (x < 0.0LF && !y_int) return 0.0LF / 0.0LF;
  double r = exp_d(y * log_d(abs(x)));
  return (x < 0.0LF && y_odd) ? -r : r;
}

#endif  // SY_MATH_GLSL
