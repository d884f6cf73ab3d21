"""switchyard.Tensor: NumPy in and out, layout getters, dtypes, lifetime."""

import numpy as np
import pytest

import switchyard as sy

NUMPY_DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.int8,
                np.uint8, np.bool_]


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_numpy_round_trip_every_dtype(ctx, rng, dtype):
    data = (rng.standard_normal((3, 4)) * 50).astype(dtype)
    t = sy.tensor(data, context=ctx)
    assert t.dtype == dtype
    assert t.shape == (3, 4)
    assert t.ndim == 2
    assert t.numel == 12
    assert t.nbytes == data.nbytes
    assert t.strides == (4, 1)
    assert t.device == ctx.device("cpu:0")
    np.testing.assert_array_equal(t.numpy(), data)
    np.testing.assert_array_equal(np.asarray(t), data)


def test_python_data_follows_pytorch_defaults(ctx):
    assert sy.tensor([1.5, 2.5], context=ctx).dtype == sy.float32
    assert sy.tensor([1, 2], context=ctx).dtype == sy.int64
    assert sy.tensor([True, False], context=ctx).dtype == sy.bool_
    assert sy.tensor(3.0, context=ctx).shape == ()
    assert sy.tensor(3.0, context=ctx).item() == 3.0
    assert sy.tensor([1, 2], dtype="f64", context=ctx).dtype == sy.float64
    assert sy.tensor(np.arange(3), dtype=sy.int32, context=ctx).tolist() == [0, 1, 2]


def test_non_contiguous_numpy_is_copied_in_order(ctx, rng):
    data = rng.standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_array_equal(sy.tensor(data.T, context=ctx).numpy(), data.T)
    np.testing.assert_array_equal(sy.tensor(data[::-1, ::2], context=ctx).numpy(),
                                  data[::-1, ::2])


def test_empty_zeros_ones_and_to(ctx):
    e = sy.empty((2, 0, 3), dtype=np.int64, context=ctx)
    assert e.shape == (2, 0, 3) and e.numel == 0 and e.numpy().shape == (2, 0, 3)
    np.testing.assert_array_equal(sy.zeros((2, 2), context=ctx).numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(sy.ones(3, dtype="i32", context=ctx).numpy(), np.ones(3))
    t = sy.ones(3, context=ctx)
    same = t.to("cpu")
    assert same.data_ptr == t.data_ptr
    copy = sy.tensor(t)
    assert copy.data_ptr != t.data_ptr
    np.testing.assert_array_equal(copy.numpy(), t.numpy())
    assert sy.tensor(t, dtype="f64").dtype == sy.float64
    assert len(t) == 3
    assert "f32[3] on cpu:0" in repr(t)


def test_dtypes_accept_every_spelling():
    assert sy.float32 == np.float32
    assert sy.float32 == np.dtype("float32")
    assert sy.float32 == "f32"
    assert sy.float32 == "float32"
    assert sy.float32 != sy.float64
    assert sy.bfloat16.numpy is None
    assert sy.bool_.itemsize == 1
    with pytest.raises(TypeError, match="complex64 has no Switchyard counterpart"):
        sy.tensor(np.ones(2, np.complex64))
    with pytest.raises(sy.InvalidArgumentError, match="unknown dtype 'f31'"):
        sy.tensor([1.0], dtype="f31")


def test_bfloat16_needs_a_cast_to_reach_numpy(ctx):
    x = sy.tensor([1.0, 2.0], context=ctx)
    try:
        b = ctx.ops.cast(x, sy.bfloat16)
    except sy.UnimplementedError:
        pytest.skip("no bf16 cast kernel yet")
    with pytest.raises(TypeError, match="bf16 has no NumPy dtype"):
        b.numpy()
    np.testing.assert_array_equal(ctx.ops.cast(b, "f32").numpy(), [1.0, 2.0])


def test_tensors_of_a_closed_context_fail_cleanly(rng):
    context = sy.Context(use_environment=False)
    t = sy.tensor(rng.standard_normal(4).astype(np.float32), context=context)
    context.close()
    with pytest.raises(sy.InvalidArgumentError, match="stale tensor handle"):
        t.numpy()
    with pytest.raises(sy.FailedPreconditionError, match="was closed"):
        context.devices()
    context.close()  # closing twice is harmless
    del t  # releasing a stale handle in __del__ is silent
    assert sy.tensor([1.0]).numpy().tolist() == [1.0]  # others still work
