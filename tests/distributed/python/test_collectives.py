"""Collective ops on cpu (Gloo) with 2–4 ranks over loopback, against NumPy
references in float64/int64: every op and dtype, every reduction, uneven
and zero sizes, both rendezvous schemes; then what goes wrong — a rank that
never comes, one that dies, mismatched world sizes and mismatched calls —
which must end in an error that says what happened, never a hang.

Each test forks its ranks (ranks.py); a rank returns NumPy arrays and the
parent checks them, so a failure shows the values.
"""

import numpy as np
import pytest

from ranks import Died, RankError, fresh_rendezvous, run_ranks

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8",
          "uint8", "bool_"]
REDUCTIONS = ["sum", "prod", "max", "min", "avg"]


def make_input(rank, dtype, shape, tag):
    """Small integers (exact in every dtype, and their sums and products
    over 4 ranks fit in int8), the same in the parent and the rank."""
    rng = np.random.default_rng([rank, DTYPES.index(dtype), tag])
    if dtype == "bool_":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    low = 0 if dtype in ("uint8",) else -3
    return rng.integers(low, 4, size=shape).astype(np.float64 if "float" in dtype
                                                    else np.int64)


def reduce_ref(arrays, op, dtype):
    a = np.stack(arrays).astype(np.float64)
    r = {"sum": a.sum(0), "prod": a.prod(0), "max": a.max(0), "min": a.min(0),
         "avg": a.sum(0) / len(arrays)}[op]
    if op == "avg" and "float" not in dtype:
        r = np.trunc(r)  # integer avg divides truncating, as NCCL's ncclAvg
    return r


def check(got, want, dtype, op=None):
    want = np.asarray(want, np.float64)
    got = np.asarray(got, np.float64)
    assert got.shape == want.shape
    if op == "avg" and dtype in ("float16", "bfloat16"):
        np.testing.assert_allclose(got, want, rtol=1e-2)
    elif op == "avg":
        np.testing.assert_allclose(got, want, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


# ---- What the ranks run ----------------------------------------------------------

def _tensor(sy, array, dtype):
    if dtype == "bfloat16":
        return sy.tensor(np.asarray(array, np.float32)).astype(sy.bfloat16)
    if dtype == "bool_":
        return sy.tensor(np.asarray(array, np.bool_))
    return sy.tensor(np.asarray(array, getattr(np, dtype)))


def _numpy(sy, t):
    if t.dtype == sy.bfloat16:
        t = sy.ops.cast(t, sy.float32)
    return np.asarray(t)


def every_op(rank, world, url, timeout):
    import switchyard as sy
    comm = sy.distributed.init(rank=rank, world_size=world, rendezvous=url,
                               timeout=timeout)
    assert (comm.rank, comm.world_size, comm.engine) == (rank, world, "gloo")
    out = {}
    for dtype in DTYPES:
        if dtype != "bool_":
            for op in REDUCTIONS:
                x = _tensor(sy, make_input(rank, dtype, (3, 5), 1), dtype)
                out[dtype, "all_reduce", op] = _numpy(sy, sy.ops.all_reduce(x, comm, op=op))
            for op in ("sum", "avg", "max"):
                x = _tensor(sy, make_input(rank, dtype, (world * 3, 7), 2), dtype)
                out[dtype, "reduce_scatter", op] = _numpy(
                    sy, sy.ops.reduce_scatter(x, comm, op=op))
        x = _tensor(sy, make_input(rank, dtype, (3, 5), 3), dtype)
        out[dtype, "all_gather"] = _numpy(sy, sy.ops.all_gather(x, comm))
        s = _tensor(sy, make_input(rank, dtype, (), 4), dtype)
        out[dtype, "all_gather_scalar"] = _numpy(sy, sy.ops.all_gather(s, comm))
        x = _tensor(sy, make_input(rank, dtype, (11,), 5), dtype)
        out[dtype, "broadcast"] = _numpy(sy, sy.ops.broadcast(x, comm, root=world - 1))
        # Rank 0 sends to each rank in turn, then each answers.
        x = _tensor(sy, make_input(rank, dtype, (2, 3), 6), dtype)
        wanted = sy.bfloat16 if dtype == "bfloat16" else x.dtype
        if rank == 0:
            for peer in range(1, world):
                token = sy.ops.send(x, comm, peer)
                assert token.shape == (0,)
            out[dtype, "recv"] = [_numpy(sy, sy.ops.recv(comm, peer, [2, 3], wanted))
                                  for peer in range(1, world)]
        else:
            out[dtype, "recv"] = [_numpy(sy, sy.ops.recv(comm, 0, [2, 3], wanted))]
            sy.ops.send(x, comm, 0)
    # Zero sizes: nothing moves, but every rank still meets the others.
    z = sy.tensor(np.zeros((0, 3), np.float32))
    out["zero"] = [sy.ops.all_reduce(z, comm).shape, sy.ops.all_gather(z, comm).shape,
                   sy.ops.broadcast(z, comm).shape,
                   sy.ops.reduce_scatter(sy.tensor(np.zeros((0, 2), np.int32)), comm).shape]
    assert sy.ops.barrier(comm).shape == (0,)
    comm.close()
    return out


def check_every_op(results, world):
    for rank in range(world):
        got = results[rank]
        assert not isinstance(got, (RankError, Died)), got
        for dtype in DTYPES:
            if dtype != "bool_":
                for op in REDUCTIONS:
                    want = reduce_ref([make_input(r, dtype, (3, 5), 1) for r in range(world)],
                                      op, dtype)
                    check(got[dtype, "all_reduce", op], want, dtype, op)
                for op in ("sum", "avg", "max"):
                    full = reduce_ref([make_input(r, dtype, (world * 3, 7), 2)
                                       for r in range(world)], op, dtype)
                    check(got[dtype, "reduce_scatter", op], full[rank * 3:(rank + 1) * 3],
                          dtype, op)
            check(got[dtype, "all_gather"],
                  np.concatenate([make_input(r, dtype, (3, 5), 3) for r in range(world)]),
                  dtype)
            check(got[dtype, "all_gather_scalar"],
                  np.stack([make_input(r, dtype, (), 4) for r in range(world)]), dtype)
            check(got[dtype, "broadcast"], make_input(world - 1, dtype, (11,), 5), dtype)
            if rank == 0:
                for peer, received in zip(range(1, world), got[dtype, "recv"]):
                    check(received, make_input(peer, dtype, (2, 3), 6), dtype)
            else:
                check(got[dtype, "recv"][0], make_input(0, dtype, (2, 3), 6), dtype)
        assert got["zero"] == [(0, 3), (0, 3), (0, 3), (0, 2)]


@pytest.mark.parametrize("world,scheme", [(2, "tcp"), (3, "file"), (4, "tcp")])
def test_every_op_and_dtype_against_numpy(world, scheme):
    results = run_ranks(world, every_op, 20.0, url=fresh_rendezvous(scheme), timeout=60)
    check_every_op(results, world)


# ---- What goes wrong -------------------------------------------------------------

def join_only(rank, world, url, timeout):
    import switchyard as sy
    sy.distributed.init(rank=rank, world_size=world, rendezvous=url, timeout=timeout)
    return "joined"


# The rendezvous timeouts below leave a loaded machine (CI runs suites side
# by side on 2 cores) seconds to start the other rank: with 0.5-1 s, a rank
# that started late was named as missing too, and the test failed.
def test_a_rank_that_never_comes_is_named_after_the_timeout():
    results = run_ranks(3, join_only, 4.0, ranks=[0, 1], timeout=30)
    for rank in (0, 1):
        error = results[rank]
        assert isinstance(error, RankError), error
        assert error.type == "DeadlineExceededError"
        assert "rank 2 of 3 did not arrive before the timeout" in error.message
        assert f"communicator rank {rank} of 3 on cpu:0" in error.message


def test_mismatched_world_sizes_are_an_error_on_every_rank():
    def body(rank, world, url):
        import switchyard as sy
        sy.distributed.init(rank=rank, world_size=2 + rank, rendezvous=url, timeout=5)
    results = run_ranks(2, body, timeout=20)
    for rank, other in ((0, 1), (1, 0)):
        error = results[rank]
        assert isinstance(error, RankError) and error.type == "InvalidArgumentError", error
        assert f"rank {other} arrived with world_size={2 + other}" in error.message
        assert "start every rank with the same world size" in error.message


def test_a_rank_claimed_twice_is_an_error():
    def body(rank, world, url):
        import switchyard as sy
        sy.distributed.init(rank=0, world_size=2, rendezvous=url, timeout=4)
    results = run_ranks(2, body, timeout=30)
    messages = [r.message for r in results.values() if isinstance(r, RankError)]
    assert any("rank 0 has already arrived at this rendezvous" in m for m in messages), results


def dies_or_reduces(rank, world, url):
    import os
    import time
    import switchyard as sy
    comm = sy.distributed.init(rank=rank, world_size=world, rendezvous=url, timeout=3)
    x = sy.tensor(np.ones(1000, np.float32))
    sy.ops.all_reduce(x, comm)  # both ranks alive: works
    if rank == 1:
        os._exit(3)  # dies without a word
    start = time.monotonic()
    try:
        sy.ops.all_reduce(x, comm)
    except sy.Error as error:
        elapsed = time.monotonic() - start
        try:  # the communicator stays failed, and says so
            sy.ops.all_reduce(x, comm)
        except sy.FailedPreconditionError as again:
            return type(error).__name__, str(error), elapsed, str(again)
    return "no error"


def test_a_peer_that_dies_is_an_error_not_a_hang():
    results = run_ranks(2, dies_or_reduces, timeout=30)
    assert isinstance(results[1], Died) and results[1].exitcode == 3
    kind, message, elapsed, again = results[0]
    assert kind in ("UnavailableError", "DeadlineExceededError"), message
    assert "all_reduce on rank 0 of 2 (gloo): Gloo:" in message
    assert "a peer may have died or timed out (3000 ms)" in message
    assert elapsed < 3.0 + 10.0  # bounded by the timeout, not a hang
    assert "the communicator failed earlier" in again
    assert "destroy it and make a new one on every rank" in again


def mismatched(rank, world, url, case):
    import switchyard as sy
    comm = sy.distributed.init(rank=rank, world_size=world, rendezvous=url, timeout=5)
    x = sy.tensor(np.ones(4 + 4 * rank if case == "shape" else 4,
                          np.float64 if case == "dtype" and rank else np.float32))
    try:
        if case == "op" and rank == 1:
            sy.ops.all_gather(x, comm)
        elif case == "root":
            sy.ops.broadcast(x, comm, root=rank)
        elif case == "recv":
            if rank == 0:
                sy.ops.send(x, comm, 1)
            else:
                sy.ops.recv(comm, 0, [5], sy.float32)
        else:
            sy.ops.all_reduce(x, comm)
        return "no error"
    except sy.FailedPreconditionError as error:
        # Every rank refused the same call: the communicator still works.
        y = sy.ops.all_reduce(sy.tensor(np.full(3, rank + 1.0, np.float32)), comm)
        return str(error), np.asarray(y)


@pytest.mark.parametrize("case,what", [
    ("shape", "rank 0 all_reduce(sum) of 4 f32, rank 1 all_reduce(sum) of 8 f32"),
    ("dtype", "rank 0 all_reduce(sum) of 4 f32, rank 1 all_reduce(sum) of 4 f64"),
    ("op", "rank 0 all_reduce(sum) of 4 f32, rank 1 all_gather of 4 f32"),
    ("root", "rank 0 broadcast of 4 f32 from root 0, rank 1 broadcast of 4 f32 from root 1"),
    ("recv", "send of 4 f32 for rank 1"),
])
def test_mismatched_calls_are_an_error_on_every_rank(case, what):
    results = run_ranks(2, mismatched, case, timeout=30)
    for rank in (0, 1):
        assert isinstance(results[rank], tuple), results[rank]
        message, after = results[rank]
        assert what in message
        assert "every rank must call the same collectives" in message
        np.testing.assert_array_equal(after, [3.0, 3.0, 3.0])


# ---- Bad input, in one process ---------------------------------------------------

def bad_input(rank, world, url):
    import switchyard as sy
    comm = sy.distributed.init(rank=0, world_size=1, rendezvous=url)
    x = sy.tensor(np.ones((4, 2), np.float32))
    found = {}

    def expect(name, call):
        try:
            call()
            found[name] = "no error"
        except sy.Error as error:
            found[name] = (type(error).__name__, str(error))

    expect("reduction", lambda: sy.ops.all_reduce(x, comm, op="mean"))
    expect("bool", lambda: sy.ops.all_reduce(sy.tensor(np.ones(2, np.bool_)), comm))
    expect("root", lambda: sy.ops.broadcast(x, comm, root=1))
    expect("peer", lambda: sy.ops.send(x, comm, 0))
    expect("not_comm", lambda: sy.ops.all_reduce(x, 3))
    single = sy.ops.all_reduce(x, comm, op="avg")  # one rank: itself
    comm.close()
    expect("closed", lambda: sy.ops.all_reduce(x, comm))
    return found, np.asarray(single)


def test_bad_input_names_the_argument():
    found, single = run_ranks(1, bad_input, timeout=20)[0]
    np.testing.assert_array_equal(single, np.ones((4, 2)))
    want = {
        "reduction": ("InvalidArgumentError", "all_reduce: argument 'op' is 'mean', an "
                      "unknown reduction; use one of sum, prod, max, min, avg"),
        "bool": ("InvalidArgumentError", "all_reduce: argument 'x'"),
        "root": ("InvalidArgumentError", "broadcast: argument 'root' is 1, not a rank "
                 "of the communicator (world size 1); use 0..0"),
        "peer": ("InvalidArgumentError", "send: argument 'peer' is 0, this process's own "
                 "rank"),
        "not_comm": ("InvalidArgumentError", "argument 'comm' must be Communicator, got int"),
        "closed": ("InvalidArgumentError", "all_reduce: attribute 'comm' (0x"),
    }
    for name, (kind, fragment) in want.items():
        got = found[name]
        assert got != "no error", name
        assert got[0] == kind, (name, got)
        assert fragment in got[1], (name, got)
    assert "is a stale communicator handle: it was destroyed" in found["closed"][1]


def test_reduce_scatter_needs_rows_the_world_size_divides():
    def body(rank, world, url):
        import switchyard as sy
        comm = sy.distributed.init(rank=rank, world_size=world, rendezvous=url, timeout=5)
        try:
            sy.ops.reduce_scatter(sy.tensor(np.ones((3, 2), np.float32)), comm)
        except sy.InvalidArgumentError as error:
            return str(error)
    for message in run_ranks(2, body, timeout=20).values():
        assert ("reduce_scatter: argument 'x' has 3 rows (dim 0), which the world size 2 "
                "does not divide") in message
        assert "pad dim 0 to a multiple of 2" in message


def test_a_device_without_collectives_and_a_tensor_on_another_device(test_plugin_dir):
    manifest = test_plugin_dir / "test_good" / "test_good.json"

    def body(rank, world, url):
        import switchyard as sy
        ctx = sy.Context(use_environment=False, plugin_manifests=[str(manifest)])
        out = {}
        try:
            sy.distributed.init(rank=0, world_size=1, rendezvous=url,
                                device=ctx.device("fakedev:0"))
        except sy.UnimplementedError as error:
            out["unimplemented"] = str(error)
        comm = sy.distributed.init(rank=0, world_size=1, rendezvous=url,
                                   device=ctx.device("cpu"))
        x = sy.tensor(np.ones(3, np.float32), device=ctx.device("fakedev:0"))
        try:
            ctx.ops.all_reduce(x, comm)
        except sy.InvalidArgumentError as error:
            out["wrong_device"] = str(error)
        comm.close()
        return out

    out = run_ranks(1, body, timeout=20)[0]
    assert not isinstance(out, (RankError, Died)), out
    assert "device type 'fakedev' (plugin 'test_good') has no collectives" in \
        out["unimplemented"]
    assert ("all_reduce: the tensors are on fakedev:0 but attribute 'comm' is a "
            "communicator bound to cpu:0") in out["wrong_device"]


def test_init_reads_torchrun_variables(monkeypatch):
    def body(rank, world, url):
        import os
        import switchyard as sy
        os.environ.update(RANK=str(rank), WORLD_SIZE=str(world),
                          MASTER_ADDR="127.0.0.1", MASTER_PORT=url.rsplit(":", 1)[1])
        comm = sy.distributed.init(timeout=10)
        return comm.rank, comm.world_size, comm.rendezvous
    url = fresh_rendezvous("tcp")
    results = run_ranks(2, body, url=url, timeout=30)
    for rank in (0, 1):
        assert results[rank] == (rank, 2, url), results[rank]
