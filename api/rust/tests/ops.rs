//! Ops through the Rust binding on random inputs (fixed seeds), against
//! float64 references computed in Rust: add, mul, matmul, gelu, softmax,
//! sum, in f32 and f64, plus integer add and the scalar overloads.

mod common;

use common::*;
use switchyard::{Context, Element, Tensor};

/// A random partner shape for `shape` that broadcasts against it: some
/// sizes become 1, and leading dims may be dropped.
fn broadcastable(rng: &mut Rng, shape: &[i64]) -> Vec<i64> {
    let drop = rng.int(0, shape.len() as i64 - 1) as usize;
    shape[drop..].iter().map(|&n| if rng.int(0, 2) == 0 { 1 } else { n }).collect()
}

/// Reads a float tensor back as f64, whatever its float type.
fn read_f64(t: &Tensor) -> Vec<f64> {
    match t.dtype().unwrap() {
        switchyard::DType::F32 => widen(&t.to_vec::<f32>().unwrap()),
        switchyard::DType::F64 => t.to_vec::<f64>().unwrap(),
        other => panic!("expected a float tensor, got {other}"),
    }
}

/// A tensor of `T` from f64 values (rounded as `T` holds them) and the
/// values the library actually sees, for the reference.
trait FromF64: Element {
    fn make(v: f64) -> Self;
    fn back(self) -> f64;
    /// atol and rtol for results of a few roundings.
    const TOL: f64;
}
impl FromF64 for f32 {
    fn make(v: f64) -> f32 {
        v as f32
    }
    fn back(self) -> f64 {
        self as f64
    }
    const TOL: f64 = 2e-6;
}
impl FromF64 for f64 {
    fn make(v: f64) -> f64 {
        v
    }
    fn back(self) -> f64 {
        self
    }
    const TOL: f64 = 1e-12;
}

fn input<'c, T: FromF64>(ctx: &'c Context, values: &[f64], shape: &[i64]) -> (Tensor<'c>, Vec<f64>) {
    let data: Vec<T> = values.iter().map(|&v| T::make(v)).collect();
    let seen = data.iter().map(|&v| v.back()).collect();
    (ctx.tensor(&data, shape).unwrap(), seen)
}

fn binary_case<T: FromF64>(ctx: &Context, seed: u64, op: &str, f: fn(f64, f64) -> f64) {
    let mut rng = Rng::new(seed);
    for trial in 0..20 {
        let rank = rng.int(1, 4) as usize;
        let sa = rng.shape(rank, 5);
        let sb = broadcastable(&mut rng, &sa);
        // Either side may be the broadcast one.
        let (sa, sb) = if trial % 2 == 0 { (sa, sb) } else { (sb, sa) };
        let (a, va) = input::<T>(ctx, &rng.vec(numel(&sa), -4.0, 4.0), &sa);
        let (b, vb) = input::<T>(ctx, &rng.vec(numel(&sb), -4.0, 4.0), &sb);
        let (want, shape) = binary(&va, &sa, &vb, &sb, f);
        let y = ctx.call(op, &[&a, &b], &[]).unwrap_or_else(|e| panic!("{op} {sa:?} with {sb:?}: {e}"));
        assert_eq!(y.dtype().unwrap(), T::DTYPE);
        assert_eq!(y.shape().unwrap(), shape, "{op} {sa:?} with {sb:?}");
        assert_close(&format!("{op} {sa:?} with {sb:?}"), &read_f64(&y), &want, T::TOL, T::TOL);
    }
}

#[test]
fn add_and_mul_broadcast_in_f32_and_f64() {
    let ctx = Context::new().unwrap();
    binary_case::<f32>(&ctx, 1, "add", |a, b| a + b);
    binary_case::<f64>(&ctx, 2, "add", |a, b| a + b);
    binary_case::<f32>(&ctx, 3, "mul", |a, b| a * b);
    binary_case::<f64>(&ctx, 4, "mul", |a, b| a * b);
}

#[test]
fn integer_add_and_mul_are_exact() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(5);
    let shape = rng.shape(2, 6);
    let a: Vec<i64> = (0..numel(&shape)).map(|_| rng.int(-1000, 1000)).collect();
    let b: Vec<i64> = (0..numel(&shape)).map(|_| rng.int(-1000, 1000)).collect();
    let (ta, tb) = (ctx.tensor(&a, &shape).unwrap(), ctx.tensor(&b, &shape).unwrap());
    let sum = ctx.call("add", &[&ta, &tb], &[]).unwrap().to_vec::<i64>().unwrap();
    let product = ctx.call("mul", &[&ta, &tb], &[]).unwrap().to_vec::<i64>().unwrap();
    for i in 0..a.len() {
        assert_eq!(sum[i], a[i] + b[i], "add i64 element {i}");
        assert_eq!(product[i], a[i] * b[i], "mul i64 element {i}");
    }
    let a32: Vec<i32> = a.iter().map(|&v| v as i32).collect();
    let t32 = ctx.tensor(&a32, &shape).unwrap();
    let doubled = ctx.call("add", &[&t32, &t32], &[]).unwrap().to_vec::<i32>().unwrap();
    assert_eq!(doubled, a32.iter().map(|v| 2 * v).collect::<Vec<_>>());
}

#[test]
fn scalar_overloads_take_an_attribute() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(6);
    let shape = rng.shape(3, 4);
    let (x, vx) = input::<f64>(&ctx, &rng.vec(numel(&shape), -3.0, 3.0), &shape);
    let c = rng.uniform(-2.0, 2.0);
    let added = ctx.call("add.Scalar", &[&x], &[("b", c.into())]).unwrap();
    let scaled = ctx.op("mul.Scalar").unwrap().call(&[&x], &[("b", c.into())]).unwrap();
    let want_add: Vec<f64> = vx.iter().map(|v| v + c).collect();
    let want_mul: Vec<f64> = vx.iter().map(|v| v * c).collect();
    assert_close("add.Scalar", &read_f64(&added), &want_add, 1e-12, 1e-12);
    assert_close("mul.Scalar", &read_f64(&scaled), &want_mul, 1e-12, 1e-12);
}

fn matmul_case<T: FromF64>(ctx: &Context, seed: u64) {
    let mut rng = Rng::new(seed);
    let matmul = ctx.op("matmul").unwrap();
    for trial in 0..12 {
        let (m, k, n) = (rng.int(1, 9), rng.int(1, 33), rng.int(1, 9));
        // Plain, batched, and batched with broadcast batch dims.
        let (sa, sb) = match trial % 3 {
            0 => (vec![m, k], vec![k, n]),
            1 => {
                let b = rng.int(1, 3);
                (vec![b, m, k], vec![b, k, n])
            }
            _ => (vec![2, 1, m, k], vec![3, k, n]),
        };
        let (a, va) = input::<T>(ctx, &rng.vec(numel(&sa), -1.0, 1.0), &sa);
        let (b, vb) = input::<T>(ctx, &rng.vec(numel(&sb), -1.0, 1.0), &sb);
        let (want, shape) = common::matmul(&va, &sa, &vb, &sb);
        let y = matmul.call(&[&a, &b], &[]).unwrap_or_else(|e| panic!("matmul {sa:?} x {sb:?}: {e}"));
        assert_eq!(y.shape().unwrap(), shape, "matmul {sa:?} x {sb:?}");
        // Sums of k products: the error grows with k.
        let tol = T::TOL * k as f64;
        assert_close(&format!("matmul {sa:?} x {sb:?}"), &read_f64(&y), &want, tol, tol);
    }
}

#[test]
fn matmul_batched_against_reference() {
    let ctx = Context::new().unwrap();
    matmul_case::<f32>(&ctx, 7);
    matmul_case::<f64>(&ctx, 8);
}

fn gelu_case<T: FromF64>(ctx: &Context, seed: u64) {
    let mut rng = Rng::new(seed);
    let gelu = ctx.op("gelu").unwrap();
    let shape = rng.shape(2, 16);
    let (x, vx) = input::<T>(ctx, &rng.vec(numel(&shape), -6.0, 6.0), &shape);
    let exact = gelu.call(&[&x], &[]).unwrap();
    let tanh = gelu.call(&[&x], &[("approximate", "tanh".into())]).unwrap();
    let want: Vec<f64> = vx.iter().map(|&v| common::gelu(v)).collect();
    let want_tanh: Vec<f64> = vx.iter().map(|&v| gelu_tanh(v)).collect();
    assert_close("gelu", &read_f64(&exact), &want, 4.0 * T::TOL, 4.0 * T::TOL);
    assert_close("gelu tanh", &read_f64(&tanh), &want_tanh, 4.0 * T::TOL, 4.0 * T::TOL);
}

#[test]
fn gelu_exact_and_tanh_against_reference() {
    let ctx = Context::new().unwrap();
    gelu_case::<f32>(&ctx, 9);
    gelu_case::<f64>(&ctx, 10);
}

fn softmax_case<T: FromF64>(ctx: &Context, seed: u64) {
    let mut rng = Rng::new(seed);
    for _ in 0..10 {
        let rank = rng.int(1, 3) as usize;
        let shape = rng.shape(rank, 7);
        let dim = rng.int(-(rank as i64), rank as i64 - 1);
        let axis = if dim < 0 { (dim + rank as i64) as usize } else { dim as usize };
        let (x, vx) = input::<T>(ctx, &rng.vec(numel(&shape), -8.0, 8.0), &shape);
        let y = ctx
            .call("softmax", &[&x], &[("dim", dim.into())])
            .unwrap_or_else(|e| panic!("softmax {shape:?} dim {dim}: {e}"));
        assert_eq!(y.shape().unwrap(), shape);
        let want = common::softmax(&vx, &shape, axis);
        assert_close(
            &format!("softmax {shape:?} dim {dim}"),
            &read_f64(&y),
            &want,
            4.0 * T::TOL,
            4.0 * T::TOL,
        );
    }
}

#[test]
fn softmax_over_any_dim_against_reference() {
    let ctx = Context::new().unwrap();
    softmax_case::<f32>(&ctx, 11);
    softmax_case::<f64>(&ctx, 12);
}

fn sum_case<T: FromF64>(ctx: &Context, seed: u64) {
    let mut rng = Rng::new(seed);
    let sum = ctx.op("sum").unwrap();
    for _ in 0..12 {
        let rank = rng.int(1, 4) as usize;
        let shape = rng.shape(rank, 6);
        let dims: Vec<usize> = (0..rank).filter(|_| rng.int(0, 1) == 1).collect();
        let keepdim = rng.int(0, 1) == 1;
        let (x, vx) = input::<T>(ctx, &rng.vec(numel(&shape), -2.0, 2.0), &shape);
        let dims_attr: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
        let y = sum
            .call(&[&x], &[("dims", dims_attr.into()), ("keepdim", keepdim.into())])
            .unwrap_or_else(|e| panic!("sum {shape:?} dims {dims:?} keepdim {keepdim}: {e}"));
        let (want, want_shape) = common::sum(&vx, &shape, &dims, keepdim);
        assert_eq!(y.shape().unwrap(), want_shape, "sum {shape:?} dims {dims:?} keepdim {keepdim}");
        let tol = T::TOL * numel(&shape) as f64;
        assert_close(&format!("sum {shape:?} dims {dims:?}"), &read_f64(&y), &want, tol, tol);
    }
}

#[test]
fn sum_over_dims_with_keepdim_against_reference() {
    let ctx = Context::new().unwrap();
    sum_case::<f32>(&ctx, 13);
    sum_case::<f64>(&ctx, 14);
}

#[test]
fn a_chain_of_ops_matches_the_composed_reference() {
    // softmax(a @ b + c) summed over rows: outputs feed inputs directly.
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(15);
    let (m, k, n) = (rng.int(2, 6), rng.int(2, 10), rng.int(2, 6));
    let (a, va) = input::<f64>(&ctx, &rng.vec((m * k) as usize, -1.0, 1.0), &[m, k]);
    let (b, vb) = input::<f64>(&ctx, &rng.vec((k * n) as usize, -1.0, 1.0), &[k, n]);
    let (c, vc) = input::<f64>(&ctx, &rng.vec(n as usize, -1.0, 1.0), &[n]);
    let ab = ctx.call("matmul", &[&a, &b], &[]).unwrap();
    let abc = ctx.call("add", &[&ab, &c], &[]).unwrap();
    let soft = ctx.call("softmax", &[&abc], &[]).unwrap();
    let rows = ctx.call("sum", &[&soft], &[("dims", vec![1].into())]).unwrap();

    let (r_ab, s_ab) = common::matmul(&va, &[m, k], &vb, &[k, n]);
    let (r_abc, s_abc) = binary(&r_ab, &s_ab, &vc, &[n], |x, y| x + y);
    let r_soft = common::softmax(&r_abc, &s_abc, 1);
    let (want, _) = common::sum(&r_soft, &s_abc, &[1], false);
    assert_close("chain", &rows.to_vec::<f64>().unwrap(), &want, 1e-12, 1e-12);
}

#[test]
fn concat_takes_a_tensor_list_positionally() {
    // concat(Tensor[] tensors, int dim=0): every input belongs to the list.
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(16);
    let rows = rng.int(1, 4);
    let widths: Vec<i64> = (0..3).map(|_| rng.int(1, 5)).collect();
    let parts: Vec<Vec<f64>> = widths.iter().map(|&w| rng.vec((rows * w) as usize, -1.0, 1.0)).collect();
    let tensors: Vec<Tensor> =
        parts.iter().zip(&widths).map(|(p, &w)| ctx.tensor(p, &[rows, w]).unwrap()).collect();
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let y = ctx.call("concat", &refs, &[("dim", 1.into())]).unwrap();
    let total: i64 = widths.iter().sum();
    assert_eq!(y.shape().unwrap(), vec![rows, total]);
    let mut want = Vec::new();
    for r in 0..rows as usize {
        for (p, &w) in parts.iter().zip(&widths) {
            want.extend_from_slice(&p[r * w as usize..(r + 1) * w as usize]);
        }
    }
    assert_eq!(y.to_vec::<f64>().unwrap(), want, "concat copies exactly");
}
