"""Python package v2 (issue 18): the compiled binding, NumPy/PyTorch-like
tensors, out=, DLPack 1.0, the array protocols, sy.profile, types. Random
inputs against float64 references; refusals with their messages."""

import inspect
import math
from pathlib import Path

import numpy as np
import pytest

import switchyard as sy


def test_the_compiled_binding_is_what_import_uses():
    assert Path(sy._C.__file__).name.startswith("_C.")
    assert Path(sy._C.__file__).suffix == ".so"
    assert isinstance(sy.ops.add, sy._C.OpPacket)
    assert issubclass(sy.Tensor, sy._C.TensorBase)


def test_package_is_typed():
    folder = Path(sy.__file__).parent
    assert (folder / "py.typed").exists()
    assert (folder / "__init__.pyi").exists()


# ---- indexing and views ---------------------------------------------------------

def test_basic_indexing_makes_views(ctx, rng):
    data = rng.standard_normal((4, 5, 6)).astype(np.float32)
    x = sy.tensor(data, context=ctx)
    for index in (0, -1, (1, 2), (slice(None), slice(1, 3)), (Ellipsis, None),
                  (slice(None, None, 2), 1), (None, 0, slice(2, None)), (Ellipsis, 3)):
        view = x[index]
        np.testing.assert_array_equal(view.numpy(), data[index], err_msg=str(index))
        assert view.shape == data[index].shape
    # A view shares memory: writing through an op's out= is seen by the base.
    row = x[1]
    ctx.ops.mul(sy.ones((5, 6), context=ctx), sy.tensor(0.0, context=ctx), out=row)
    expected = data.copy()
    expected[1] = 0
    np.testing.assert_array_equal(x.numpy(), expected)


def test_index_out_of_range_is_an_index_error(ctx):
    x = sy.zeros((3, 4), context=ctx)
    with pytest.raises(IndexError):
        x[3]
    with pytest.raises(IndexError):
        x[0, 0, 0]


def test_layout_methods(ctx, rng):
    data = rng.standard_normal((2, 3, 4)).astype(np.float32)
    x = sy.tensor(data, context=ctx)
    np.testing.assert_array_equal(x.reshape(6, 4).numpy(), data.reshape(6, 4))
    np.testing.assert_array_equal(x.view(-1).numpy(), data.reshape(-1))
    np.testing.assert_array_equal(x.permute(2, 0, 1).numpy(), data.transpose(2, 0, 1))
    np.testing.assert_array_equal(x.transpose(0, 2).numpy(), np.swapaxes(data, 0, 2))
    np.testing.assert_array_equal(x.T.numpy(), data.T)
    assert not x.T.is_contiguous
    c = x.T.contiguous()
    assert c.is_contiguous
    np.testing.assert_array_equal(c.numpy(), data.T)
    np.testing.assert_array_equal(x.unsqueeze(1).numpy(), data[:, None])
    assert len(x) == 2
    rows = [r.numpy() for r in x]
    np.testing.assert_array_equal(np.stack(rows), data)


# ---- operators, reductions, dtypes ------------------------------------------------

def test_reflected_and_comparison_operators(ctx, rng):
    a = (rng.standard_normal((3, 4)) + 3).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    x, y = sy.tensor(a, context=ctx), sy.tensor(b, context=ctx)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    np.testing.assert_allclose((2 - x).numpy(), 2 - a64, rtol=1e-6)
    np.testing.assert_allclose((1 / x).numpy(), 1 / a64, rtol=1e-6)
    np.testing.assert_allclose((x ** 2).numpy(), a64 ** 2, rtol=1e-5)
    np.testing.assert_allclose((3 * x + y).numpy(), 3 * a64 + b64, rtol=1e-5, atol=1e-6)
    gt = x > 3
    assert gt.dtype == sy.bool_
    np.testing.assert_array_equal(gt.numpy(), a > 3)
    np.testing.assert_array_equal((x == x).numpy(), np.ones_like(a, bool))
    np.testing.assert_array_equal((x == y).numpy(), a == b)


def test_reductions_take_numpy_and_pytorch_names(ctx, rng):
    data = rng.standard_normal((4, 5)).astype(np.float32)
    x = sy.tensor(data, context=ctx)
    d64 = data.astype(np.float64)
    np.testing.assert_allclose(x.sum().numpy(), d64.sum(), rtol=1e-5)
    np.testing.assert_allclose(x.sum(dim=1).numpy(), d64.sum(1), rtol=1e-5)
    np.testing.assert_allclose(x.mean(axis=0, keepdims=True).numpy(),
                               d64.mean(0, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(x.max(1).numpy(), data.max(1))
    np.testing.assert_array_equal(x.min().numpy(), data.min())
    np.testing.assert_array_equal(x.argmax(1).numpy(), data.argmax(1))
    np.testing.assert_allclose(ctx.ops.sum(x, dim=1, keepdims=True).numpy(),
                               d64.sum(1, keepdims=True), rtol=1e-5)


def test_astype_and_to(ctx, rng):
    data = rng.standard_normal(6).astype(np.float32)
    x = sy.tensor(data, context=ctx)
    assert x.astype("f64").dtype == sy.float64
    np.testing.assert_array_equal(x.to(sy.float64).numpy(), data.astype(np.float64))
    assert x.to("cpu") is x
    assert x.astype(sy.float32, copy=False) is x


def test_bool_of_one_element(ctx):
    assert bool(sy.tensor([1.0], context=ctx))
    assert not bool(sy.tensor(0.0, context=ctx))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(sy.zeros(3, context=ctx))


# ---- out= -----------------------------------------------------------------------------

def test_out_writes_into_the_given_tensor(ctx, rng):
    a = rng.standard_normal(16).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    x, y = sy.tensor(a, context=ctx), sy.tensor(b, context=ctx)
    out = sy.empty(16, context=ctx)
    result = ctx.ops.add(x, y, out=out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), a.astype(np.float64) + b, rtol=1e-6)
    ctx.ops.gelu(x, out=out)
    ref = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in a.astype(np.float64)])
    np.testing.assert_allclose(out.numpy(), ref, atol=1e-5)


def test_out_of_the_wrong_kind_is_refused(ctx):
    x = sy.zeros(4, context=ctx)
    with pytest.raises(sy.InvalidArgumentError):
        ctx.ops.add(x, x, out=np.zeros(4, np.float32))


# ---- schemas: signatures, aliases, docstrings ----------------------------------------

def test_docstrings_and_signatures_from_the_schemas(ctx):
    assert "gelu(" in ctx.ops.gelu.__doc__
    assert "Registered by" in ctx.ops.gelu.__doc__
    assert "out" in ctx.ops.gelu.__doc__
    params = list(inspect.signature(ctx.ops.sum).parameters)
    assert params[:3] == ["x", "dims", "keepdim"]


def test_ints_outside_int64_name_the_argument(ctx):
    x = sy.zeros((2, 3), context=ctx)
    with pytest.raises(sy.InvalidArgumentError, match=r"outside the int64 range"):
        ctx.ops.sum(x, dims=[2**64 + 1])


# ---- NumPy protocols -----------------------------------------------------------------

def test_array_shares_cpu_memory(ctx, rng):
    x = sy.tensor(rng.standard_normal((3, 4)).astype(np.float32), context=ctx)
    array = np.asarray(x)
    assert array.ctypes.data == x.data_ptr


def test_numpy_ufuncs_return_switchyard_tensors(ctx, rng):
    data = rng.standard_normal((3, 4)).astype(np.float32)
    x = sy.tensor(data, context=ctx)
    y = np.add(x, 1.0)
    assert isinstance(y, sy.Tensor)
    np.testing.assert_allclose(y.numpy(), data.astype(np.float64) + 1, rtol=1e-6)
    s = np.sum(x, axis=0)
    assert isinstance(s, sy.Tensor)
    np.testing.assert_allclose(s.numpy(), data.astype(np.float64).sum(0), rtol=1e-5)


def test_numpy_functions_without_an_op_are_refused_not_copied(ctx):
    x = sy.zeros((3, 4), context=ctx)
    with pytest.raises(TypeError, match="has no Switchyard op"):
        np.fft.fft(x)
    with pytest.raises(TypeError, match="has no Switchyard op"):
        np.arctan2(x, x)


# ---- DLPack 1.0 ----------------------------------------------------------------------

def test_dlpack_versions(ctx, rng):
    x = sy.tensor(rng.standard_normal(8).astype(np.float32), context=ctx)
    assert x.__dlpack_device__() == (1, 0)
    capsule = x.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(capsule)
    legacy = x.__dlpack__()
    assert "dltensor" in repr(legacy) and "versioned" not in repr(legacy)
    back = sy.from_dlpack(capsule, context=ctx)
    assert back.data_ptr == x.data_ptr


def test_numpy_import_is_zero_copy(ctx, rng):
    data = rng.standard_normal((4, 4)).astype(np.float32)
    t = sy.from_dlpack(data, copy=False, context=ctx)
    assert t.data_ptr == data.ctypes.data
    np.testing.assert_array_equal(t.numpy(), data)


def test_dlpack_copy_true_copies(ctx, rng):
    x = sy.tensor(rng.standard_normal(8).astype(np.float32), context=ctx)
    y = np.from_dlpack(x.__dlpack__(max_version=(1, 0), copy=True)) \
        if hasattr(np, "__dlpack_version__") else None
    copied = sy.from_dlpack(x, copy=True, context=ctx)
    assert copied.data_ptr != x.data_ptr
    np.testing.assert_array_equal(copied.numpy(), x.numpy())
    del y


# ---- sy.profile -----------------------------------------------------------------------

def test_profile_names_the_plugin_of_each_op(ctx, rng):
    x = sy.tensor(rng.standard_normal((4, 4)).astype(np.float32), context=ctx)
    with sy.profile() as prof:
        ctx.ops.add(x, x)
        ctx.ops.matmul(x, x)
    assert [row.op.split(".")[0] for row in prof.rows] == ["add", "matmul"]
    for row in prof.rows:
        assert row.device == "cpu:0"
        assert row.time_us >= 0
        if row.route == "kernel":
            assert row.plugin and row.kernel.startswith(row.plugin + "::")
