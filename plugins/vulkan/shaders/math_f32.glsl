// Transcendental functions in f32 for the float kernels: exp, log, tanh,
// sigmoid, erf, erfc and both gelus, with no double arithmetic, so they
// run at f32 rate on every GPU (FP64 is 1/32–1/64 of it on consumer parts)
// and need no shaderFloat64. Note [f32 math] in docs/vulkan.md ("Accuracy")
// has the error budget; tests/plugins/vulkan/math_f32_test.cc sweeps them
// against float64.
//
// Why not GLSL's exp/tanh: Vulkan allows exp 3 + 2|x| ulp, and GPUs use
// that freedom; the op set asks rtol 1e-6 + atol 1e-6 (about 8 ulp). Here:
// range reduction with a split constant (k·hi exact), polynomials fitted
// (Chebyshev, mpmath.chebyfit, coefficients rounded to f32) for each
// function's smooth remainder — mpmath.chebyfit(g, [a, b], degree + 1)
// at 40 digits, g and [a, b] named at each function — and 2^k built from
// exponent bits in two steps, so overflow gives inf and underflow a correctly rounded subnormal (or 0 on a device that flushes
// them, which the conformance kit accepts for a device that says so).
// Measured worst errors over dense sweeps (math_f32_test, lavapipe): exp,
// log, erf, tanh at most 1.6 ulp, sigmoid 2.3, silu 3.0; both gelus more
// where the result is tiny (inside the atol; docs/vulkan.md).
//
// Only +, ×, fma, ÷ (Vulkan: 2.5 ulp), floor, min/max and bit operations are used.
// No step relies on fma being fused (Vulkan does not promise it), and the
// error-free steps (Cody–Waite, Dekker's splits) are plain arithmetic
// under `precise`, which keeps the compiler from re-associating them:
// `precise` does not reach fma calls, and Mesa's compiler folds
// fma(a, b, fma(a, c, d)) and fma(z, z, −z·z). Divisions see a denominator
// above 2^126 (where a driver that divides as x · (1/y) under
// flush-to-zero gets 0) only where the result is below 1e-37 anyway.
#ifndef SY_MATH_F32_GLSL
#define SY_MATH_F32_GLSL

#define kF32Inf uintBitsToFloat(0x7f800000u)
// ln 2 = kF32Ln2Hi + kF32Ln2Lo; kF32Ln2Hi has 16 significant bits, so
// k·kF32Ln2Hi is exact for |k| < 256 (Cody–Waite).
const float kF32Ln2Hi = 0.693145751953125;          // 0x3f317200
const float kF32Ln2Lo = 1.42860676533018704e-06;    // 0x35bfbe8e
const float kF32InvLn2 = 1.44269502162933349609;

bool is_nan_f(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }

// x with the sign of s (on the bits: exact for 0, inf and NaN).
float copysign_f(float x, float s) {
  return uintBitsToFloat((floatBitsToUint(x) & 0x7fffffffu) | (floatBitsToUint(s) & 0x80000000u));
}

// 1.5·2^23: k + kF32Shifter holds the integer k in its low bits, so k as
// an int costs an add, not a float-to-int conversion (a quarter- to
// eighth-rate instruction on GPUs). k itself comes from floor: the
// shifter trick for the rounding too (round(y) = (y + S) − S) made
// softmax's sums 4–6% high on lavapipe once its loop was unrolled, as if
// (y + S) − S had been folded to y, `precise` notwithstanding.
const float kF32Shifter = 12582912.0;                // 0x4b400000

// m·2^k for -252 <= k <= 254 as m·2^(k>>1)·2^(k − k>>1): both factors
// normal, so results that overflow give inf and results below 2^-126
// round once, correctly, to a subnormal.
float scale2_f(float m, int k) {
  int k1 = k >> 1;
  // precise: (m·A)·B, never m·(A·B), which underflows for k < −126.
  precise float y = (m * intBitsToFloat((k1 << 23) + 0x3f800000)) *
                    intBitsToFloat(((k - k1) << 23) + 0x3f800000);
  return y;
}

// −(s + r) = k·ln 2 + t with k an integer (returned in k_out) and t in
// [−ln2/2, ln2/2], for s in [−89, 104] and |r| small beside s. s, the
// exact leading part, is reduced first (s − k·hi is exact: k·hi has at
// most 23 bits and s is within a factor 2 of it), then r and k·lo
// (Cody–Waite), so an argument carried in two parts keeps its low part.
float reduce_ln2_f(float s, float r, out int k_out) {
  precise float k = floor(fma(s + r, -kF32InvLn2, 0.5));
  // Plain precise operations, not fma: Mesa's NIR folds
  // fma(a, b, fma(a, c, d)) into fma(a, b + c, d) — here the reduction
  // with hi + lo rounded, 0.5 ulp of x lost (lavapipe gave exp(88.2)
  // 1.7e-6 off) — while `precise` does not reach fma calls.
  precise float t = (-s - k * kF32Ln2Hi) - (r + k * kF32Ln2Lo);
  precise float j = k + kF32Shifter;  // exact: |k| < 2^22
  k_out = floatBitsToInt(j) - 0x4b400000;
  return t;
}

// e^{−(s + r)} without its 2^k factor: the mantissa factor (in [0.70,
// 1.42]) and k, from reduce_ln2_f's t: e^t − 1 = t + t²·P(t), P of degree
// 4 fitted to (eᵗ − 1 − t)/t² on [−ln2/2, ln2/2] (abs. error 6.5e-8 on P,
// so ≤ 8e-9 relative on e^t).
float exp_neg2_f(float s, float r, out int k_out) {
  float t = reduce_ln2_f(s, r, k_out);
  float p = 1.3926175888627768e-03;
  p = fma(p, t, 8.3631733432412148e-03);
  p = fma(p, t, 4.1666556149721146e-02);
  p = fma(p, t, 1.6666577756404877e-01);
  p = fma(p, t, 0.5);
  return 1.0 + fma(t * t, p, t);
}

// exp(x). k = round(x / ln 2), t = x − k·ln 2 (exp_neg2_f with s = −x),
// then 2^k applied in two exact steps (scale2_f). x is clamped to
// [−104, 89] first: e^89 overflows to inf through the product and e^−104
// rounds to 0, so ±inf need no test of their own; NaN does.
float exp_f(float x) {
  float xc = clamp(x, -104.0, 89.0);
  int k;
  float e = exp_neg2_f(-xc, 0.0, k);
  return is_nan_f(x) ? x : scale2_f(e, k);
}

// e^x for the exps of softmax and log_softmax rows (x = v − max: ≤ 0,
// −inf or NaN), whose results the op set checks to rtol 1e-5 (80–170
// ulp), not exp's 8 (Note [Row exps] in docs/vulkan.md): the device's
// exp2 of x·log2 e, unreduced. The product's rounding costs |x|·1.4 ·
// 2^-24 relative (2e-6 at x = −20, where e^x is 2e-9), and NVIDIA's and
// lavapipe's exp2 are within a few ulp over the whole range; Vulkan lets
// a driver's exp2 be 3 + 2|y| ulp off, which stays inside 1e-5 for every
// result above e^−20 or so and is far below any atol past it. exp2(−inf)
// is 0; NaN is passed on by hand (Vulkan does not promise exp2 keeps it).
float exp_row_f(float x) {
  float e = exp2(x * kF32InvLn2);
  return is_nan_f(x) ? x : e;
}

// log(x). x = 2^e·m with m in [√½, √2) taken from the bits (subnormals
// normalized in integers, so a device that flushes f32 subnormals in
// arithmetic still gets log(1.4e-45) = −103.28), f = m − 1 (exact),
// log(1 + f) = f + f²·Q(f), Q of degree 8 fitted to (log1p(f) − f)/f² on
// [√½ − 1, √2 − 1].
float log_f(float x) {
  uint u = floatBitsToUint(x);
  if (is_nan_f(x) || ((u & 0x80000000u) != 0u && (u & 0x7fffffffu) != 0u)) {
    return uintBitsToFloat(0x7fc00000u);
  }
  if ((u & 0x7fffffffu) == 0u) return -kF32Inf;
  if (u == 0x7f800000u) return x;
  int e = int(u >> 23) - 127;
  uint m = u & 0x7fffffu;
  if ((u >> 23) == 0u) {  // subnormal: m·2^-149
    int msb = findMSB(m);
    e = msb - 149;
    m = (m << uint(23 - msb)) & 0x7fffffu;
  }
  float mf = uintBitsToFloat(m | 0x3f800000u);  // [1, 2)
  if (mf > 1.41421353816986083984) {
    mf *= 0.5;
    e += 1;
  }
  float f = mf - 1.0;
  float q = -7.6736412942409515e-02;
  q = fma(q, f, 1.2722672522068024e-01);
  q = fma(q, f, -1.3127554953098297e-01);
  q = fma(q, f, 1.4204855263233185e-01);
  q = fma(q, f, -1.6626645624637604e-01);
  q = fma(q, f, 2.0001234114170074e-01);
  q = fma(q, f, -2.5000780820846558e-01);
  q = fma(q, f, 3.3333331346511841e-01);
  q = fma(q, f, -4.9999997019767761e-01);
  float fe = float(e);
  precise float lo = fma(f * f, q, fe * kF32Ln2Lo);
  return fma(fe, kF32Ln2Hi, f + lo);
}

// tanh(x): below 0.625 an odd polynomial, x + x³·P(x²) (P of degree 4
// fitted to (tanh x − x)/x³ as a function of s = x² on [0, 0.625²]),
// accurate down to the smallest subnormal; up
// to 9.01 it is 1 − 2/(e^{2|x|} + 1), whose parts do not cancel there
// (the result is above 0.55); beyond, ±1 (within half an ulp).
float tanh_f(float x) {
  float a = abs(x);
  if (a < 0.625) {
    float s = x * x;
    float p = -6.0967141762375832e-03;
    p = fma(p, s, 2.0997179672122002e-02);
    p = fma(p, s, -5.3850907832384109e-02);
    p = fma(p, s, 1.3332769274711609e-01);
    p = fma(p, s, -3.3333328366279602e-01);
    return fma(x * s, p, x);
  }
  if (a > 9.0109) return copysign_f(1.0, x);  // NaN goes on to exp_f
  float t = 1.0 - 2.0 / (exp_f(2.0 * a) + 1.0);
  return copysign_f(t, x);
}

// sigmoid(x) = 1/(1 + e^{−x}) for x ≥ 0, e^{x}/(1 + e^{x}) below: the
// exponential never exceeds 1, so nothing overflows and results for very
// negative x stay relatively accurate (down to subnormals).
float sigmoid_f(float x) {
  if (is_nan_f(x)) return x;
  float e = exp_f(-abs(x));
  float d = 1.0 + e;
  return x >= 0.0 ? 1.0 / d : e / d;
}

// e^{a²}·erfc(a) (erfcx) for a in [0, 10.1]: h(t)/(1 + 2a) with t =
// (a − 2)/(a + 2), h smooth on t in [−1, 8.1/12.1]: h = (1 + 2a)·e^{a²}·
// erfc(a) fitted by a degree-11 polynomial (abs. error 1.4e-9; the form
// after N. Juffa's erfcf). One division for t and 1/(1 + 2a) (~1 ulp more
// on each). Smooth in a, so a may carry an ulp of its own.
float erfcx_f(float a) {
  float p2 = 2.0 * a + 1.0;
  float a2 = a + 2.0;
  float inv = 1.0 / (a2 * p2);
  float t = ((a - 2.0) * p2) * inv;
  float h = 8.2949853094760329e-05;
  h = fma(h, t, 1.7599783313926309e-04);
  h = fma(h, t, -4.0185041143558919e-04);
  h = fma(h, t, -1.4282946940511465e-03);
  h = fma(h, t, 1.2512279208749533e-03);
  h = fma(h, t, 8.7121184915304184e-03);
  h = fma(h, t, -8.0300495028495789e-03);
  h = fma(h, t, -5.4218336939811707e-02);
  h = fma(h, t, 1.6405092179775238e-01);
  h = fma(h, t, -1.6603049635887146e-01);
  h = fma(h, t, -9.2763818800449371e-02);
  h = fma(h, t, 1.2769783735275269);
  return h * (a2 * inv);
}

// erfc(a)·scale for a in [0, 10.1], given a² = s + r with s exact (the
// caller squares a 12-bit part exactly; r is the small rest): e^{−a²}
// times erfcx_f(a). Only e^{−a²} is sensitive to a's rounding (relative
// error 2a² times a's), hence the split of a². The 2^k of e^{−a²} comes
// last, onto a product in [0.03, 1.5], so results below 2^-126 round once.
// Straight-line code: no branch, no special values (callers clamp).
float erfc_core_f(float a, float s, float r, float scale) {
  int k;
  float e = exp_neg2_f(s, r, k);
  return scale2_f((e * erfcx_f(a)) * scale, k);
}

// a² as s + r for a ≥ 0 (Dekker's split by bits, not fma, which Vulkan
// does not promise fused and Mesa's compiler folds: fma(a, a, −a·a) became
// 0 on lavapipe): ah, a's top 12 bits, squares exactly; r = al·(ah + a)
// = 2ah·al + al² with one rounding, at most 2^-11·a² in size.
void square2_f(float a, out float s, out float r) {
  precise float ah = uintBitsToFloat(floatBitsToUint(a) & 0xfffff000u);
  precise float al = a - ah;
  precise float s0 = ah * ah;
  precise float r0 = al * (ah + a);
  s = s0;
  r = r0;
}

// erf(x) for |x| < 1: an odd polynomial, x + x·P(x²), P of degree 6
// fitted to erf(x)/x − 1 as a function of s = x² on [0, 1].
float erf_small_f(float x) {
  float s = x * x;
  float p = 7.8758748713880777e-05;
  p = fma(p, s, -8.0168643034994602e-04);
  p = fma(p, s, 5.1890872418880463e-03);
  p = fma(p, s, -2.6854211464524269e-02);
  p = fma(p, s, 1.1283594369888306e-01);
  p = fma(p, s, -3.7612625956535339e-01);
  p = fma(p, s, 1.2837916612625122e-01);
  return fma(x, p, x);
}

// erf(x): erf_small_f below 1; above, 1 − erfc(|x|), which has nothing to
// cancel (erfc(1) = 0.157); above 3.92 ±1.
float erf_f(float x) {
  float a = abs(x);
  if (a < 1.0) return erf_small_f(x);
  if (is_nan_f(x)) return x;
  if (a > 3.92) return copysign_f(1.0, x);
  float s, r;
  square2_f(a, s, r);
  return copysign_f(1.0 - erfc_core_f(a, s, r, 1.0), x);
}

// gelu(x) = x·Φ(x), Φ(x) = ½erfc(−x/√2) as the reference writes it, in
// one straight-line path for every x (a branch per sign or per range runs
// both sides in nearly every 32-wide warp; the path with one did, and
// made gelu compute-bound on an H100): with a = |x|/√2 and E = ½erfc(a),
// Φ = 1 − E for x ≥ 0 (nothing cancels: E ≤ ½) and E below. E is
// erfcx_f(a)/2 times e^{−a²} from the device's exp2 of −(x²/2)·log2 e,
// unreduced (Note [Fast gelu] in docs/vulkan.md): erfc_core_f's exact
// split of a², Cody–Waite reduction and two-step scaling made gelu
// compute-bound at 0.72 of the CUDA plugin's speed on an H200; this form
// runs at memory speed. The product's rounding costs up to
// (x²/2)·1.4·2^-24 relative in E: about 8 ulp of gelu for |x| ≤ 4, more
// below, where |gelu| < 1.3e-4 and the op set's atol (1e-6) dwarfs it.
// |x| is clamped to 14.25, where E (2.2e-46) rounds
// to 0 and Φ to 1: +inf gives inf, −inf NaN (−inf·0, as the float64
// formula), NaN stays NaN through the last product.
float gelu_f(float x) {
  float xc = clamp(x, -14.25, 14.25);
  float e = exp2((-0.5 * xc * xc) * kF32InvLn2);
  float half_erfc = (e * erfcx_f(abs(xc) * 0.707106769084930419922)) * 0.5;
  return x * (x >= 0.0 ? 1.0 - half_erfc : half_erfc);
}

// gelu with approximate='tanh': ½x(1 + tanh u) = x·sigmoid(2u) =
// x/(1 + e^{−2u}), u = √(2/π)(x + 0.044715x³) — no cancellation for
// negative x. Infinite and huge |x| give what the formula gives in
// float64 (x = −inf: NaN, as ½·(−inf)·0).
float gelu_tanh_f(float x) {
  if (is_nan_f(x)) return x;
  const float kA = 0.797884583473205566406;     // √(2/π)
  const float kB = 0.0356774081;                // √(2/π)·0.044715
  float u = x * fma(kB, x * x, kA);
  // 1 + e^{-2u} may pass 2^126, where a driver that divides as x·(1/d)
  // under flush-to-zero gives x·0: |result| < 1e-37 there anyway.
  return x / (1.0 + exp_f(-2.0 * u));
}

#endif  // SY_MATH_F32_GLSL
