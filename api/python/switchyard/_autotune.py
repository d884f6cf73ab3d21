"""The autotuner from Python (docs/autotune.md; docs/python.md#autotuning).

Where several kernels can serve a call (the cpu plugin's and onednn's
matmul, a kernel's variants), the autotuner measures them for the call's
shape bucket and keeps the winner — a *verdict* — in a SQLite cache shared
by every process (SWITCHYARD_CACHE_DIR). What `switchyard tune` does, a
Context does here:

    ctx.autotune = "on"                       # mode: "off", "cached", "on"
    report = ctx.ops.matmul.tune(a, b)        # tune one call's bucket now
    rows = ctx.tune_cases([{"op": "matmul", "inputs": [...]}])  # --cases
    ctx.autotune_export("verdicts.json")      # --export
    ctx.autotune_import("verdicts.json")      # --import
    ctx.autotune_verdicts("matmul")           # info --autotune

Everything goes through the C API's autotuning functions (switchyard.h);
reports and summaries are its JSON documents as dicts.
"""

import json
import os
from dataclasses import dataclass

from ._library import _C

MODES = ("off", "cached", "on")


@dataclass(frozen=True)
class Verdict:
    """One verdict of the cache for this context's devices (an entry of
    sy_context_autotune_info_json): calls of `op` with these dtypes whose
    shapes fall in `bucket` run `kernel` (and `variant`) on `device`."""

    op: str            # "matmul"
    dtypes: str        # "f32,f32"
    bucket: str        # "2|c:64,64|c:64,64" (docs/autotune.md, "Shape buckets")
    device: str        # the device type, "cpu"
    kernel: str        # "onednn::matmul.f32.f32"
    variant: int       # -1: the kernel's default
    variant_name: str
    time_ns: float     # the winner's median when it was measured
    source: str        # "measured", "imported from …"
    created: int       # seconds since the epoch

    @classmethod
    def _of(cls, entry):
        return cls(**{name: entry[name] for name in cls.__dataclass_fields__})


def _path(value, what):
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{what} must be a str or os.PathLike path, got "
                        f"{type(value).__name__}")
    return os.fspath(value)


def _cases_text(cases):
    """The case document as JSON text: from a path to a case file, a
    {"cases": [...]} mapping, or a list of cases."""
    if isinstance(cases, (str, os.PathLike)):
        path = os.fspath(cases)
        try:
            with open(path, encoding="utf-8") as file:
                return file.read()
        except OSError as error:
            from ._errors import NotFoundError
            raise NotFoundError(f"cannot read the case file {path}: "
                                f"{error.strerror}") from None
    if isinstance(cases, dict):
        document = cases
    elif isinstance(cases, (list, tuple)):
        document = {"cases": list(cases)}
    else:
        raise TypeError("cases must be a path to a case file, a {'cases': [...]} dict "
                        f"or a list of cases, got {type(cases).__name__}")
    try:
        return json.dumps(document)
    except (TypeError, ValueError) as error:
        raise TypeError(f"cases must hold JSON values only: {error}") from None


def _flags(force):
    if not isinstance(force, bool):
        raise TypeError(f"force must be a bool, got {type(force).__name__}")
    return 1 if force else 0  # SY_TUNE_FORCE


class AutotuneMethods:
    """The autotune half of switchyard.Context (a base class of it)."""

    @property
    def autotune(self):
        """The context's autotune mode: "off" (no verdicts), "cached" (the
        cache's verdicts, nothing measured; the default unless
        SWITCHYARD_AUTOTUNE says otherwise) or "on" (as cached, and the first
        call of an untuned bucket is measured). Assign one of them to switch;
        another name raises InvalidArgumentError listing the three."""
        return _C.context_autotune(self.handle)

    @autotune.setter
    def autotune(self, mode):
        if not isinstance(mode, str):
            raise TypeError(f"autotune mode must be a str ('off', 'cached' or 'on'), got "
                            f"{type(mode).__name__}")
        _C.context_set_autotune(self.handle, mode)

    def tune_cases(self, cases, *, force=False, progress=None):
        """Tunes each case now, whatever the mode (`switchyard tune --cases`):
        `cases` is a path to a case file, a {"cases": [...]} dict or a list
        of cases ({"op", "device", "inputs": [{"dtype", "shape", "layout"}],
        "attrs", "list_sizes"}; docs/autotune.md). Inputs are random. A case
        that fails does not stop the rest: its row has "ok": False and an
        "error". `force` measures even where the cache has a verdict;
        `progress(done, total, row)` is called after each case (an exception
        it raises is raised once every case has run). Returns the rows
        ({"case", "ok", "seconds", "report" | "error"}). Raises
        InvalidArgumentError naming the case and field when the document is
        not a case list (nothing runs then)."""
        if progress is not None and not callable(progress):
            raise TypeError(f"progress must be callable or None, got "
                            f"{type(progress).__name__}")
        text = _cases_text(cases)
        return _C.context_tune_cases(self.handle, text, _flags(force), progress)["rows"]

    def autotune_export(self, path, *, all_devices=False):
        """Writes the cache's verdicts for this context's devices (every
        device's with all_devices=True) to `path` as JSON, atomically
        (`switchyard tune --export`). Returns how many."""
        if not isinstance(all_devices, bool):
            raise TypeError(f"all_devices must be a bool, got {type(all_devices).__name__}")
        return _C.context_autotune_export(self.handle, _path(path, "path"), all_devices)

    def autotune_import(self, path):
        """Reads an export and stores each verdict that applies here
        (`switchyard tune --import`); keys the cache holds keep theirs.
        Returns the record: {"file", "imported", "present", "ignored",
        "reasons"}. NotFoundError when the file cannot be read,
        InvalidArgumentError when it is not an export."""
        return _C.context_autotune_import(self.handle, _path(path, "path"))

    def autotune_info(self):
        """What the cache holds (`switchyard info --autotune --json`): its
        path, mode, counts, devices, imports and this machine's verdicts."""
        return _C.context_autotune_info(self.handle)

    def autotune_verdicts(self, op=None):
        """The cache's verdicts for this context's devices, as Verdict
        objects; only those of `op` ("matmul", "add.Tensor") when given.
        Which kernel one call runs, verdicts included, is
        `ctx.ops.<op>.explain(...)` ("kernel onednn::… (autotuned)")."""
        if op is not None and not isinstance(op, str):
            raise TypeError(f"op must be an op name (str) or None, got {type(op).__name__}")
        return [Verdict._of(entry) for entry in self.autotune_info()["entries"]
                if op is None or entry["op"] == op]
