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

double exp_d(double x) {
  if (is_nan_d(x)) return x;
  if (x > 709.78LF) return 1.0LF / 0.0LF;
  if (x < -745.2LF) return 0.0LF;
  double k = floor(x * kInvLn2 + 0.5LF);
  double r = (x - k * kLn2Hi) - k * kLn2Lo;  // |r| <= 0.35
  double term = 1.0LF, sum = 1.0LF;
  for (int n = 1; n <= 14; ++n) {
    term *= r / double(n);
    sum += term;
  }
  int ki = int(k);
  int half_k = ki / 2;
  return ldexp(ldexp(sum, half_k), ki - half_k);
}

// exp(x) - 1 without cancellation near 0.
double expm1_d(double x) {
  if (abs(x) >= 0.5LF) return exp_d(x) - 1.0LF;
  double term = x, sum = x;
  for (int n = 2; n <= 18; ++n) {
    term *= x / double(n);
    sum += term;
  }
  return sum;
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
  double s2 = s * s;
  double term = 1.0LF, sum = 0.0LF;
  for (int k = 0; k < 13; ++k) {
    sum += term / double(2 * k + 1);
    term *= s2;
  }
  double de = double(e);
  return de * kLn2Hi + (2.0LF * s * sum + de * kLn2Lo);
}

// sin and cos after Cody–Waite reduction by π/2: accurate while |x| stays
// below about 2^20 (k·kPio2Hi exact); beyond that the result degrades.
double sin_poly(double r) {
  double r2 = r * r, term = r, sum = r;
  for (int n = 1; n <= 9; ++n) {
    term *= -r2 / double((2 * n) * (2 * n + 1));
    sum += term;
  }
  return sum;
}
double cos_poly(double r) {
  double r2 = r * r, term = 1.0LF, sum = 1.0LF;
  for (int n = 1; n <= 9; ++n) {
    term *= -r2 / double((2 * n - 1) * (2 * n));
    sum += term;
  }
  return sum;
}
double sincos_d(double x, bool want_cos) {
  if (is_nan_d(x) || abs(x) == 1.0LF / 0.0LF) return 0.0LF / 0.0LF;
  double k = floor(x * kTwoOverPi + 0.5LF);
  double r = (x - k * kPio2Hi) - k * kPio2Lo;
  int q = int(mod(k, 4.0LF)) + (want_cos ? 1 : 0);
  q &= 3;
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

// erfc(z) for z >= 3 by its continued fraction, evaluated backwards.
double erfc_large(double z) {
  double t = z;
  for (int n = 60; n >= 1; --n) t = z + (double(n) * 0.5LF) / t;
  return exp_d(-z * z) * kInvSqrtPi / t;
}
// erf(z) for |z| < 3 by its Taylor series.
double erf_series(double z) {
  double z2 = z * z, term = z, sum = z;
  for (int n = 1; n < 80; ++n) {
    term *= -z2 / double(n);
    double add = term / double(2 * n + 1);
    sum += add;
    if (abs(add) < 1e-17LF * abs(sum)) break;
  }
  return kTwoOverSqrtPi * sum;
}
double erf_d(double z) {
  if (is_nan_d(z)) return z;
  if (abs(z) >= 3.0LF) {
    if (abs(z) > 6.0LF) return sign(z);
    return sign(z) * (1.0LF - erfc_large(abs(z)));
  }
  return erf_series(z);
}
double erfc_d(double z) {
  if (is_nan_d(z)) return z;
  if (z >= 3.0LF) return z > 27.0LF ? 0.0LF : erfc_large(z);
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
