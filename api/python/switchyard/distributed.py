"""Collectives across processes and hosts: communicators for the collective
ops of sy.ops (all_reduce, all_gather, reduce_scatter, broadcast, send,
recv, barrier), run by NCCL on cuda devices and Gloo on cpu.

    import switchyard as sy
    comm = sy.distributed.init(device="cuda:0")   # RANK, WORLD_SIZE, MASTER_*
    y = sy.ops.all_reduce(x, comm, op="sum")
    comm.close()

docs/distributed.md is the guide.
"""

import os

from ._context import Device, default_context
from ._library import _C

__all__ = ["Communicator", "init"]

DEFAULT_TIMEOUT = 60.0


class Communicator:
    """This process's membership of a group of `world_size` ranks, bound to
    one device. Pass it to the collective ops' `comm` argument. close() (or
    `with`) destroys it; work already queued with it finishes first."""

    def __init__(self, device, handle):
        self.device = device
        self._comm_handle = handle  # kept after close: the library calls it stale
        self._closed = False
        (self.rank, self.world_size, _, self.engine, self.rendezvous,
         timeout_ms) = _C.communicator_info(handle)
        self.timeout = timeout_ms / 1000.0

    def close(self):
        if not self._closed:
            self._closed = True
            _C.communicator_destroy(self._comm_handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # the context may be gone at interpreter exit
            pass

    def __repr__(self):
        return (f"switchyard.distributed.Communicator(rank={self.rank}, "
                f"world_size={self.world_size}, device='{self.device}', "
                f"engine='{self.engine}', rendezvous='{self.rendezvous}')")


def _env_int(name):
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} is not an integer") from None


def _default_rendezvous():
    addr, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if addr is None or port is None:
        raise ValueError(
            "no rendezvous: pass rendezvous='file:///shared/dir' or "
            "'tcp://host:port', or set MASTER_ADDR and MASTER_PORT (as torchrun does)")
    if ":" in addr and not addr.startswith("["):
        addr = f"[{addr}]"  # an IPv6 address
    return f"tcp://{addr}:{port}"


def init(rank=None, world_size=None, rendezvous=None, device=None,
         timeout=DEFAULT_TIMEOUT, context=None):
    """Joins a group and returns its Communicator, once every rank arrived.

    rank, world_size: default to $RANK and $WORLD_SIZE (torchrun sets them).
    rendezvous: "file:///dir" (a directory every rank writes, fresh for each
        job) or "tcp://host:port" (rank 0 listens); defaults to
        tcp://$MASTER_ADDR:$MASTER_PORT.
    device: a Device or a spec ("cuda:0"; default "cpu") of `context`
        (default: the default context).
    timeout: seconds the rendezvous waits for every rank, and each blocking
        step of the engine for a peer.

    Raises DeadlineExceededError naming the ranks that did not arrive,
    InvalidArgumentError for mismatched world sizes or a bad rendezvous,
    UnimplementedError for a device without collectives."""
    if rank is None:
        rank = _env_int("RANK")
    if world_size is None:
        world_size = _env_int("WORLD_SIZE")
    if rank is None or world_size is None:
        raise ValueError("pass rank and world_size, or set RANK and WORLD_SIZE "
                         "(as torchrun does)")
    if rendezvous is None:
        rendezvous = _default_rendezvous()
    if context is None:
        context = device.context if isinstance(device, Device) else default_context()
    if not isinstance(device, Device):
        device = context.device("cpu" if device is None else str(device))
    if timeout is None or timeout <= 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    timeout_ms = max(1, int(round(float(timeout) * 1000)))
    handle = _C.communicator_create(device._handle, int(rank), int(world_size),
                                    str(rendezvous), timeout_ms)
    return Communicator(device, handle)
