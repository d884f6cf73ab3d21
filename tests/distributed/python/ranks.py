"""Runs a function as every rank of a small job: one forked process per
rank, each with its own default context, over loopback. The parent never
creates a context (forking one would copy its threads' state), so the
tests import switchyard only inside the ranks.

    results = run_ranks(2, body, timeout=20)   # body(rank, world, url) -> value

A rank's value, or the exception it raised (as RankError: its type name and
message), comes back in rank order. A rank that dies without answering is
reported as such; the parent never waits past `timeout`.
"""

import multiprocessing as mp
import os
import queue
import tempfile
import time
import traceback


class RankError:
    def __init__(self, exc):
        self.type = type(exc).__name__
        self.message = str(exc)
        self.trace = traceback.format_exc()

    def __repr__(self):
        return f"RankError({self.type}: {self.message})"


class Died:
    def __init__(self, exitcode):
        self.exitcode = exitcode

    def __repr__(self):
        return f"Died(exitcode={self.exitcode})"


def _main(body, rank, world, url, results, args):
    try:
        value = body(rank, world, url, *args)
    except BaseException as exc:  # noqa: BLE001 — reported to the parent
        value = RankError(exc)
    results.put((rank, value))
    results.close()
    results.join_thread()
    os._exit(0)  # no atexit work of the parent's pytest in the child


def fresh_rendezvous(scheme="file"):
    if scheme == "file":
        return "file://" + tempfile.mkdtemp(prefix="sy-rdv-")
    # tcp: a port the kernel just had free.
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


def run_ranks(world, body, *args, ranks=None, url=None, timeout=30.0):
    """Runs body(rank, world, url, *args) for each rank in `ranks` (default:
    all of 0..world-1); returns {rank: value}."""
    ctx = mp.get_context("fork")
    results = ctx.Queue()
    url = url or fresh_rendezvous()
    ranks = list(range(world)) if ranks is None else list(ranks)
    procs = {r: ctx.Process(target=_main, args=(body, r, world, url, results, args))
             for r in ranks}
    for p in procs.values():
        p.start()
    out = {}
    deadline = time.monotonic() + timeout
    while len(out) < len(procs) and time.monotonic() < deadline:
        try:
            rank, value = results.get(timeout=0.1)
            out[rank] = value
        except queue.Empty:
            for r, p in procs.items():
                if r not in out and p.exitcode not in (None, 0):
                    out[r] = Died(p.exitcode)
    for r, p in procs.items():
        p.join(timeout=max(0.1, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join()
        out.setdefault(r, Died(p.exitcode))
    return out
