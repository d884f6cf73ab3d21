"""switchyard.ops: generated from the registry, called with positional and
keyword arguments, checked against float64 NumPy references."""

import inspect
import math

import numpy as np
import pytest

import switchyard as sy


def close(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(got.numpy().astype(np.float64), want, rtol=rtol, atol=atol)


def test_the_readme_example():
    x = sy.tensor(np.ones((2, 3), np.float32))
    y = sy.ops.gelu(x)
    want = 0.5 * (1 + math.erf(1 / math.sqrt(2)))
    np.testing.assert_allclose(y.numpy(), np.full((2, 3), want), rtol=1e-6)


def test_ops_come_from_the_schema_registry(ctx):
    ops = ctx.ops
    assert {"add", "gelu", "sum", "matmul", "concat", "scaled_dot_product_attention"} <= set(dir(ops))
    assert ops.add.Tensor.schema == "add.Tensor(Tensor a, Tensor b) -> Tensor"
    assert ops.add.Scalar.schema == "add.Scalar(Tensor a, Scalar b) -> Tensor"
    assert ops.sum.__doc__.startswith("sum(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor")
    assert "Registered by core." in ops.gelu.__doc__
    assert str(inspect.signature(ops.sum)) == "(x, dims=[], keepdim=False)"
    assert str(inspect.signature(ops.layer_norm)) == (
        "(x, normalized_shape, weight=None, bias=None, eps=1e-05)")
    assert ops.gelu.overloads[0].args[1].default == "none"
    with pytest.raises(AttributeError):
        ops.frobnicate


def test_unary_ops_match_float64(ctx, rng):
    x64 = rng.uniform(-4, 4, (5, 7))
    x = sy.tensor(x64.astype(np.float32), context=ctx)
    xf = x.numpy().astype(np.float64)
    erf = np.vectorize(math.erf)
    close(ctx.ops.relu(x), np.maximum(xf, 0))
    close(ctx.ops.gelu(x), 0.5 * xf * (1 + erf(xf / math.sqrt(2))), atol=1e-6)
    tanh_gelu = 0.5 * xf * (1 + np.tanh(math.sqrt(2 / math.pi) * (xf + 0.044715 * xf ** 3)))
    close(ctx.ops.gelu(x, approximate="tanh"), tanh_gelu, atol=1e-6)
    close(ctx.ops.gelu(x, "tanh"), tanh_gelu, atol=1e-6)
    close(ctx.ops.exp(x), np.exp(xf))
    close(ctx.ops.sigmoid(x), 1 / (1 + np.exp(-xf)), atol=1e-6)
    close(-x, -xf)


def test_binary_ops_broadcast_like_numpy(ctx, rng):
    a64, b64 = rng.standard_normal((4, 1)), rng.standard_normal((1, 5))
    a = sy.tensor(a64.astype(np.float32), context=ctx)
    b = sy.tensor(b64.astype(np.float32), context=ctx)
    af, bf = a.numpy().astype(np.float64), b.numpy().astype(np.float64)
    close(ctx.ops.add(a, b), af + bf)
    close(a + b, af + bf)
    close(ctx.ops.mul(a, b), af * bf)
    close(a * b, af * bf)
    close(a - b, af - bf)
    close(ctx.ops.add(a, 2.5), af + 2.5)      # the Scalar overload, chosen by type
    close(ctx.ops.add.Scalar(a, 2), af + 2)   # an int Scalar
    close(3 * a, 3 * af)
    np.testing.assert_array_equal(ctx.ops.gt(a, 0.0).numpy(), af > 0)


def test_matmul_and_reductions_match_float64(ctx, rng):
    a64, b64 = rng.standard_normal((2, 5, 6)), rng.standard_normal((6, 3))
    a = sy.tensor(a64.astype(np.float32), context=ctx)
    b = sy.tensor(b64.astype(np.float32), context=ctx)
    af, bf = a.numpy().astype(np.float64), b.numpy().astype(np.float64)
    close(ctx.ops.matmul(a, b), af @ bf)
    close(a @ b, af @ bf)
    close(ctx.ops.sum(a), af.sum())
    close(ctx.ops.sum(a, dims=[1, 2]), af.sum(axis=(1, 2)))
    close(ctx.ops.sum(a, 2, True), af.sum(axis=2, keepdims=True))  # int for int[]
    close(ctx.ops.sum(a, keepdim=True), af.sum(keepdims=True))      # dims defaulted
    close(ctx.ops.mean(a, dims=[-1]), af.mean(axis=-1))
    np.testing.assert_array_equal(ctx.ops.argmax(a, dim=2).numpy(), af.argmax(axis=2))


def test_norms_with_optional_tensors_and_float_attributes(ctx, rng):
    x64, w64 = rng.standard_normal((3, 8)), rng.standard_normal(8)
    x = sy.tensor(x64.astype(np.float32), context=ctx)
    w = sy.tensor(w64.astype(np.float32), context=ctx)
    xf, wf = x.numpy().astype(np.float64), w.numpy().astype(np.float64)
    e = np.exp(xf - xf.max(axis=-1, keepdims=True))
    close(ctx.ops.softmax(x), e / e.sum(axis=-1, keepdims=True), atol=1e-6)
    rms = xf / np.sqrt((xf ** 2).mean(axis=-1, keepdims=True) + 0.5) * wf
    close(ctx.ops.rms_norm(x, w, eps=0.5), rms, atol=1e-6)
    mu, var = xf.mean(axis=-1, keepdims=True), xf.var(axis=-1, keepdims=True)
    close(ctx.ops.layer_norm(x, [8]), (xf - mu) / np.sqrt(var + 1e-5), atol=1e-5)
    close(ctx.ops.layer_norm(x, [8], weight=w), (xf - mu) / np.sqrt(var + 1e-5) * wf,
          atol=1e-5)
    close(ctx.ops.layer_norm(x, [8], None, None, 1e-5), (xf - mu) / np.sqrt(var + 1e-5),
          atol=1e-5)


def test_tensor_lists_dtypes_and_multiple_args(ctx, rng):
    parts = [rng.standard_normal((n, 2)).astype(np.float32) for n in (1, 3, 2)]
    out = ctx.ops.concat([sy.tensor(p, context=ctx) for p in parts], dim=0)
    np.testing.assert_array_equal(out.numpy(), np.concatenate(parts))
    x = sy.tensor(np.array([1.5, -2.5], np.float32), context=ctx)
    for spelling in (sy.float64, np.float64, "f64", "double"):
        assert ctx.ops.cast(x, spelling).dtype == sy.float64
    np.testing.assert_array_equal(ctx.ops.cast(x, dtype="i32").numpy(), [1, -2])
    t = ctx.ops.transpose(sy.tensor(parts[1], context=ctx), 0, 1)
    np.testing.assert_array_equal(t.numpy(), parts[1].T)


def test_binding_errors_name_the_op_and_argument(ctx):
    x = sy.tensor(np.ones((2, 3), np.float32), context=ctx)
    cases = [
        (lambda: ctx.ops.sum(x, bogus=1),
         "sum: got an unexpected keyword argument 'bogus'"),
        (lambda: ctx.ops.transpose(x, 0),
         "transpose: missing required argument 'dim1' (int)"),
        (lambda: ctx.ops.sum(x, dims="all"),
         "sum: argument 'dims' must be int[], got str"),
        (lambda: ctx.ops.sum(x, [1], True, 3),
         "sum: takes 3 argument(s) but 4 were given"),
        (lambda: ctx.ops.relu(np.ones(3)),
         "relu: argument 'x' must be a Tensor, got ndarray; wrap it with switchyard.tensor()"),
        (lambda: ctx.ops.sum(x, [0], keepdim=1),
         "sum: argument 'keepdim' must be bool, got int"),
        (lambda: ctx.ops.sum(x, [0], dims=[1]),
         "sum: got multiple values for argument 'dims'"),
    ]
    for call, message in cases:
        with pytest.raises(sy.InvalidArgumentError) as info:
            call()
        assert message in str(info.value)
    with pytest.raises(sy.InvalidArgumentError, match="no overload accepts these arguments"):
        ctx.ops.add(x, "two")
    np.testing.assert_array_equal(ctx.ops.relu(x).numpy(), np.ones((2, 3)))  # still fine


def test_failed_calls_raise_with_the_c_message(ctx):
    x = sy.tensor(np.ones((2, 3), np.float32), context=ctx)
    with pytest.raises(sy.InvalidArgumentError) as info:
        ctx.ops.matmul(x, x)
    assert str(info.value).startswith("sy_op_call: matmul: ")
    assert isinstance(info.value, ValueError)
    assert info.value.code == "INVALID_ARGUMENT"
    with pytest.raises(sy.InvalidArgumentError, match="gelu"):
        ctx.ops.gelu(x, approximate="fast")
    other = sy.Context(use_environment=False)
    try:
        y = sy.tensor([1.0, 2.0, 3.0], context=other)
        with pytest.raises(sy.InvalidArgumentError, match="belongs to another context"):
            ctx.ops.add(sy.tensor([1.0, 2.0, 3.0], context=ctx), y)
    finally:
        other.close()
    np.testing.assert_array_equal((x + x).numpy(), np.full((2, 3), 2.0))


def test_explain_names_the_kernel(ctx):
    x = sy.tensor(np.ones(4, np.float32), context=ctx)
    assert "cpu" in ctx.ops.relu.explain(x)
    assert "view" in ctx.ops.reshape.explain(x, [2, 2])


def test_plugin_ops_appear_in_their_namespace(ctx, test_plugin_dir):
    ctx.load_plugin(test_plugin_dir / "test_good" / "test_good.json")
    op = ctx.ops.test_good.double_it
    assert op.__doc__.startswith("test_good::double_it(Tensor x) -> Tensor")
    assert "Registered by test_good." in op.__doc__
    x = sy.tensor(np.array([1.0, -2.0, 3.5], np.float32), device=ctx.device("fakedev"))
    np.testing.assert_array_equal(op(x).numpy(), [2.0, -4.0, 7.0])
    del x, op
    ctx.unload_plugin("test_good")
    assert not hasattr(ctx.ops, "test_good")
