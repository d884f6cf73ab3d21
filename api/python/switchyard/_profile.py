"""sy.profile(): which kernel, plugin and device ran each op, and how long.

    with sy.profile() as prof:
        y = model(x)
    print(prof)              # a table, one row per op call
    prof.rows[0].kernel      # "cpu::add.Tensor.f32.f32"

Built on what the C API has today: while a profile is active every op call
through the package is followed by a wait for its device (so `time_us`
covers the kernel, not only its launch) and by sy_op_explain with the same
arguments, whose text names the route and kernel (explain is the resolver
without the run, so it names what ran). That makes profiled calls slower
than unprofiled ones; the rows are what matter. The core's trace
(SWITCHYARD_TRACE, docs/tracing.md) records the same without waiting.
"""

import threading
from dataclasses import dataclass

from ._library import _C


@dataclass(frozen=True)
class ProfileRow:
    op: str        # "add.Tensor"
    route: str     # "kernel", "view", "decomposition", "cpu fallback"
    kernel: str    # "cpu::add.Tensor.f32.f32", or "" when no kernel ran
    plugin: str    # "cpu", or ""
    device: str    # "cpu:0"
    time_us: float  # from the call to its device finishing
    explain: str   # sy_op_explain's text


def _parse(explain):
    """(route, kernel, plugin) from explain's text."""
    if explain.startswith("kernel "):
        kernel = explain[len("kernel "):].split(" ", 1)[0]
        plugin = kernel.split("::", 1)[0] if "::" in kernel else ""
        return "kernel", kernel, plugin
    route = explain.split(";", 1)[0].split(" (", 1)[0]
    return route, "", ""


class Profile:
    """The rows of one sy.profile() block (a context manager)."""

    _lock = threading.Lock()

    def __init__(self):
        self.rows = []
        self._previous = None

    def _record(self, op, explain, output, seconds):
        route, kernel, plugin = _parse(explain)
        try:
            device = output.device.label
        except Exception:  # noqa: BLE001 — a row without a device is still a row
            device = "?"
        self.rows.append(ProfileRow(op, route, kernel, plugin, device, seconds * 1e6,
                                    explain))

    def __enter__(self):
        with Profile._lock:
            self._previous = _C._set_profiler(self._record)
        return self

    def __exit__(self, *exc):
        with Profile._lock:
            _C._set_profiler(self._previous)
        return False

    def total_us(self):
        return sum(row.time_us for row in self.rows)

    def table(self):
        """The rows as an aligned text table."""
        header = ("op", "kernel", "plugin", "device", "time_us")
        lines = [(r.op, r.kernel or r.route, r.plugin, r.device, f"{r.time_us:.1f}")
                 for r in self.rows]
        widths = [max(len(str(x)) for x in column) for column in zip(header, *lines)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + f"  {{:>{widths[-1]}}}"
        return "\n".join(fmt.format(*row) for row in [header, *lines])

    def __str__(self):
        return self.table()

    def __repr__(self):
        return f"<switchyard.Profile: {len(self.rows)} op call(s), {self.total_us():.1f} us>"


def profile():
    """A context manager recording every op call made inside it (any thread)."""
    return Profile()
