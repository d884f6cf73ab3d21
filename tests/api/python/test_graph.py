"""sy.graph() and sy.compile: capture, fusion and replay from Python against
NumPy float64 references, the eager fallback, and bad input."""

import warnings

import numpy as np
import pytest

import switchyard as sy


def softmax64(z):
    z = z.astype(np.float64)
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def composed_softmax(ops, z):
    e = ops.exp(z - z.max(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def test_with_graph_replays_on_new_inputs(ctx, rng):
    w = rng.standard_normal(33).astype(np.float32)
    tw = sy.tensor(w, context=ctx)
    x0 = sy.empty((4, 33), context=ctx)
    with sy.graph(ctx) as g:
        x = g.input(x0, "x")
        g.output(composed_softmax(ctx.ops, x * tw))
    info = g.info()
    assert info["compiled"] and info["fused_groups"] == 1 and info["unfused_groups"] == 0
    assert g.inputs == [("x", sy.float32, (4, 33), "cpu:0")]
    plan = g.explain(json=True)
    assert [s["plugin"] for s in plan["steps"]] == ["cpu"]
    assert "by plugin cpu" in g.explain()
    for _ in range(2):
        x1 = rng.standard_normal((4, 33)).astype(np.float32)
        got = g(sy.tensor(x1, context=ctx))
        np.testing.assert_allclose(got.numpy(), softmax64(x1 * w), atol=2e-6)
    # Inside the block nothing ran: the captured results have no values.
    with sy.graph(ctx) as g2:
        y = g2.input(x0) * 2
        with pytest.raises(sy.FailedPreconditionError, match="symbolic"):
            y.numpy()
        g2.output(y, x0)  # a real tensor may be an output too
    a, b = g2(sy.tensor(np.ones((4, 33), np.float32), context=ctx))
    assert a.numpy().sum() == 2 * 4 * 33 and b.shape == (4, 33)


def test_graph_bad_input(ctx, rng):
    x0 = sy.empty((2, 3), context=ctx)
    with sy.graph(ctx) as g:
        g.output(g.input(x0, "x") + 1)
    with pytest.raises(sy.InvalidArgumentError,
                       match=r"input 'x' \(#0\) is f32\[3, 2\] but the graph was captured "
                             r"with f32\[2, 3\]"):
        g(sy.empty((3, 2), context=ctx))
    with pytest.raises(sy.InvalidArgumentError, match=r"input 'x' \(#0\) is f64\[2, 3\]"):
        g(sy.empty((2, 3), "f64", context=ctx))
    with pytest.raises(sy.InvalidArgumentError, match=r"takes 1 input\(s\) \('x'\) but "
                                                      r"num_inputs is 2"):
        g(x0, x0)
    with pytest.raises(TypeError, match="graph input #0 must be a switchyard.Tensor"):
        g(np.zeros((2, 3), np.float32))
    with pytest.raises(RuntimeError, match="captured once"):
        with g:
            pass
    # Nested captures and an exception inside the block end the capture.
    with pytest.raises(sy.FailedPreconditionError, match="captures do not nest"):
        with sy.graph(ctx):
            with sy.graph(ctx):
                pass
    with pytest.raises(ZeroDivisionError):
        with sy.graph(ctx) as g3:
            g3.input(x0)
            1 / 0
    assert (x0 + 1).shape == (2, 3)  # ops run again
    with pytest.raises(sy.FailedPreconditionError, match="no output was marked"):
        with sy.graph(ctx):
            pass
    g.release()
    with pytest.raises(RuntimeError, match="released"):
        g(x0)


def test_data_dependent_op_ends_the_capture(ctx):
    x0 = sy.empty((5,), context=ctx)
    with pytest.raises(sy.UnimplementedError, match="op 'argmax' cannot be captured"):
        with sy.graph(ctx, uncapturable=["argmax"]) as g:
            g.output(ctx.ops.argmax(g.input(x0)))


def test_compile_captures_once_per_signature(ctx, rng):
    calls = []

    @sy.compile
    def block(x, w, scale=1.0):
        calls.append(x.shape)
        return {"y": ctx.ops.tanh(x * w) * scale, "same": [x]}

    x = rng.standard_normal((3, 8)).astype(np.float32)
    w = rng.standard_normal(8).astype(np.float32)
    tx, tw = sy.tensor(x, context=ctx), sy.tensor(w, context=ctx)
    for scale in (1.0, 1.0, 2.0):
        out = block(tx, tw, scale=scale)
        np.testing.assert_allclose(out["y"].numpy(), np.tanh(x.astype(np.float64) * w) * scale,
                                   atol=2e-6)
        np.testing.assert_array_equal(out["same"][0].numpy(), x)
    assert len(calls) == 2  # scale=2.0 is a new signature; the repeat replayed
    block(sy.tensor(x[:2], context=ctx), tw)  # another shape: captured anew
    assert len(calls) == 3 and len(block.graphs()) == 3


def test_compile_falls_back_to_eager_with_a_warning(ctx, rng):
    @sy.compile
    def branchy(x):
        if float(x.sum()) > 0:  # reads a value: cannot be captured
            return x * 2
        return x * -1

    x = sy.tensor(np.ones(4, np.float32), context=ctx)
    with pytest.warns(sy.GraphBreakWarning, match="runs eagerly for this input signature"):
        assert branchy(x).numpy().tolist() == [2, 2, 2, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once per signature
        assert branchy(x * -1).numpy().tolist() == [1, 1, 1, 1]

    strict = sy.compile(branchy.__wrapped__, fullgraph=True)
    with pytest.raises(sy.FailedPreconditionError, match="symbolic"):
        strict(x)
    with pytest.raises(ValueError, match="patterns must be one of"):
        sy.compile(lambda x: x, patterns="sometimes")
