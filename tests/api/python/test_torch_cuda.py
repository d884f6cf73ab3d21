"""PyTorch on CUDA (issue 18): zero-copy both ways through DLPack, the
stream protocol in both directions, __cuda_array_interface__, ops on
memory the other library owns, lifetimes, and the errors of bad input.

Runs where PyTorch has CUDA and Switchyard's cuda plugin has a device
(tools/bench/python/device_run.sh tests, on the GPU machine); skipped,
with the reason, anywhere else. Expected values are exact: inputs are small
integers or halves, which every dtype here (bf16 included) and every
accumulation order (cuBLAS with or without TF32) represent exactly.

How the stream protocol works here (Note [Importing CUDA memory] in
api/python/src/cuda_interop.cc): the consumer names a stream in
`__dlpack__(stream=...)` and the producer makes that stream wait for its
*current* stream. sy.from_dlpack names the legacy default stream (1) and
then waits for it on the host, so PyTorch work queued on a non-default
stream is complete when the import returns, provided the import runs
while that stream is current (`with torch.cuda.stream(s)`) — which is what
"the producer's stream" means in DLPack. The other way, Switchyard's
export waits for the tensor's pending work, so any consumer stream may read
at once.
"""

import gc

import numpy as np
import pytest

import switchyard as sy

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("this PyTorch has no CUDA device (or is a CPU-only build)",
                allow_module_level=True)

# About 50 ms of GPU time at H100 clocks: long enough that a consumer which
# did not wait would certainly read first.
SLEEP_CYCLES = 100_000_000


@pytest.fixture(scope="module")
def ctx():
    """One context for the module (loading the cuda plugin is not free),
    with the plugins next to the library, like conftest's ctx."""
    context = sy.Context(use_environment=False)
    try:
        context.device("cuda:0")
    except sy.NotFoundError as error:
        context.close()
        pytest.skip(f"switchyard has no cuda:0 device: {error}")
    yield context
    context.close()


@pytest.fixture(scope="module")
def cuda(ctx):
    return ctx.device("cuda:0")


@pytest.fixture
def rng():
    return np.random.default_rng(20261127)


def _sleep_on_current_stream():
    """Keeps the current torch stream busy for a while (a long kernel)."""
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(SLEEP_CYCLES)
    else:  # a private helper; a big matmul chain does the same
        a = torch.ones(4096, 4096, device="cuda")
        for _ in range(8):
            a = a @ a / 4096.0


class _CudaArrayOnly:
    """An object with __cuda_array_interface__ and nothing else (as Numba's
    device arrays), so torch.as_tensor takes that path and not DLPack.
    PyTorch keeps this object (and with it `owner`) alive while its tensor
    lives."""

    def __init__(self, owner):
        self.owner = owner
        self.__cuda_array_interface__ = owner.__cuda_array_interface__


def _small_ints(rng, shape, low=-2, high=3):
    return rng.integers(low, high, size=shape).astype(np.float32)


# ---- zero-copy, both ways -----------------------------------------------------------

def test_torch_reads_switchyard_cuda_memory_in_place(ctx, cuda, rng):
    data = _small_ints(rng, (3, 5))
    x = sy.tensor(data, device=cuda)
    assert x.__dlpack_device__() == (2, 0)  # kDLCUDA, device 0
    t = torch.from_dlpack(x)
    assert t.device == torch.device("cuda", 0)
    assert t.dtype == torch.float32 and tuple(t.shape) == (3, 5)
    assert t.data_ptr() == x.data_ptr
    np.testing.assert_array_equal(t.cpu().numpy(), data)

    # A write through PyTorch shows in Switchyard. DLPack orders producer
    # before consumer only, so the writer's stream is waited for here.
    t[1, 2] = 42.0
    torch.cuda.current_stream().synchronize()
    expected = data.copy()
    expected[1, 2] = 42.0
    np.testing.assert_array_equal(x.numpy(), expected)

    # A write through Switchyard (out= into the shared memory; outputs may
    # not alias inputs, hence the copy) shows in PyTorch.
    ctx.ops.mul(ctx.ops.copy(x), 2.0, out=x)
    cuda.synchronize()
    expected *= 2
    np.testing.assert_array_equal(t.cpu().numpy(), expected)


def test_switchyard_shares_torch_cuda_memory(ctx, cuda):
    t = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    for copy in (None, False):
        x = sy.from_dlpack(t, copy=copy, context=ctx)
        assert x.device == cuda
        assert x.dtype == sy.float32 and x.shape == (3, 4) and x.strides == (4, 1)
        assert x.data_ptr == t.data_ptr()
    np.testing.assert_array_equal(x.numpy(), np.arange(12, dtype=np.float32).reshape(3, 4))

    t.mul_(-1.0)  # PyTorch writes; Switchyard reads once that stream is done
    torch.cuda.current_stream().synchronize()
    np.testing.assert_array_equal(x.numpy(), -np.arange(12, dtype=np.float32).reshape(3, 4))

    # Switchyard writes into PyTorch's memory.
    ctx.ops.copy(sy.tensor(np.full((3, 4), 7.5, np.float32), device=cuda), out=x)
    cuda.synchronize()
    assert torch.equal(t, torch.full((3, 4), 7.5, device="cuda"))

    # Back to PyTorch: the very same memory again, not a copy.
    back = torch.from_dlpack(x)
    assert back.data_ptr() == t.data_ptr()


@pytest.mark.parametrize("torch_dtype, sy_dtype", [
    ("float32", sy.float32), ("float16", sy.float16), ("bfloat16", sy.bfloat16),
    ("int64", sy.int64), ("bool", sy.bool_)])
def test_dtypes_cross_both_ways(ctx, cuda, rng, torch_dtype, sy_dtype):
    dtype = getattr(torch, torch_dtype)
    values = rng.integers(-3, 4, size=(4, 6)).astype(np.float32) / 2  # halves: exact in bf16
    if torch_dtype == "int64":
        values = rng.integers(-(2**40), 2**40, size=(4, 6))  # beyond 32 bits
    if torch_dtype == "bool":
        values = rng.integers(0, 2, size=(4, 6)).astype(bool)
    t = torch.from_numpy(values).to(device="cuda", dtype=dtype)

    x = sy.from_dlpack(t, context=ctx)  # PyTorch -> Switchyard
    assert x.dtype == sy_dtype and x.shape == (4, 6) and x.device == cuda
    assert x.data_ptr == t.data_ptr()
    if sy_dtype.numpy is not None:
        np.testing.assert_array_equal(x.numpy(), t.cpu().numpy())

    back = torch.from_dlpack(x)  # and back: the same memory, the same dtype
    assert back.dtype == dtype and back.data_ptr() == t.data_ptr()
    assert torch.equal(back, t)

    # A tensor Switchyard made, read by PyTorch.
    if sy_dtype.numpy is not None:
        made = sy.tensor(values.astype(sy_dtype.numpy), device=cuda)
    else:  # bf16: NumPy has none; cast on the device (halves are exact)
        made = ctx.ops.cast(sy.tensor(values.astype(np.float32), device=cuda), sy_dtype)
    seen = torch.from_dlpack(made)
    assert seen.dtype == dtype and seen.data_ptr() == made.data_ptr
    assert torch.equal(seen, t)


def test_strided_views_cross_both_ways(ctx, cuda, rng):
    data = _small_ints(rng, (4, 6))
    t = torch.from_numpy(data).cuda()
    views = {
        "transpose": t.T,
        "every other column": t[:, 1::2],
        "a window": t[1:3, 2:5],
        "broadcast (stride 0)": t[0].unsqueeze(0).expand(3, 6),
    }
    for name, v in views.items():
        x = sy.from_dlpack(v, context=ctx)
        assert x.shape == tuple(v.shape), name
        assert x.strides == v.stride(), name
        assert x.data_ptr == v.data_ptr(), name  # a view, not a packed copy
        np.testing.assert_array_equal(x.numpy(), v.cpu().numpy(), err_msg=name)
        # Switchyard ops read the strided memory right.
        np.testing.assert_array_equal(ctx.ops.add(x, x).numpy(), (v + v).cpu().numpy(),
                                      err_msg=name)

    x = sy.tensor(data, device=cuda)
    sy_views = {"transpose": (x.T, data.T), "columns": (x[:, 1:4], data[:, 1:4]),
                "a row": (x[2], data[2])}
    for name, (view, expected) in sy_views.items():
        seen = torch.from_dlpack(view)
        assert tuple(seen.shape) == expected.shape, name
        assert seen.stride() == view.strides, name
        assert seen.data_ptr() == view.data_ptr, name
        np.testing.assert_array_equal(seen.cpu().numpy(), expected, err_msg=name)


def test_zero_d_and_empty_tensors(ctx, cuda):
    scalar = torch.tensor(2.5, device="cuda")
    x = sy.from_dlpack(scalar, context=ctx)
    assert x.shape == () and x.item() == 2.5 and x.data_ptr == scalar.data_ptr()
    made = sy.tensor(np.float32(-1.5), device=cuda)
    seen = torch.from_dlpack(made)
    assert seen.shape == torch.Size([]) and seen.item() == -1.5

    for shape in [(0,), (0, 3), (2, 0, 4)]:
        x = sy.from_dlpack(torch.empty(shape, device="cuda"), context=ctx)
        assert x.shape == shape and x.numel == 0 and x.device == cuda
        assert x.numpy().shape == shape
        seen = torch.from_dlpack(sy.empty(shape, device=cuda))
        assert tuple(seen.shape) == shape and seen.device.type == "cuda"
        seen = torch.as_tensor(_CudaArrayOnly(sy.empty(shape, device=cuda)), device="cuda")
        assert tuple(seen.shape) == shape


# ---- __cuda_array_interface__ ---------------------------------------------------------

@pytest.mark.parametrize("np_dtype, typestr", [
    (np.float32, "<f4"), (np.float16, "<f2"), (np.int64, "<i8"), (np.bool_, "|b1")])
def test_cuda_array_interface_follows_version_3(cuda, rng, np_dtype, typestr):
    data = (rng.integers(-3, 4, size=(4, 6)) > 0) if np_dtype is np.bool_ else \
        rng.integers(-3, 4, size=(4, 6)).astype(np_dtype)
    x = sy.tensor(data, device=cuda)
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3
    assert cai["shape"] == (4, 6)
    assert cai["typestr"] == typestr
    assert cai["strides"] is None  # C-contiguous
    assert cai["data"] == (x.data_ptr, False)
    assert cai["stream"] is None  # pending work waited for: no consumer sync needed
    t = torch.as_tensor(_CudaArrayOnly(x), device="cuda")
    assert t.data_ptr() == x.data_ptr
    np.testing.assert_array_equal(t.cpu().numpy(), data)

    view = x.T  # strides in bytes, and PyTorch's view of the same memory
    itemsize = np.dtype(np_dtype).itemsize
    cai = view.__cuda_array_interface__
    assert cai["shape"] == (6, 4)
    assert cai["strides"] == (itemsize, 6 * itemsize)
    assert cai["data"] == (x.data_ptr, False)
    t = torch.as_tensor(_CudaArrayOnly(view), device="cuda")
    assert t.stride() == (1, 6) and t.data_ptr() == x.data_ptr
    np.testing.assert_array_equal(t.cpu().numpy(), data.T)


def test_cuda_array_interface_of_empty_and_bf16_tensors(ctx, cuda):
    cai = sy.empty((0, 5), device=cuda).__cuda_array_interface__
    assert cai["data"] == (0, False)  # "for zero-size arrays, use 0"
    assert cai["shape"] == (0, 5)
    bf16 = ctx.ops.cast(sy.ones((2,), device=cuda), sy.bfloat16)
    assert not hasattr(bf16, "__cuda_array_interface__")  # no typestr: DLPack instead
    with pytest.raises(AttributeError, match="bf16 has no array-interface type string"):
        bf16.__cuda_array_interface__


def test_cuda_array_interface_lifetime(cuda):
    x = sy.tensor(np.arange(8, dtype=np.float32), device=cuda)
    t = torch.as_tensor(_CudaArrayOnly(x), device="cuda")
    ptr = x.data_ptr
    del x
    gc.collect()
    # PyTorch holds the interface's owner, so the block was not reused.
    others = [sy.empty((8,), device=cuda) for _ in range(4)]
    assert all(o.data_ptr != ptr for o in others)
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(8, dtype=np.float32))


# ---- the producer's stream is respected ------------------------------------------------

def test_import_waits_for_torch_work_on_a_side_stream(ctx):
    n = 1 << 22
    t = torch.full((n,), -1.0, device="cuda")  # a sentinel, complete on the default stream
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        _sleep_on_current_stream()  # a long kernel on the side stream ...
        t.fill_(3.0)  # ... then the write Switchyard must see
        # The import runs while `side` is PyTorch's current stream: the
        # protocol then orders `side` before the stream Switchyard names.
        x = sy.from_dlpack(t, context=ctx)
    y = ctx.ops.add(x, x)  # no synchronize anywhere
    np.testing.assert_array_equal(y.numpy(), np.full(n, 6.0, np.float32))


def test_import_then_matmul_on_torch_memory_written_on_a_side_stream(ctx):
    m = 1024
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        a = torch.ones(m, m, device="cuda")
        _sleep_on_current_stream()
        b = torch.full((m, m), 2.0, device="cuda")
        c = a @ b  # every element 2 m, written after the sleep
        x = sy.from_dlpack(c, context=ctx)
        w = sy.from_dlpack(a, context=ctx)
    y = ctx.ops.matmul(x, w)  # every element 2 m * m, exact in f32
    np.testing.assert_array_equal(y.numpy(), np.full((m, m), 2.0 * m * m, np.float32))


def _pending_switchyard_result(ctx, cuda, m=4096):
    """A tensor Switchyard is still computing: a few big matmuls queued
    before it keep the device busy. Every element is exactly 4 m."""
    a = sy.tensor(np.ones((m, m), np.float32), device=cuda)
    b = sy.tensor(np.full((m, m), 2.0, np.float32), device=cuda)
    cuda.synchronize()
    for _ in range(4):
        busy = ctx.ops.matmul(a, b)
    del busy
    c = ctx.ops.matmul(a, b)  # 2 m
    return ctx.ops.add(c, c), 4.0 * m


def test_torch_on_its_own_stream_reads_switchyard_results_complete(ctx, cuda):
    side = torch.cuda.Stream()
    y, value = _pending_switchyard_result(ctx, cuda)
    with torch.cuda.stream(side):
        t = torch.from_dlpack(y)  # torch passes stream=side.cuda_stream
        assert torch.equal(t, torch.full(tuple(y.shape), value, device="cuda"))

    y, value = _pending_switchyard_result(ctx, cuda)
    with torch.cuda.stream(side):  # the protocol spelled out: our capsule, their stream
        t = torch.from_dlpack(y.__dlpack__(stream=side.cuda_stream))
        assert torch.equal(t, torch.full(tuple(y.shape), value, device="cuda"))

    y, value = _pending_switchyard_result(ctx, cuda)
    with torch.cuda.stream(side):  # and through __cuda_array_interface__ (stream None)
        t = torch.as_tensor(_CudaArrayOnly(y), device="cuda")
        assert torch.equal(t, torch.full(tuple(y.shape), value, device="cuda"))


def test_every_valid_consumer_stream_is_accepted(cuda):
    x = sy.tensor(np.arange(4, dtype=np.float32), device=cuda)
    side = torch.cuda.Stream()
    for stream in (None, -1, 1, 2, side.cuda_stream):
        t = torch.from_dlpack(x.__dlpack__(stream=stream))
        np.testing.assert_array_equal(t.cpu().numpy(), [0, 1, 2, 3])


# ---- ops on the other library's memory ------------------------------------------------

@pytest.mark.parametrize("torch_dtype", ["float32", "float16", "bfloat16"])
def test_switchyard_ops_on_torch_memory_match_torch(ctx, rng, torch_dtype):
    dtype = getattr(torch, torch_dtype)
    # |values| <= 2 and K = 16: every product and sum (<= 64) is exact in bf16.
    a_t = torch.from_numpy(_small_ints(rng, (32, 16))).to("cuda", dtype)
    b_t = torch.from_numpy(_small_ints(rng, (16, 24))).to("cuda", dtype)
    c_t = torch.from_numpy(_small_ints(rng, (32, 24))).to("cuda", dtype)
    a, b, c = (sy.from_dlpack(v, context=ctx) for v in (a_t, b_t, c_t))
    reference = a_t.double().cpu() @ b_t.double().cpu()  # float64, exact

    got = torch.from_dlpack(ctx.ops.matmul(a, b))
    assert got.dtype == dtype
    assert torch.equal(got, a_t @ b_t)
    assert torch.equal(got.double().cpu(), reference)

    # On a transposed (strided) view of PyTorch's memory too.
    bt_t = b_t.T.contiguous()  # [24, 16], read back through .T: a strided view
    got = torch.from_dlpack(ctx.ops.matmul(a, sy.from_dlpack(bt_t.T, context=ctx)))
    assert torch.equal(got.double().cpu(), reference)

    got = torch.from_dlpack(ctx.ops.add(ctx.ops.mul(a, a), a))
    assert torch.equal(got, a_t * a_t + a_t)
    got = torch.from_dlpack(ctx.ops.add(ctx.ops.matmul(a, b), c))
    assert torch.equal(got, a_t @ b_t + c_t)


def test_switchyard_ops_on_torch_int64_and_bool_memory(ctx, rng):
    i_t = torch.from_numpy(rng.integers(-(2**40), 2**40, size=(5, 7))).cuda()
    i = sy.from_dlpack(i_t, context=ctx)
    assert torch.equal(torch.from_dlpack(ctx.ops.add(i, i)), i_t + i_t)
    mask = torch.from_dlpack(ctx.ops.eq(i, i))
    assert mask.dtype == torch.bool and bool(mask.all())
    picked = torch.from_dlpack(ctx.ops.where(sy.from_dlpack(i_t > 0, context=ctx), i,
                                             ctx.ops.neg(i)))
    assert torch.equal(picked, i_t.abs())


# ---- lifetimes ------------------------------------------------------------------------

def test_switchyard_keeps_torch_memory_alive(ctx, cuda):
    t = torch.full((1 << 16,), 5.0, device="cuda")
    ptr = t.data_ptr()
    x = sy.from_dlpack(t, context=ctx)
    del t
    gc.collect()
    others = [torch.zeros(1 << 16, device="cuda") for _ in range(4)]  # same size: would reuse
    assert all(o.data_ptr() != ptr for o in others)
    np.testing.assert_array_equal(x.numpy(), np.full(1 << 16, 5.0, np.float32))
    np.testing.assert_array_equal(ctx.ops.add(x, x).numpy(), np.full(1 << 16, 10.0, np.float32))


def test_torch_keeps_switchyard_memory_alive_past_the_context(cuda):
    context = sy.Context(use_environment=False)  # its own, to close it
    device = context.device("cuda:0")
    x = sy.tensor(np.arange(1 << 16, dtype=np.float32), device=device)
    t = torch.from_dlpack(x)
    ptr = x.data_ptr
    del x
    gc.collect()
    others = [sy.empty((1 << 16,), device=device) for _ in range(4)]
    assert all(o.data_ptr != ptr for o in others)
    del others
    context.close()  # tensors exported through DLPack stay valid
    gc.collect()
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(1 << 16, dtype=np.float32))
    assert torch.equal(t + 1, torch.arange(1, (1 << 16) + 1, dtype=torch.float32, device="cuda"))


def test_torch_memory_outlives_switchyard_work_still_queued_on_it(ctx, cuda):
    # Switchyard holds PyTorch's memory alone, queues a read of it behind
    # long work, and drops its last reference at once: PyTorch must not get
    # the block back (and hand it out to a zero-fill on its own stream)
    # before that read has run.
    n = 1 << 20
    t = torch.full((n,), 5.0, device="cuda")
    x = sy.from_dlpack(t, context=ctx)
    del t
    a = sy.tensor(np.ones((4096, 4096), np.float32), device=cuda)
    cuda.synchronize()
    for _ in range(4):
        busy = ctx.ops.matmul(a, a)
    y = ctx.ops.add(x, x)  # queued behind the matmuls
    del x, busy
    gc.collect()
    zeros = [torch.zeros(n, device="cuda") for _ in range(2)]  # likely the freed block
    np.testing.assert_array_equal(y.numpy(), np.full(n, 10.0, np.float32))
    assert all(int(z.count_nonzero()) == 0 for z in zeros)


# ---- bad input ------------------------------------------------------------------------

def test_a_cpu_torch_tensor_where_a_cuda_one_is_needed(ctx, cuda):
    on_gpu = sy.tensor(np.ones(4, np.float32), device=cuda)
    on_cpu = sy.from_dlpack(torch.ones(4), context=ctx)  # shared, on cpu:0
    assert on_cpu.device == ctx.device("cpu")
    with pytest.raises(sy.InvalidArgumentError) as info:
        ctx.ops.add(on_gpu, on_cpu)
    message = str(info.value)
    assert "argument 'b' is on cpu:0 but an earlier input is on cuda:0" in message
    assert "tensor.to(device) in Python" in message
    # PyTorch asking for a cpu tensor on CUDA moves it itself (2.11 imports
    # the cpu tensor, then copies it); ours stays where it was, intact.
    ours = sy.tensor(np.ones(2, np.float32), context=ctx)
    moved = torch.from_dlpack(ours, device="cuda")
    assert moved.device.type == "cuda"
    np.testing.assert_array_equal(moved.cpu().numpy(), [1, 1])
    assert ours.device == ctx.device("cpu")
    np.testing.assert_array_equal(ours.numpy(), [1, 1])


def test_a_cuda_tensor_for_a_context_without_cuda(cuda):
    cpu_only = sy.Context(use_environment=False, allow=["cpu"])
    try:
        with pytest.raises(sy.NotFoundError,
                           match=r"no device of this context matches the tensor's DLPack "
                                 r"device \(type 2, id 0\); devices present: cpu:0"):
            sy.from_dlpack(torch.ones(3, device="cuda"), context=cpu_only)
    finally:
        cpu_only.close()


def test_wrong_stream_values_are_refused(cuda):
    x = sy.tensor(np.ones(3, np.float32), device=cuda)
    with pytest.raises(sy.InvalidArgumentError, match="DLPack forbids 0 on CUDA"):
        x.__dlpack__(stream=0)
    with pytest.raises(sy.InvalidArgumentError, match="stream=-7 for a tensor on cuda:0: not a stream"):
        x.__dlpack__(stream=-7)
    with pytest.raises(TypeError, match="stream must be an int or None, got str"):
        x.__dlpack__(stream="default")
    with pytest.raises(TypeError, match="got Stream"):
        x.__dlpack__(stream=torch.cuda.current_stream())  # the object, not its handle
    # None of these consumed anything: the tensor is intact and exportable.
    np.testing.assert_array_equal(torch.from_dlpack(x).cpu().numpy(), [1, 1, 1])


def test_copy_true_of_a_torch_cuda_tensor(ctx, cuda):
    t = torch.arange(6, dtype=torch.float32, device="cuda")
    x = sy.from_dlpack(t, copy=True, context=ctx)  # PyTorch makes the copy (DLPack 1.0)
    assert x.device == cuda and x.data_ptr != t.data_ptr()
    t.zero_()
    torch.cuda.current_stream().synchronize()
    np.testing.assert_array_equal(x.numpy(), np.arange(6, dtype=np.float32))
