"""DLPack exchange: Tensor.__dlpack__ (producer) and sy.from_dlpack
(consumer), DLPack 1.0 with 0.6 as fallback, and the stream protocol.

Producer: the export waits for the tensor's pending work, so the data is
complete for any consumer stream (the `stream` argument needs no further
action); DLPack 1.0 ("dltensor_versioned") when the consumer's max_version
allows, else 0.6 ("dltensor").

Consumer: asks for DLPack 1.0 (max_version=(1, 0)) and falls back to the
0.6 call for producers that do not take it (NumPy < 2). For a CUDA
producer it names the legacy default stream (stream=1) and waits on the
host for that stream (Note [Importing CUDA memory] in
src/cuda_interop.cc), so the producer's pending writes are complete before
any Switchyard op reads the memory.
"""

from ._library import _C

_MODES = {None: 0, False: 1, True: 2}  # sy_dlpack_import_mode_t
_FLAG_IS_COPIED = 2
_KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 2, 3, 13


def export(tensor, stream, max_version, dl_device, copy):
    if dl_device is not None and tuple(dl_device) != tensor.__dlpack_device__():
        raise BufferError(
            f"switchyard.Tensor.__dlpack__: the tensor is on {tensor.device.label} "
            f"(DLPack device {tensor.__dlpack_device__()}); copying it to DLPack "
            f"device {tuple(dl_device)} is not supported — move it with t.to(...) first")
    if stream is not None and not isinstance(stream, int):
        raise TypeError(f"stream must be an int or None, got {type(stream).__name__}")
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
    else:
        capsule = x
    return _C.from_dlpack(context, context.handle, capsule, _MODES[copy])
