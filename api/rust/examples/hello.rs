//! Switchyard from Rust in one page: the load report, tensors in and out of
//! Rust slices, ops with named attributes, a check against a float64
//! reference, `explain`, and what an error looks like.
//!
//! Run from a build tree (see docs/rust.md):
//!     SWITCHYARD_LIB_DIR=$PWD/build/release/lib \
//!     cargo run --offline --manifest-path api/rust/Cargo.toml --example hello

use switchyard::{Code, Context, Result};

fn erf(x: f64) -> f64 {
    // Maclaurin series; plenty for |x| <= 3 / sqrt(2).
    let (mut term, mut sum, mut n) = (x, x, 0.0);
    while term.abs() > 1e-17 {
        n += 1.0;
        term *= -x * x / n;
        sum += term / (2.0 * n + 1.0);
    }
    2.0 / std::f64::consts::PI.sqrt() * sum
}

fn main() -> Result<()> {
    let (major, minor) = switchyard::api_version();
    println!("Switchyard {} (C API {major}.{minor})", switchyard::library_version());

    let ctx = Context::new()?;
    for record in ctx.load_report()? {
        println!("plugin {}: {:?}", record.name, record.outcome);
    }
    let labels: Vec<String> =
        ctx.devices()?.iter().map(|d| d.info().map(|i| i.label)).collect::<Result<_>>()?;
    println!("devices: {}", labels.join(", "));

    // A tensor holds a copy of the slice; ops are found by name.
    let data: Vec<f32> = (0..6).map(|i| -3.0 + 1.2 * i as f32).collect();
    let x = ctx.tensor(&data, &[2, 3])?;
    let y = ctx.call("gelu", &[&x], &[])?; // gelu(Tensor x, str approximate="none")
    let sum = ctx.op("sum")?; // look up once, call many times
    let z = sum.call(&[&y], &[("dims", vec![1].into()), ("keepdim", true.into())])?;
    println!("gelu(x) = {:?}", y.to_vec::<f32>()?);
    println!("row sums: {:?} (shape {:?})", z.to_vec::<f32>()?, z.shape()?);
    println!("{}", sum.schema());

    let reference: Vec<f64> =
        data.iter().map(|&v| 0.5 * v as f64 * (1.0 + erf(v as f64 / std::f64::consts::SQRT_2))).collect();
    for (got, want) in y.to_vec::<f32>()?.iter().zip(&reference) {
        assert!((*got as f64 - want).abs() < 1e-5, "gelu disagrees with the reference: {got} vs {want}");
    }

    // Which kernel would run, and from which plugin.
    let w = ctx.tensor(&[1.0f32; 6], &[3, 2])?;
    println!("matmul runs as: {}", ctx.op("matmul")?.explain(&[&x, &w], &[])?);

    // Errors carry the C API's code and message; the next call works.
    match ctx.call("matmul", &[&x, &x], &[]) {
        Err(error) if error.code == Code::InvalidArgument => println!("as expected: {error}"),
        other => panic!("matmul of [2, 3] by [2, 3] should fail, got {other:?}"),
    }
    let product = ctx.call("matmul", &[&x, &w], &[])?;
    println!("x @ ones = {:?}", product.to_vec::<f32>()?);
    Ok(())
}
