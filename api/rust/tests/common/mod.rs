//! Shared by the integration tests: a seeded PRNG, float64 reference
//! implementations of the ops under test, and a tolerance check.
//!
//! The references work on dense row-major `Vec<f64>` with a shape and are
//! written for clarity, not speed: they are the oracle.
#![allow(dead_code)]

/// SplitMix64: tiny, good enough for test data, and reproducible (a fixed
/// seed per test, printed on failure through the test name).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    /// Uniform integer in [lo, hi].
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % ((hi - lo + 1) as u64)) as i64
    }

    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }

    /// A random shape of rank `rank` with sizes in [1, max].
    pub fn shape(&mut self, rank: usize, max: i64) -> Vec<i64> {
        (0..rank).map(|_| self.int(1, max)).collect()
    }
}

pub fn numel(shape: &[i64]) -> usize {
    shape.iter().product::<i64>() as usize
}

/// Row-major strides in elements.
pub fn strides(shape: &[i64]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1] as usize;
    }
    s
}

/// The multi-index of flat position `flat` in `shape`.
pub fn unravel(mut flat: usize, shape: &[i64]) -> Vec<usize> {
    let mut idx = vec![0usize; shape.len()];
    for i in (0..shape.len()).rev() {
        let n = shape[i] as usize;
        idx[i] = flat % n;
        flat /= n;
    }
    idx
}

/// NumPy broadcasting of two shapes.
pub fn broadcast_shape(a: &[i64], b: &[i64]) -> Vec<i64> {
    let rank = a.len().max(b.len());
    (0..rank)
        .map(|i| {
            let da = if i + a.len() >= rank { a[i + a.len() - rank] } else { 1 };
            let db = if i + b.len() >= rank { b[i + b.len() - rank] } else { 1 };
            assert!(da == db || da == 1 || db == 1, "test bug: {a:?} and {b:?} do not broadcast");
            da.max(db)
        })
        .collect()
}

/// The flat index into a tensor of `shape` broadcast to `out_idx`.
fn broadcast_index(out_idx: &[usize], shape: &[i64]) -> usize {
    let offset = out_idx.len() - shape.len();
    let st = strides(shape);
    shape.iter().enumerate().map(|(i, &n)| if n == 1 { 0 } else { out_idx[i + offset] * st[i] }).sum()
}

/// Elementwise `f(a, b)` with broadcasting; returns (values, shape).
pub fn binary(
    a: &[f64],
    sa: &[i64],
    b: &[f64],
    sb: &[i64],
    f: impl Fn(f64, f64) -> f64,
) -> (Vec<f64>, Vec<i64>) {
    let shape = broadcast_shape(sa, sb);
    let out = (0..numel(&shape))
        .map(|flat| {
            let idx = unravel(flat, &shape);
            f(a[broadcast_index(&idx, sa)], b[broadcast_index(&idx, sb)])
        })
        .collect();
    (out, shape)
}

/// Batched matmul with broadcast batch dims (both operands rank >= 2).
pub fn matmul(a: &[f64], sa: &[i64], b: &[f64], sb: &[i64]) -> (Vec<f64>, Vec<i64>) {
    let (m, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
    let (k2, n) = (sb[sb.len() - 2], sb[sb.len() - 1]);
    assert_eq!(k, k2, "test bug: inner sizes differ");
    let batch = broadcast_shape(&sa[..sa.len() - 2], &sb[..sb.len() - 2]);
    let (ba, bb) = (&sa[..sa.len() - 2], &sb[..sb.len() - 2]);
    let (mat_a, mat_b) = ((m * k) as usize, (k * n) as usize);
    let mut out = Vec::with_capacity(numel(&batch) * (m * n) as usize);
    for flat in 0..numel(&batch) {
        let idx = unravel(flat, &batch);
        let oa = broadcast_index(&idx, ba) * mat_a;
        let ob = broadcast_index(&idx, bb) * mat_b;
        for i in 0..m as usize {
            for j in 0..n as usize {
                let acc: f64 =
                    (0..k as usize).map(|p| a[oa + i * k as usize + p] * b[ob + p * n as usize + j]).sum();
                out.push(acc);
            }
        }
    }
    let mut shape = batch;
    shape.extend_from_slice(&[m, n]);
    (out, shape)
}

/// erf to ~1e-15: its Maclaurin series for |x| < 3 (terms peak near
/// e^9 ≈ 8e3, so ~4 of 16 digits are lost), a continued fraction for erfc
/// beyond.
pub fn erf(x: f64) -> f64 {
    let ax = x.abs();
    let value = if ax < 3.0 {
        let (mut term, mut sum, mut n) = (ax, ax, 0.0f64);
        while term.abs() > 1e-17 * sum.abs() {
            n += 1.0;
            term *= -ax * ax / n;
            sum += term / (2.0 * n + 1.0);
        }
        2.0 / std::f64::consts::PI.sqrt() * sum
    } else {
        // erfc(x) = exp(-x²)/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + …))))
        let mut frac = ax;
        for k in (1..60).rev() {
            frac = ax + (k as f64 / 2.0) / frac;
        }
        1.0 - (-ax * ax).exp() / std::f64::consts::PI.sqrt() / frac
    };
    value.copysign(x)
}

pub fn gelu(x: f64) -> f64 {
    0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))
}

pub fn gelu_tanh(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
}

/// Iterates the (outer, inner) pairs of a reduction over axis `dim`.
fn around_axis(shape: &[i64], dim: usize) -> (usize, usize, usize) {
    let outer: i64 = shape[..dim].iter().product();
    let inner: i64 = shape[dim + 1..].iter().product();
    (outer as usize, shape[dim] as usize, inner as usize)
}

/// Softmax over axis `dim`, computed stably.
pub fn softmax(x: &[f64], shape: &[i64], dim: usize) -> Vec<f64> {
    let (outer, n, inner) = around_axis(shape, dim);
    let mut out = vec![0.0; x.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |j: usize| o * n * inner + j * inner + i;
            let max = (0..n).map(|j| x[at(j)]).fold(f64::NEG_INFINITY, f64::max);
            let total: f64 = (0..n).map(|j| (x[at(j)] - max).exp()).sum();
            for j in 0..n {
                out[at(j)] = (x[at(j)] - max).exp() / total;
            }
        }
    }
    out
}

/// Sum over the axes in `dims` (all axes when empty), keeping them as
/// size 1 when `keepdim`; returns (values, shape).
pub fn sum(x: &[f64], shape: &[i64], dims: &[usize], keepdim: bool) -> (Vec<f64>, Vec<i64>) {
    let reduced = |i: usize| dims.is_empty() || dims.contains(&i);
    let kept: Vec<i64> = shape.iter().enumerate().map(|(i, &n)| if reduced(i) { 1 } else { n }).collect();
    let mut out = vec![0.0; numel(&kept)];
    let st = strides(&kept);
    for (flat, v) in x.iter().enumerate() {
        let idx = unravel(flat, shape);
        let o: usize = idx.iter().enumerate().map(|(i, &k)| if reduced(i) { 0 } else { k * st[i] }).sum();
        out[o] += v;
    }
    let out_shape = if keepdim {
        kept
    } else {
        shape.iter().enumerate().filter(|(i, _)| !reduced(*i)).map(|(_, &n)| n).collect()
    };
    (out, out_shape)
}

/// Asserts |got - want| <= atol + rtol·|want| elementwise, naming the
/// first element that is off.
#[track_caller]
pub fn assert_close(what: &str, got: &[f64], want: &[f64], atol: f64, rtol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: {} elements, expected {}", got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= atol + rtol * w.abs(),
            "{what}: element {i} is {g}, the float64 reference says {w} (atol {atol}, rtol {rtol})"
        );
    }
}

pub fn to_f32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// The f64 values of an f32 input as the library saw it (rounded).
pub fn as_seen_f32(v: &[f64]) -> Vec<f64> {
    v.iter().map(|&x| x as f32 as f64).collect()
}

pub fn widen(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}
