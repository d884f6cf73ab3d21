"""DLPack exchange with NumPy: shared memory (checked by pointer identity),
lifetimes, and the copy modes of sy.from_dlpack."""

import gc

import numpy as np
import pytest

import switchyard as sy


def test_numpy_reads_switchyard_memory_in_place(ctx, rng):
    data = rng.standard_normal((3, 4)).astype(np.float32)
    t = sy.tensor(data, context=ctx)
    assert t.__dlpack_device__() == (1, 0)  # kDLCPU, device 0
    view = np.from_dlpack(t)
    assert view.ctypes.data == t.data_ptr
    np.testing.assert_array_equal(view, data)
    # The export keeps the memory alive past the tensor and its context.
    del t
    gc.collect()
    ctx.close()
    np.testing.assert_array_equal(view, data)


def test_views_export_their_strides(ctx, rng):
    data = rng.standard_normal((2, 3)).astype(np.float32)
    t = sy.tensor(data, context=ctx)
    tr = ctx.ops.transpose(t, 0, 1)
    view = np.from_dlpack(tr)
    assert view.ctypes.data == t.data_ptr
    np.testing.assert_array_equal(view, data.T)


def test_switchyard_round_trip_is_the_same_memory(ctx, rng):
    t = sy.tensor(rng.standard_normal(5).astype(np.float32), context=ctx)
    for copy in (None, False):
        back = sy.from_dlpack(t, copy=copy, context=ctx)
        assert back.data_ptr == t.data_ptr
    copied = sy.from_dlpack(t, copy=True, context=ctx)
    assert copied.data_ptr != t.data_ptr
    np.testing.assert_array_equal(copied.numpy(), t.numpy())


def test_numpy_arrays_come_in_shared_or_copied(ctx, rng):
    data = rng.standard_normal((4, 3)).astype(np.float32)
    try:
        shared = sy.from_dlpack(data, copy=False, context=ctx)
    except sy.UnimplementedError as error:
        assert "cannot share foreign memory" in str(error)
        pytest.skip("zero-copy import needs sy::Storage::Wrap in dispatcher/tensor.h")
    assert shared.data_ptr == data.ctypes.data
    np.testing.assert_array_equal(shared.numpy(), data)
    data[0, 0] = 42.0  # one memory
    assert shared.numpy()[0, 0] == 42.0


def test_share_or_copy_and_copy_give_the_values(ctx, rng):
    data = rng.standard_normal((4, 3)).astype(np.float32)
    for copy in (None, True):
        t = sy.from_dlpack(data, copy=copy, context=ctx)
        np.testing.assert_array_equal(t.numpy(), data)
        if copy:
            assert t.data_ptr != data.ctypes.data
    strided = data[:, ::2]
    np.testing.assert_array_equal(sy.from_dlpack(strided, context=ctx).numpy(), strided)
    for dtype in (np.float64, np.int32, np.int64, np.uint8, np.int8, np.float16):
        typed = (data * 10).astype(dtype)
        got = sy.from_dlpack(typed, context=ctx)
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.numpy(), typed)


def test_a_capsule_is_consumed_once(ctx):
    capsule = np.arange(3, dtype=np.float32).__dlpack__()
    t = sy.from_dlpack(capsule, context=ctx)
    np.testing.assert_array_equal(t.numpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="consumed only once"):
        sy.from_dlpack(capsule, context=ctx)


def test_an_unconsumed_export_frees_its_memory(ctx):
    cpu = ctx.device("cpu")
    baseline = cpu.allocator_stats().allocated_bytes
    t = sy.tensor(np.ones(1024, np.float32), context=ctx)
    capsule = t.__dlpack__()
    del t
    gc.collect()
    assert cpu.allocator_stats().allocated_bytes >= baseline + 4096  # held by the capsule
    del capsule
    gc.collect()
    assert cpu.allocator_stats().allocated_bytes == baseline


def test_unsupported_arrays_are_refused(ctx):
    with pytest.raises((sy.InvalidArgumentError, BufferError, TypeError)):
        sy.from_dlpack(np.ones(2, np.complex64), context=ctx)
    with pytest.raises(ValueError, match="copy must be None, True or False"):
        sy.from_dlpack(np.ones(2, np.float32), copy="yes", context=ctx)


def test_stream_values_follow_the_dlpack_table(ctx):
    # cpu memory has no streams: None, or -1 (no synchronization), only.
    # The CUDA rows of the table are checked in test_torch_cuda.py.
    t = sy.tensor(np.ones(2, np.float32), context=ctx)
    for stream in (None, -1):
        np.testing.assert_array_equal(np.from_dlpack(_Producer(t, stream)), [1, 1])
    with pytest.raises(sy.InvalidArgumentError,
                       match="stream=1 for a tensor on cpu:0: this device has no streams"):
        t.__dlpack__(stream=1)
    with pytest.raises(TypeError, match="stream must be an int or None, got bool"):
        t.__dlpack__(stream=True)


class _Producer:
    """Hands NumPy the capsule of `tensor.__dlpack__(stream=stream)`."""

    def __init__(self, tensor, stream):
        self.tensor, self.stream = tensor, stream

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__(stream=self.stream)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_a_copy_the_producer_made_is_not_copied_again(ctx):
    cpu = ctx.device("cpu")
    t = sy.tensor(np.arange(256, dtype=np.float32), context=ctx)
    capsule = t.__dlpack__(max_version=(1, 0), copy=True)  # flagged IS_COPIED
    held = cpu.allocator_stats().allocated_bytes
    got = sy.from_dlpack(capsule, copy=True, context=ctx)
    assert cpu.allocator_stats().allocated_bytes == held  # the producer's copy, shared
    assert got.data_ptr != t.data_ptr
    np.testing.assert_array_equal(got.numpy(), np.arange(256, dtype=np.float32))
