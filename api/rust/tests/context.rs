//! Contexts, the load report, devices, tensors (every element type, views,
//! ownership), allocator statistics and threads, through the safe API.

mod common;

use std::path::PathBuf;

use common::*;
use switchyard::{ArgKind, Attr, Context, ContextOptions, DType, Element, LoadOutcome};

/// The cpu plugin's manifest in the build tree the crate was linked
/// against, if the build script knew it.
fn cpu_manifest() -> Option<PathBuf> {
    let dir = option_env!("SWITCHYARD_BUILT_LIB_DIR")?;
    let path = PathBuf::from(dir).join("switchyard/plugins/cpu.json");
    path.exists().then(|| path)
}

#[test]
fn versions_report_and_devices() {
    let (major, _minor) = switchyard::api_version();
    assert_eq!(major, 1);
    assert!(!switchyard::library_version().is_empty());

    let ctx = Context::new().unwrap();
    let report = ctx.load_report().unwrap();
    let cpu = report.iter().find(|r| r.name == "cpu").expect("the cpu plugin is in the load report");
    assert_eq!(cpu.outcome, LoadOutcome::Loaded, "{}", cpu.description);
    assert!(cpu.num_devices >= 1 && cpu.num_kernels > 0);
    assert_eq!(cpu.reason, "");

    let devices = ctx.devices().unwrap();
    assert!(!devices.is_empty());
    let info = ctx.device("cpu:0").unwrap().info().unwrap();
    assert_eq!((info.label.as_str(), info.device_type.as_str()), ("cpu:0", "cpu"));
    assert_eq!(info.plugin, "cpu");
    assert_eq!(info.dl_device, (1, 0), "kDLCPU, id 0");
    assert_eq!(info.float_flags, 0, "the cpu keeps subnormals");
    assert!(devices.contains(&ctx.device("cpu").unwrap()), "one handle per device");
    assert!(ctx.info_json().unwrap().contains("\"cpu\""));
    ctx.synchronize().unwrap();
    devices[0].synchronize().unwrap();
}

#[test]
fn op_metadata_follows_the_schema() {
    let ctx = Context::new().unwrap();
    let sum = ctx.op("sum").unwrap();
    assert_eq!(sum.full_name(), "sum");
    assert_eq!(sum.owner(), "core");
    assert_eq!(sum.num_outputs(), 1);
    let names: Vec<&str> = sum.args().iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["x", "dims", "keepdim"]);
    assert_eq!(sum.args()[0].kind, ArgKind::Tensor);
    assert_eq!(sum.args()[1].kind, ArgKind::IntList);
    assert_eq!(sum.args()[2].attr_index, Some(1));
    assert_eq!(ctx.op("add").unwrap().full_name(), "add.Tensor", "a base name finds the first overload");
    let all = ctx.ops().unwrap();
    for name in ["matmul", "gelu", "softmax", "sum", "add.Tensor", "mul.Scalar"] {
        assert!(all.iter().any(|op| op.full_name() == name), "{name} is listed");
    }
}

fn roundtrip<T: Element + PartialEq + std::fmt::Debug>(ctx: &Context, data: Vec<T>, shape: &[i64]) {
    let t = ctx.tensor(&data, shape).unwrap();
    assert_eq!(t.dtype().unwrap(), T::DTYPE);
    assert_eq!(t.shape().unwrap(), shape);
    assert_eq!(t.ndim().unwrap(), shape.len());
    assert_eq!(t.numel().unwrap(), data.len());
    assert_eq!(t.nbytes().unwrap(), data.len() * T::DTYPE.size());
    if !data.is_empty() {
        // (Strides of an empty tensor are a convention, not a layout.)
        assert_eq!(t.strides().unwrap().iter().map(|&s| s as usize).collect::<Vec<_>>(), strides(shape));
    }
    assert_eq!(t.to_vec::<T>().unwrap(), data, "{} round trip", T::DTYPE);
    assert_eq!(t.to_bytes().unwrap().len(), t.nbytes().unwrap());
}

#[test]
fn every_element_type_round_trips() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(200);
    let shape = rng.shape(3, 4);
    let n = numel(&shape);
    roundtrip(&ctx, (0..n).map(|_| rng.uniform(-1e3, 1e3) as f32).collect(), &shape);
    roundtrip(&ctx, rng.vec(n, -1e3, 1e3), &shape);
    roundtrip(&ctx, (0..n).map(|_| rng.int(i32::MIN as i64, i32::MAX as i64) as i32).collect(), &shape);
    roundtrip(&ctx, (0..n).map(|_| rng.next_u64() as i64).collect(), &shape);
    roundtrip(&ctx, (0..n).map(|_| rng.int(-128, 127) as i8).collect(), &shape);
    roundtrip(&ctx, (0..n).map(|_| rng.int(0, 255) as u8).collect(), &shape);
    roundtrip(&ctx, (0..n).map(|_| rng.int(0, 1) == 1).collect(), &shape);
    // A scalar (rank 0) and a tensor with no elements.
    roundtrip(&ctx, vec![rng.uniform(-1.0, 1.0)], &[]);
    roundtrip::<f32>(&ctx, vec![], &[3, 0]);
    assert_eq!(ctx.tensor(&[7i64], &[]).unwrap().item::<i64>().unwrap(), 7);
}

#[test]
fn half_precision_through_bytes_and_cast() {
    // Multiples of 1/8 in [-8, 8] are exact in f16 and bf16: casting f32 →
    // f16/bf16 → f32 must give them back unchanged.
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(201);
    let values: Vec<f32> = (0..24).map(|_| rng.int(-64, 64) as f32 / 8.0).collect();
    let x = ctx.tensor(&values, &[4, 6]).unwrap();
    for half in [DType::F16, DType::BF16] {
        let h = ctx.call("cast", &[&x], &[("dtype", half.into())]).unwrap();
        assert_eq!(h.dtype().unwrap(), half);
        let bytes = h.to_bytes().unwrap();
        assert_eq!(bytes.len(), 2 * values.len());
        let again = ctx.tensor_from_bytes(half, &[4, 6], &bytes).unwrap();
        let back = ctx.call("cast", &[&again], &[("dtype", DType::F32.into())]).unwrap();
        assert_eq!(back.to_vec::<f32>().unwrap(), values, "{half} round trip");
    }
}

#[test]
fn clones_share_a_tensor_and_drop_releases() {
    let ctx = Context::new().unwrap();
    let cpu = ctx.device("cpu").unwrap();
    let mut rng = Rng::new(202);
    let values = rng.vec(64, -1.0, 1.0);
    let before = cpu.allocator_stats().unwrap();
    let x = ctx.tensor(&values, &[8, 8]).unwrap();
    let y = x.clone();
    assert_eq!(x.raw(), y.raw(), "a clone is another reference to the same handle");
    assert_eq!(x.data_ptr().unwrap(), y.data_ptr().unwrap());
    drop(x);
    assert_eq!(y.to_vec::<f64>().unwrap(), values, "the clone keeps the tensor alive");
    let during = cpu.allocator_stats().unwrap();
    assert!(during.num_allocations > before.num_allocations);
    assert!(during.allocated_bytes >= before.allocated_bytes + 64 * 8);
    drop(y);
    let after = cpu.allocator_stats().unwrap();
    assert!(after.allocated_bytes < during.allocated_bytes, "{after:?} vs {during:?}");
    cpu.empty_cache().unwrap();
    // Same device: a new reference to the same tensor.
    let z = ctx.tensor(&values, &[64]).unwrap();
    let moved = z.to_device(&cpu).unwrap();
    assert_eq!(moved.data_ptr().unwrap(), z.data_ptr().unwrap());
    assert_eq!(moved.device().unwrap(), cpu);
}

#[test]
fn call_out_and_explain_and_optional_tensors() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(203);
    let (a, b) = (rng.vec(12, -1.0, 1.0), rng.vec(12, -1.0, 1.0));
    let (ta, tb) = (ctx.tensor(&a, &[3, 4]).unwrap(), ctx.tensor(&b, &[3, 4]).unwrap());
    let out = ctx.empty(DType::F64, &[3, 4]).unwrap();
    let add = ctx.op("add").unwrap();
    add.call_out(&[Some(&ta), Some(&tb)], &[], &[&out]).unwrap();
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_close("add into out", &out.to_vec::<f64>().unwrap(), &want, 1e-12, 1e-12);
    // explain names the kernel and the plugin it comes from.
    let how = add.explain(&[&ta, &tb], &[]).unwrap();
    let plugins = ctx.load_report().unwrap();
    assert!(how.contains("kernel") && plugins.iter().any(|p| how.contains(&p.name)), "{how}");

    // layer_norm's weight and bias are optional: leave them out or pass None.
    let ln = ctx.op("layer_norm").unwrap();
    let plain = ln.call(&[&ta], &[("normalized_shape", vec![4].into())]).unwrap();
    let with_none = ln
        .call_optional(
            &[Some(&ta), None, None],
            &[("normalized_shape", vec![4].into()), ("eps", 1e-5.into())],
        )
        .unwrap();
    let (got, again) = (plain.to_vec::<f64>().unwrap(), with_none.to_vec::<f64>().unwrap());
    assert_eq!(got, again);
    for row in 0..3 {
        let xs = &a[row * 4..row * 4 + 4];
        let mean = xs.iter().sum::<f64>() / 4.0;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 4.0;
        let want: Vec<f64> = xs.iter().map(|x| (x - mean) / (var + 1e-5).sqrt()).collect();
        assert_close("layer_norm row", &got[row * 4..row * 4 + 4], &want, 1e-9, 1e-9);
    }
    // argmax's `int? dim` takes None.
    let am = ctx.call("argmax", &[&ta], &[("dim", Attr::None)]).unwrap();
    let best = a.iter().enumerate().fold(0, |bi, (i, v)| if *v > a[bi] { i } else { bi });
    assert_eq!(am.to_vec::<i64>().unwrap(), vec![best as i64]);
}

#[test]
fn explicit_plugin_choices() {
    // No discovery at all: no devices.
    let bare =
        ContextOptions { use_environment: false, use_default_path: false, ..ContextOptions::default() };
    let ctx = Context::with_options(&bare).unwrap();
    assert!(ctx.devices().unwrap().is_empty());
    assert!(ctx.load_report().unwrap().is_empty());
    let manifest = match cpu_manifest() {
        Some(manifest) => manifest,
        None => {
            eprintln!("SWITCHYARD_LIB_DIR unknown at build time; skipping the manifest part");
            return;
        }
    };
    // Loading the manifest afterwards makes cpu usable.
    ctx.load_plugin(&manifest).unwrap();
    let x = ctx.tensor(&[1.0f32, -1.0], &[2]).unwrap();
    assert_eq!(ctx.call("relu", &[&x], &[]).unwrap().to_vec::<f32>().unwrap(), vec![1.0, 0.0]);
    drop(x);
    // …and so does naming it up front; then it can be unloaded once no
    // tensor lives on its devices.
    let named = ContextOptions { plugin_manifests: vec![manifest], ..bare };
    let ctx = Context::with_options(&named).unwrap();
    let record = &ctx.load_report().unwrap()[0];
    assert!(record.requested && record.outcome == LoadOutcome::Loaded);
    let cpu = ctx.device("cpu").unwrap();
    ctx.unload_plugin("cpu").unwrap();
    assert_eq!(ctx.device("cpu").unwrap_err().code, switchyard::Code::NotFound);
    // The old device handle is stale now: an error, never a crash.
    let stale = cpu.empty(DType::F32, &[2]).unwrap_err();
    assert_eq!(stale.code, switchyard::Code::FailedPrecondition, "{}", stale.message);
    assert!(stale.message.contains("unloaded"), "{}", stale.message);
    assert!(cpu.allocator_stats().is_err());
    assert!(cpu.synchronize().is_err());
}

#[test]
fn threads_share_a_context_and_tensors() {
    let ctx = Context::new().unwrap();
    let mut rng = Rng::new(204);
    let (m, k, n) = (5i64, 7i64, 3i64);
    let (va, vb) = (rng.vec(35, -1.0, 1.0), rng.vec(21, -1.0, 1.0));
    let a = ctx.tensor(&va, &[m, k]).unwrap();
    let b = ctx.tensor(&vb, &[k, n]).unwrap();
    let matmul = ctx.op("matmul").unwrap();
    let (want, _) = common::matmul(&va, &[m, k], &vb, &[k, n]);
    std::thread::scope(|s| {
        for t in 0..4 {
            let (ctx, a, b, matmul, want) = (&ctx, &a, &b, &matmul, &want);
            s.spawn(move || {
                for _ in 0..25 {
                    let y = matmul.call(&[a, b], &[]).unwrap();
                    assert_close(
                        &format!("matmul on thread {t}"),
                        &y.to_vec::<f64>().unwrap(),
                        want,
                        1e-12,
                        1e-12,
                    );
                }
                // Errors are per thread: this one's message is its own.
                let e = ctx.op(&format!("no_such_op_{t}")).unwrap_err();
                assert!(e.message.contains(&format!("no_such_op_{t}")), "{}", e.message);
            });
        }
    });
    // A tensor made on one thread is released on another.
    let moved = ctx.tensor(&va, &[m, k]).unwrap();
    std::thread::scope(|s| {
        s.spawn(move || drop(moved));
    });
}
