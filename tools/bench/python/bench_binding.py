"""The binding decision, measured: the cost of one `add(a, b)` on two
16-element f32 tensors through the smallest CPython-C-API extension
(probe_capi.cc, METH_FASTCALL = vectorcall) and the smallest pybind11 one
(probe_pybind.cc), beside the package's own binding (sy.ops.add, which also
chooses among overloads) and a call that checks its arguments and returns
(each binding's floor). One process, one core, the cpu plugin only.

    cmake --build build/release --target bench_python_probes switchyard_python cpu
    PYTHONPATH=build/release/python:build/release/tools/bench/python \
        python3 tools/bench/python/bench_binding.py
"""

import os
import statistics
import sys
import time

import numpy as np

import switchyard as sy

N, REPEATS = 20000, 9


def per_call_ns(fn, *args):
    for _ in range(1000):
        fn(*args)
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(N):
            fn(*args)
        samples.append((time.perf_counter() - start) / N * 1e9)
    return statistics.median(samples)


def main():
    ctx = sy.Context(allow=["cpu"], use_environment=False)
    a = sy.tensor(np.arange(16, dtype=np.float32), context=ctx)
    b = sy.tensor(np.ones(16, np.float32), context=ctx)
    op = ctx.ops.add.Tensor
    rows = [("python loop (empty body)", per_call_ns(lambda: None))]
    for name in ("_probe_capi", "_probe_pybind"):
        try:
            probe = __import__(name)
        except ImportError as error:
            print(f"({name}: {error}; build the bench_python_probes target)", file=sys.stderr)
            continue
        probe.set_op(op._handle)
        pa, pb = probe.wrap(a.handle), probe.wrap(b.handle)
        label = "C API + vectorcall" if name == "_probe_capi" else "pybind11"
        rows.append((f"{label}: noop(a, b)", per_call_ns(probe.noop, pa, pb)))
        rows.append((f"{label}: add(a, b)", per_call_ns(probe.add, pa, pb)))
    rows.append(("switchyard._C: ops.add.Tensor(a, b)", per_call_ns(op, a, b)))
    rows.append(("switchyard._C: ops.add(a, b)", per_call_ns(ctx.ops.add, a, b)))
    rows.append(("switchyard._C: a + b", per_call_ns(lambda: a + b)))
    print(f"per call, median of {REPEATS} x {N} calls, 16 f32 elements, "
          f"{os.cpu_count()} cores visible")
    for label, ns in rows:
        print(f"  {label:<40} {ns:8.0f} ns")


if __name__ == "__main__":
    main()
