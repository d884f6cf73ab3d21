"""DLPack exchange: Tensor.__dlpack__ (producer) and sy.from_dlpack
(consumer), DLPack 1.0 with 0.6 as fallback, and the stream protocol.

Producer: the export waits for the tensor's pending work, so the data is
complete for any consumer stream (a valid `stream` needs no further
action); DLPack 1.0 ("dltensor_versioned") when the consumer's max_version
allows, else 0.6 ("dltensor"). The `stream` value is still checked against
the array API's table for the tensor's device type (check_stream): a value
the protocol forbids (0 on CUDA, where it is ambiguous) is a consumer's bug,
reported rather than ignored.

Consumer: asks for DLPack 1.0 (max_version=(1, 0)) and falls back to the
0.6 call for producers that do not take it (NumPy < 2). For a CUDA
producer it names the legacy default stream (stream=1) and waits on the
host for that stream (Note [Importing CUDA memory] in
src/cuda_interop.cc), so the producer's pending writes are complete before
any Switchyard op reads the memory.
"""

from ._errors import InvalidArgumentError
from ._library import _C

_MODES = {None: 0, False: 1, True: 2}  # sy_dlpack_import_mode_t
_FLAG_IS_COPIED = 2
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED, _KDL_ROCM = 1, 2, 3, 13, 10

# The `stream` values the array API standard allows per device type
# (__dlpack__'s table), besides None and -1 (no synchronization), and what
# to say when another is given.
_CUDA_STREAMS = ("1 (the legacy default stream), 2 (the per-thread default stream) "
                 "or a cudaStream_t as an int")
_ROCM_STREAMS = "0 (the default stream) or a hipStream_t as an int"


def check_stream(tensor, stream):
    """Raises unless `stream` is a value DLPack allows for the tensor's device."""
    if stream is None:
        return
    if type(stream) is not int:  # noqa: E721 — bool is an int subclass, and no stream
        raise TypeError(f"switchyard.Tensor.__dlpack__: stream must be an int or None, "
                        f"got {type(stream).__name__}")
    if stream == -1:
        return
    device_type = tensor.__dlpack_device__()[0]
    where = f"switchyard.Tensor.__dlpack__: stream={stream} for a tensor on {tensor.device.label}"
    if device_type in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        if stream == 0:
            raise InvalidArgumentError(
                f"{where}: DLPack forbids 0 on CUDA (it is ambiguous between the legacy "
                f"and the per-thread default stream); pass {_CUDA_STREAMS}, -1 for no "
                "synchronization, or None")
        if stream < -1:
            raise InvalidArgumentError(f"{where}: not a stream; pass {_CUDA_STREAMS}, -1 "
                                       "or None")
        return
    if device_type == _KDL_ROCM:
        if stream in (1, 2) or stream < -1:
            raise InvalidArgumentError(f"{where}: DLPack allows {_ROCM_STREAMS}, -1 or "
                                       "None on ROCm")
        return
    raise InvalidArgumentError(
        f"{where}: this device has no streams in the DLPack protocol; pass stream=None")


def export(tensor, stream, max_version, dl_device, copy):
    if dl_device is not None:  # IntEnum codes print as ints
        dl_device = tuple(int(v) for v in dl_device)
    if dl_device is not None and dl_device != tensor.__dlpack_device__():
        raise BufferError(
            f"switchyard.Tensor.__dlpack__: the tensor is on {tensor.device.label} "
            f"(DLPack device {tensor.__dlpack_device__()}); copying it to DLPack "
            f"device {dl_device} is not supported — move it with t.to(...) first")
    check_stream(tensor, stream)
    flags = 0
    if copy:
        tensor = tensor.context.ops.copy(tensor)
        flags |= _FLAG_IS_COPIED
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    if not versioned and copy:
        flags = 0  # 0.6 cannot say so; the consumer gets the copy all the same
    return _C.to_dlpack(tensor, versioned, flags)


def _capsule(x, copy, device):
    """The producer's capsule, DLPack 1.0 if it speaks it."""
    kwargs = {"max_version": (1, 0)}
    if copy is not None:
        kwargs["copy"] = copy
    if device is not None and device[0] in (_KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED):
        kwargs["stream"] = 1  # the legacy default stream; waited for below
    try:
        return x.__dlpack__(**kwargs)
    except TypeError:
        # A 0.6 producer (NumPy 1.x): only `stream`. It copies nothing, so a
        # copy asked for is made on import (mode copy=True) instead.
        kwargs.pop("max_version")
        kwargs.pop("copy", None)
        return x.__dlpack__(**kwargs)


def import_(x, copy, context):
    if copy not in _MODES:
        raise ValueError("copy must be None, True or False")
    from ._tensor import Tensor
    if isinstance(x, Tensor):
        # Our own: no stream to wait for (our export synchronizes).
        capsule = x.__dlpack__(max_version=(1, 0))
    elif hasattr(x, "__dlpack__"):
        device = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else None
        capsule = _capsule(x, copy, device)
        if device is not None and device[0] in (_KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED):
            _C.cuda_wait_legacy_stream(device[1])
        if copy is True and device is not None and device[0] not in (_KDL_CPU, _KDL_CUDA_HOST):
            # The import copies host memory only. Device memory is shared
            # (the producer may have copied it already for copy=True, as
            # DLPack 1.0 lets it, or not: PyTorch 2.11 does not say so),
            # then copied on its device, so the result never aliases the
            # producer's memory.
            shared = _C.from_dlpack(context, context.handle, capsule, _MODES[None])
            return context.ops.copy(shared)
    else:
        capsule = x
    return _C.from_dlpack(context, context.handle, capsule, _MODES[copy])
