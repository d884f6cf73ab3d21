//! Bad input of every kind the safe API still lets through: each gives an
//! `Err` with the exact code and a message naming the op or argument, and
//! the next valid call works.

mod common;

use std::fmt::Debug;

use common::*;
use switchyard::{Attr, Code, Context, ContextOptions, DType, Error};

/// Asserts `result` failed with `code` and a message containing every
/// needle; returns the error for further checks.
#[track_caller]
fn expect_err<T: Debug>(result: Result<T, Error>, code: Code, needles: &[&str]) -> Error {
    let error = match result {
        Ok(value) => panic!("expected {code}, got Ok({value:?})"),
        Err(error) => error,
    };
    eprintln!("{error}");
    assert_eq!(error.code, code, "wrong code; message: {}", error.message);
    for needle in needles {
        assert!(error.message.contains(needle), "message does not mention {needle:?}: {}", error.message);
    }
    // Display and std::error::Error carry the same.
    assert!(error.to_string().contains(&error.message));
    let _: &dyn std::error::Error = &error;
    error
}

/// After any error, a valid call on fresh random input works and is right.
fn still_works(ctx: &Context, seed: u64) {
    let mut rng = Rng::new(seed);
    let shape = rng.shape(2, 5);
    let a = rng.vec(numel(&shape), -1.0, 1.0);
    let b = rng.vec(numel(&shape), -1.0, 1.0);
    let (ta, tb) = (ctx.tensor(&a, &shape).unwrap(), ctx.tensor(&b, &shape).unwrap());
    let got = ctx.call("add", &[&ta, &tb], &[]).unwrap().to_vec::<f64>().unwrap();
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_close("add after an error", &got, &want, 1e-12, 1e-12);
}

fn random_f32<'c>(ctx: &'c Context, rng: &mut Rng, shape: &[i64]) -> switchyard::Tensor<'c> {
    ctx.tensor(&to_f32(&rng.vec(numel(shape), -1.0, 1.0)), shape).unwrap()
}

#[test]
fn unknown_op_is_not_found_and_names_it() {
    let ctx = Context::new().unwrap();
    expect_err(ctx.op("gelux"), Code::NotFound, &["gelux"]);
    expect_err(ctx.op("add.Bogus"), Code::NotFound, &["add.Bogus"]);
    expect_err(ctx.op(""), Code::NotFound, &[]);
    // A NUL cannot reach C: the binding refuses it.
    expect_err(ctx.op("ge\0lu"), Code::InvalidArgument, &["NUL"]);
    still_works(&ctx, 100);
}

#[test]
fn wrong_dtype_is_refused_naming_the_op() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(101);
    let x = random_f32(&ctx, &mut rng, &[2, 3]);
    let i = ctx.tensor(&[1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    let b = ctx.tensor(&[true, false, true, true, false, false], &[2, 3]).unwrap();
    expect_err(
        ctx.call("matmul", &[&x, &ctx.tensor(&[1.0f64; 6], &[3, 2]).unwrap()], &[]),
        Code::InvalidArgument,
        &["matmul", "'b'", "f64"],
    );
    // add promotes mixed dtypes (f32 + i32 is f32); a condition must be bool.
    expect_err(ctx.call("where", &[&x, &x, &x], &[]), Code::InvalidArgument, &["where", "condition"]);
    expect_err(ctx.call("embedding", &[&x, &x], &[]), Code::InvalidArgument, &["embedding", "indices"]);
    expect_err(ctx.call("softmax", &[&i], &[]), Code::InvalidArgument, &["softmax", "'x'", "i32"]);
    expect_err(ctx.call("matmul", &[&b, &b], &[]), Code::InvalidArgument, &["matmul", "'a'", "bool"]);
    // Reading back as the wrong Rust type is the binding's error.
    expect_err(x.to_vec::<f64>(), Code::InvalidArgument, &["to_vec", "f32", "f64"]);
    expect_err(i.to_vec::<i64>(), Code::InvalidArgument, &["i32", "i64"]);
    still_works(&ctx, 102);
}

#[test]
fn wrong_shape_is_refused_naming_the_op_and_argument() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(103);
    let x = random_f32(&ctx, &mut rng, &[2, 3]);
    let y = random_f32(&ctx, &mut rng, &[4]);
    expect_err(ctx.call("matmul", &[&x, &x], &[]), Code::InvalidArgument, &["matmul", "'b'"]);
    expect_err(ctx.call("add", &[&x, &y], &[]), Code::InvalidArgument, &["add"]);
    expect_err(ctx.call("softmax", &[&x], &[("dim", 2.into())]), Code::InvalidArgument, &["softmax", "dim"]);
    expect_err(ctx.call("sum", &[&x], &[("dims", vec![5].into())]), Code::InvalidArgument, &["sum"]);
    expect_err(
        ctx.call("reshape", &[&x], &[("shape", vec![4, 2].into())]),
        Code::InvalidArgument,
        &["reshape"],
    );
    still_works(&ctx, 104);
}

#[test]
fn wrong_attribute_type_is_refused_naming_the_argument() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(105);
    let x = random_f32(&ctx, &mut rng, &[3, 4]);
    expect_err(ctx.call("sum", &[&x], &[("keepdim", 1.into())]), Code::InvalidArgument, &["sum", "keepdim"]);
    expect_err(ctx.call("sum", &[&x], &[("dims", 1.5.into())]), Code::InvalidArgument, &["sum", "dims"]);
    expect_err(
        ctx.call("softmax", &[&x], &[("dim", "last".into())]),
        Code::InvalidArgument,
        &["softmax", "dim"],
    );
    expect_err(
        ctx.call("gelu", &[&x], &[("approximate", true.into())]),
        Code::InvalidArgument,
        &["gelu", "approximate"],
    );
    expect_err(
        ctx.call("gelu", &[&x], &[("approximate", "fast".into())]),
        Code::InvalidArgument,
        &["gelu", "fast"],
    );
    expect_err(ctx.call("cast", &[&x], &[("dtype", 3.into())]), Code::InvalidArgument, &["cast", "dtype"]);
    // None only for optional arguments.
    expect_err(
        ctx.call("softmax", &[&x], &[("dim", Attr::None)]),
        Code::InvalidArgument,
        &["softmax", "dim"],
    );
    // A string with a NUL cannot reach C.
    expect_err(
        ctx.call("gelu", &[&x], &[("approximate", "ta\0nh".into())]),
        Code::InvalidArgument,
        &["approximate", "NUL"],
    );
    still_works(&ctx, 106);
}

#[test]
fn unknown_or_misplaced_attribute_is_refused_by_the_binding() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(107);
    let x = random_f32(&ctx, &mut rng, &[3, 4]);
    let sum = ctx.op("sum").unwrap();
    let e = expect_err(
        sum.call(&[&x], &[("axis", vec![1].into())]),
        Code::InvalidArgument,
        &["sum", "'axis'", "dims, keepdim"],
    );
    assert!(e.message.contains(sum.schema()), "the message quotes the schema: {}", e.message);
    expect_err(
        ctx.call("relu", &[&x], &[("alpha", 0.1.into())]),
        Code::InvalidArgument,
        &["relu", "'alpha'", "none"],
    );
    expect_err(sum.call(&[&x], &[("x", 1.into())]), Code::InvalidArgument, &["sum", "'x'", "tensor inputs"]);
    expect_err(
        sum.call(&[&x], &[("keepdim", true.into()), ("keepdim", false.into())]),
        Code::InvalidArgument,
        &["'keepdim'", "twice"],
    );
    still_works(&ctx, 108);
}

#[test]
fn wrong_number_of_inputs_or_missing_attributes() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(109);
    let x = random_f32(&ctx, &mut rng, &[2, 2]);
    expect_err(ctx.call("add", &[&x], &[]), Code::InvalidArgument, &["add"]);
    expect_err(ctx.call("add", &[&x, &x, &x], &[]), Code::InvalidArgument, &["add"]);
    expect_err(ctx.call("relu", &[], &[]), Code::InvalidArgument, &["relu"]);
    expect_err(ctx.call("reshape", &[&x], &[]), Code::InvalidArgument, &["reshape", "shape"]);
    // An omitted required tensor (None where the schema has no '?').
    let matmul = ctx.op("matmul").unwrap();
    expect_err(matmul.call_optional(&[Some(&x), None], &[]), Code::InvalidArgument, &["matmul"]);
    still_works(&ctx, 110);
}

#[test]
fn tensors_of_another_context_are_foreign() {
    let ctx = Context::new().unwrap();
    let other = Context::new().unwrap();
    let mut rng = Rng::new(111);
    let mine = random_f32(&ctx, &mut rng, &[2, 2]);
    let theirs = random_f32(&other, &mut rng, &[2, 2]);
    // The lifetimes unify, so this compiles; the C API catches it.
    expect_err(ctx.call("add", &[&mine, &theirs], &[]), Code::InvalidArgument, &["add"]);
    let their_cpu = other.device("cpu").unwrap();
    expect_err(mine.to_device(&their_cpu), Code::InvalidArgument, &[]);
    still_works(&ctx, 112);
    still_works(&other, 113);
}

#[test]
fn bad_tensor_construction() {
    let ctx = Context::new().unwrap();
    // Data that does not fill the shape.
    expect_err(ctx.tensor(&[1.0f32; 5], &[2, 3]), Code::InvalidArgument, &[]);
    expect_err(ctx.tensor(&[1.0f32; 6], &[2, -3]), Code::InvalidArgument, &[]);
    // Rank above 8 is refused before C sees it.
    expect_err(ctx.tensor(&[1.0f32], &[1; 9]), Code::InvalidArgument, &["rank 9"]);
    expect_err(ctx.empty(DType::F32, &[-1]), Code::InvalidArgument, &[]);
    expect_err(ctx.tensor_from_bytes(DType::F16, &[3], &[0u8; 5]), Code::InvalidArgument, &[]);
    let pair = ctx.tensor(&[1i64, 2], &[2]).unwrap();
    expect_err(pair.item::<i64>(), Code::InvalidArgument, &["item", "2 elements"]);
    expect_err(DType::from_name("float33"), Code::InvalidArgument, &["float33"]);
    still_works(&ctx, 114);
}

#[test]
fn bad_devices_and_plugins() {
    let ctx = Context::new().unwrap();
    expect_err(ctx.device("tpu:7"), Code::NotFound, &["tpu:7", "cpu:0"]);
    expect_err(ctx.device("cpu:99"), Code::NotFound, &["cpu:99"]);
    expect_err(
        ctx.load_plugin("/nonexistent/plugin.json"),
        Code::FailedPrecondition,
        &["/nonexistent/plugin.json"],
    );
    expect_err(ctx.unload_plugin("no_such_plugin"), Code::NotFound, &["no_such_plugin"]);
    let options = ContextOptions { allow: vec!["no_such_plugin".into()], ..ContextOptions::default() };
    expect_err(Context::with_options(&options), Code::FailedPrecondition, &["no_such_plugin"]);
    // The failed load is in the report, and nothing else broke.
    let report = ctx.load_report().unwrap();
    assert!(report.iter().any(|r| r.outcome == switchyard::LoadOutcome::Failed && r.requested));
    still_works(&ctx, 115);
}

#[test]
fn unloading_a_plugin_with_live_tensors_is_refused() {
    let ctx = Context::new().unwrap();
    let x = ctx.tensor(&[1.0f32, 2.0], &[2]).unwrap();
    let cpu_plugin = ctx.device("cpu").unwrap().info().unwrap().plugin;
    expect_err(ctx.unload_plugin(&cpu_plugin), Code::FailedPrecondition, &[&cpu_plugin]);
    assert_eq!(x.to_vec::<f32>().unwrap(), vec![1.0, 2.0]);
    still_works(&ctx, 116);
}
