"""Hostile Python callers (issue 14): integers ctypes would wrap, and the op
namespace rebuilt while another thread loads and unloads plugins."""

import threading

import numpy as np
import pytest

import switchyard as sy
from switchyard._ops import build_namespace

BIG = 2**64 + 1  # ctypes.c_int64(BIG) is 1


def test_ints_outside_int64_are_refused_naming_the_argument(ctx):
    x = sy.tensor(np.ones((2, 3), np.float32), context=ctx)
    cases = [
        (lambda: sy.empty((2**64 + 3,), context=ctx),
         "switchyard.empty: shape[0] is 18446744073709551619, outside the int64 range"),
        (lambda: sy.empty((2, -(2**63) - 1), context=ctx),
         "switchyard.empty: shape[1] is -9223372036854775809, outside the int64 range"),
        (lambda: ctx.ops.add(x, BIG),
         "add.Scalar(Tensor a, Scalar b) -> Tensor: argument 'b' is "
         "18446744073709551617, outside the int64 range"),
        (lambda: ctx.ops.sum(x, dims=[0, BIG]),
         "argument 'dims'[1] is 18446744073709551617, outside the int64 range"),
        (lambda: ctx.ops.sum(x, dims=np.uint64(2**64 - 1)),
         "argument 'dims' is 18446744073709551615, outside the int64 range"),
        (lambda: ctx.ops.transpose(x, 0, -(2**63) - 1),
         "transpose: argument 'dim1' is -9223372036854775809, outside the int64 range"),
        (lambda: ctx.ops.rms_norm(x, sy.tensor(np.ones(3, np.float32), context=ctx),
                                  2**1024),
         "rms_norm: argument 'eps' is " + str(2**1024) + ", too large for a float"),
    ]
    for call, message in cases:
        with pytest.raises(sy.InvalidArgumentError) as info:
            call()
        assert message in str(info.value), str(info.value)
    # The int64 edges themselves reach C, whose own range checks answer.
    with pytest.raises(sy.InvalidArgumentError, match="has 9223372036854775807 at index 0, out of range"):
        ctx.ops.sum(x, dims=[2**63 - 1])
    # Nothing was changed: x still computes.
    np.testing.assert_array_equal(ctx.ops.sum(x, dims=[1]).numpy(), [3.0, 3.0])


def test_op_namespace_survives_plugins_loading_and_unloading(ctx, test_plugin_dir):
    manifest = test_plugin_dir / "test_good" / "test_good.json"
    errors = []
    stop = threading.Event()

    def churn():
        try:
            for _ in range(60):
                ctx.load_plugin(manifest)
                ctx.unload_plugin("test_good")
            ctx.load_plugin(manifest)  # ends loaded
        except Exception as error:  # noqa: BLE001 — reported below
            errors.append(error)
        finally:
            stop.set()

    def read():
        # exp: an op test_good registers no kernel for.
        x = sy.tensor(np.array([0.0, 1.0], np.float32), context=ctx)
        want = np.exp(np.array([0.0, 1.0], np.float32))
        try:
            while not stop.is_set():
                ops = build_namespace(ctx)  # what ctx.ops does after a change
                np.testing.assert_allclose(ops.exp(x).numpy(), want, rtol=1e-6)
                np.testing.assert_allclose(ctx.ops.exp(x).numpy(), want, rtol=1e-6)
        except Exception as error:  # noqa: BLE001
            errors.append(error)

    threads = [threading.Thread(target=churn), threading.Thread(target=read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    # The last load is visible: no stale namespace was kept.
    assert hasattr(ctx.ops, "test_good")
