"""Python per-call costs, Switchyard vs PyTorch vs NumPy, in one run
(docs/performance.md#python).

  1. add, mul, gelu on 16 elements: the cost of one call from Python
     (binding + dispatch + kernel), allocating the result and into out=;
     Switchyard with the cpu plugin alone and with the default plugin set.
  2. The transformer block of `switchyard run --block` (tools/cli/
     transformer_block.cc: embedding, rms_norm, q/k/v/out linears, causal
     attention, residual adds, MLP with gelu): each op's cost from Python,
     and the whole block.
  3. With --device cuda:0 (tools/bench/python/device_run.sh on a GPU
     machine): the same ops on the GPU — host time to issue them, time with
     the device waited for, and the block's host overhead as a share of its
     GPU time, at the CLI's size and at a larger one.

PyTorch rows appear where PyTorch is installed. Medians of repeated loops
of calls; the loop itself costs ~20 ns per iteration for every library.

    PYTHONPATH=build/release/python python3 tools/bench/python/bench_python.py
    ... bench_python.py --device cuda:0 [--quick]
"""

import argparse
import math
import os
import statistics
import subprocess
import time

import numpy as np

import switchyard as sy

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # the rows say so
    torch = None

REPEATS = 7


def per_call_us(fn, calls, sync=None):
    """Median over REPEATS loops of `calls` calls, in µs per call. `sync`
    (if given) runs once after each loop and is included: for asynchronous
    devices this gives the sustained cost when the queue does not fill."""
    for _ in range(max(calls // 10, 10)):
        fn()
    if sync:
        sync()
    samples = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        if sync:
            sync()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def fmt(value):
    return "n/a" if value is None else f"{value:8.2f}"


def table(title, header, rows):
    print(f"\n{title}")
    widths = [max(len(str(r[i])) if i == 0 else 9 for r in [header, *rows])
              for i in range(len(header))]
    print("  " + "  ".join(f"{h:<{widths[i]}}" if i == 0 else f"{h:>9}"
                           for i, h in enumerate(header)))
    for row in rows:
        print("  " + "  ".join(f"{v:<{widths[i]}}" if i == 0 else f"{fmt(v):>9}"
                               for i, v in enumerate(row)))


# ---- 1. small ops -----------------------------------------------------------

def small_ops(device, calls):
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(16).astype(np.float32)
    b_np = rng.standard_normal(16).astype(np.float32)
    out_np = np.empty(16, np.float32)
    contexts = [("switchyard (cpu plugin only)", sy.Context(allow=["cpu"])),
                ("switchyard (default plugins)", sy.Context())]
    if device != "cpu":
        contexts = [("switchyard (default plugins)", sy.Context())]
    rows = []
    for label, ctx in contexts:
        dev = ctx.device(device)
        a, b = sy.tensor(a_np, device=dev), sy.tensor(b_np, device=dev)
        out = sy.empty(16, device=dev)
        sync = dev.synchronize if device != "cpu" else None
        ops = ctx.ops
        add, mul, gelu = ops.add, ops.mul, ops.gelu
        rows.append([label,
                     per_call_us(lambda: add(a, b), calls, sync),
                     per_call_us(lambda: add(a, b, out=out), calls, sync),
                     per_call_us(lambda: a + b, calls, sync),
                     per_call_us(lambda: mul(a, b), calls, sync),
                     per_call_us(lambda: gelu(a), calls, sync)])
        explain = ops.add.explain(a, b)
        print(f"  {label}: add runs {explain}")
    if torch is not None:
        tdev = torch.device(device)
        ta, tb = torch.from_numpy(a_np).to(tdev), torch.from_numpy(b_np).to(tdev)
        tout = torch.empty(16, device=tdev)
        tsync = torch.cuda.synchronize if tdev.type == "cuda" else None
        rows.append([f"torch {torch.__version__}",
                     per_call_us(lambda: torch.add(ta, tb), calls, tsync),
                     per_call_us(lambda: torch.add(ta, tb, out=tout), calls, tsync),
                     per_call_us(lambda: ta + tb, calls, tsync),
                     per_call_us(lambda: torch.mul(ta, tb), calls, tsync),
                     per_call_us(lambda: F.gelu(ta), calls, tsync)])
    else:
        rows.append(["torch (not installed)", None, None, None, None, None])
    if device == "cpu":
        rows.append([f"numpy {np.__version__}",
                     per_call_us(lambda: np.add(a_np, b_np), calls),
                     per_call_us(lambda: np.add(a_np, b_np, out=out_np), calls),
                     per_call_us(lambda: a_np + b_np, calls),
                     per_call_us(lambda: np.multiply(a_np, b_np), calls),
                     None])  # NumPy has no gelu ufunc
    table(f"1. one call on 16 f32 elements on {device}, µs per call",
          ["", "add", "add out=", "a + b", "mul", "gelu"], rows)


# ---- 2./3. the transformer block --------------------------------------------

class Config:
    def __init__(self, vocab=512, seq=32, d_model=128, heads=4, d_ff=512):
        self.vocab, self.seq, self.d, self.h, self.f = vocab, seq, d_model, heads, d_ff

    def __str__(self):
        return (f"seq {self.seq}, d_model {self.d}, heads {self.h}, d_ff {self.f}, "
                f"vocab {self.vocab}")


def weights(c, seed=2026):
    rng = np.random.default_rng(seed)
    wd = 1 / math.sqrt(c.d)
    n = lambda shape, s: (rng.standard_normal(shape) * s).astype(np.float32)  # noqa: E731
    return {
        "tokens": rng.integers(0, c.vocab, c.seq).astype(np.int64),
        "wte": n((c.vocab, c.d), 1.0), "norm1": 1 + n(c.d, 0.1),
        "wq": n((c.d, c.d), wd), "wk": n((c.d, c.d), wd), "wv": n((c.d, c.d), wd),
        "wo": n((c.d, c.d), wd), "norm2": 1 + n(c.d, 0.1),
        "w1": n((c.f, c.d), wd), "b1": n(c.f, 0.1),
        "w2": n((c.d, c.f), 1 / math.sqrt(c.f)), "b2": n(c.d, 0.1),
    }


def switchyard_steps(c, w, ops, device):
    """The block as (name, fn) steps; each fn reads the previous steps'
    results from `r`, so a step can be timed alone or the block in order."""
    p = {k: sy.tensor(v, device=device) for k, v in w.items()}
    s, d, h = c.seq, c.d, c.h
    dh = d // h
    r = {}

    def heads(t):
        return t.reshape(s, h, dh).transpose(0, 1)

    steps = [
        ("embedding", lambda: r.__setitem__("x", ops.embedding(p["wte"], p["tokens"]))),
        ("rms_norm", lambda: r.__setitem__("n1", ops.rms_norm(r["x"], p["norm1"], 1e-6))),
        ("linear q", lambda: r.__setitem__("q", ops.linear(r["n1"], p["wq"]))),
        ("linear k", lambda: r.__setitem__("k", ops.linear(r["n1"], p["wk"]))),
        ("linear v", lambda: r.__setitem__("v", ops.linear(r["n1"], p["wv"]))),
        ("split heads (3 views)", lambda: r.update(
            qh=heads(r["q"]), kh=heads(r["k"]), vh=heads(r["v"]))),
        ("attention (causal)", lambda: r.__setitem__("a", ops.scaled_dot_product_attention(
            r["qh"], r["kh"], r["vh"], is_causal=True))),
        ("merge heads", lambda: r.__setitem__("m", r["a"].transpose(0, 1).reshape(s, d))),
        ("linear out", lambda: r.__setitem__("o", ops.linear(r["m"], p["wo"]))),
        ("residual add", lambda: r.__setitem__("x2", r["x"] + r["o"])),
        ("rms_norm", lambda: r.__setitem__("n2", ops.rms_norm(r["x2"], p["norm2"], 1e-6))),
        ("linear up", lambda: r.__setitem__("u", ops.linear(r["n2"], p["w1"], p["b1"]))),
        ("gelu", lambda: r.__setitem__("g", ops.gelu(r["u"]))),
        ("linear down", lambda: r.__setitem__("dn", ops.linear(r["g"], p["w2"], p["b2"]))),
        ("residual add", lambda: r.__setitem__("y", r["x2"] + r["dn"])),
    ]
    return steps, r


def torch_steps(c, w, device):
    p = {k: torch.from_numpy(v).to(device) for k, v in w.items()}
    s, d, h = c.seq, c.d, c.h
    dh = d // h
    r = {}

    def heads(t):
        return t.reshape(s, h, dh).transpose(0, 1)

    rms = getattr(F, "rms_norm", None)

    def rms_norm(x, weight):
        if rms is not None:
            return rms(x, (d,), weight, 1e-6)
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * weight

    steps = [
        ("embedding", lambda: r.__setitem__("x", F.embedding(p["tokens"], p["wte"]))),
        ("rms_norm", lambda: r.__setitem__("n1", rms_norm(r["x"], p["norm1"]))),
        ("linear q", lambda: r.__setitem__("q", F.linear(r["n1"], p["wq"]))),
        ("linear k", lambda: r.__setitem__("k", F.linear(r["n1"], p["wk"]))),
        ("linear v", lambda: r.__setitem__("v", F.linear(r["n1"], p["wv"]))),
        ("split heads (3 views)", lambda: r.update(
            qh=heads(r["q"]), kh=heads(r["k"]), vh=heads(r["v"]))),
        ("attention (causal)", lambda: r.__setitem__("a", F.scaled_dot_product_attention(
            r["qh"], r["kh"], r["vh"], is_causal=True))),
        ("merge heads", lambda: r.__setitem__("m", r["a"].transpose(0, 1).reshape(s, d))),
        ("linear out", lambda: r.__setitem__("o", F.linear(r["m"], p["wo"]))),
        ("residual add", lambda: r.__setitem__("x2", r["x"] + r["o"])),
        ("rms_norm", lambda: r.__setitem__("n2", rms_norm(r["x2"], p["norm2"]))),
        ("linear up", lambda: r.__setitem__("u", F.linear(r["n2"], p["w1"], p["b1"]))),
        ("gelu", lambda: r.__setitem__("g", F.gelu(r["u"]))),
        ("linear down", lambda: r.__setitem__("dn", F.linear(r["g"], p["w2"], p["b2"]))),
        ("residual add", lambda: r.__setitem__("y", r["x2"] + r["dn"])),
    ]
    return steps, r


def numpy_steps(c, w):
    """NumPy has no attention, rms_norm or gelu: each is written with the
    ufuncs it takes (gelu with its tanh form: NumPy has no erf)."""
    p = w
    s, d, h = c.seq, c.d, c.h
    dh = d // h
    r = {}
    mask = np.triu(np.full((s, s), -np.inf, np.float32), 1)

    def heads(t):
        return t.reshape(s, h, dh).transpose(1, 0, 2)

    def rms_norm(x, weight):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * weight

    def attention(q, k, v):
        scores = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(dh)) + mask
        e = np.exp(scores - scores.max(-1, keepdims=True))
        return (e / e.sum(-1, keepdims=True)) @ v

    def gelu(x):
        return 0.5 * x * (1 + np.tanh(np.float32(0.7978845608) * (x + 0.044715 * x ** 3)))

    steps = [
        ("embedding", lambda: r.__setitem__("x", p["wte"][p["tokens"]])),
        ("rms_norm", lambda: r.__setitem__("n1", rms_norm(r["x"], p["norm1"]))),
        ("linear q", lambda: r.__setitem__("q", r["n1"] @ p["wq"].T)),
        ("linear k", lambda: r.__setitem__("k", r["n1"] @ p["wk"].T)),
        ("linear v", lambda: r.__setitem__("v", r["n1"] @ p["wv"].T)),
        ("split heads (3 views)", lambda: r.update(
            qh=heads(r["q"]), kh=heads(r["k"]), vh=heads(r["v"]))),
        ("attention (causal)", lambda: r.__setitem__("a", attention(r["qh"], r["kh"], r["vh"]))),
        ("merge heads", lambda: r.__setitem__("m", r["a"].transpose(1, 0, 2).reshape(s, d))),
        ("linear out", lambda: r.__setitem__("o", r["m"] @ p["wo"].T)),
        ("residual add", lambda: r.__setitem__("x2", r["x"] + r["o"])),
        ("rms_norm", lambda: r.__setitem__("n2", rms_norm(r["x2"], p["norm2"]))),
        ("linear up", lambda: r.__setitem__("u", r["n2"] @ p["w1"].T + p["b1"])),
        ("gelu", lambda: r.__setitem__("g", gelu(r["u"]))),
        ("linear down", lambda: r.__setitem__("dn", r["g"] @ p["w2"].T + p["b2"])),
        ("residual add", lambda: r.__setitem__("y", r["x2"] + r["dn"])),
    ]
    return steps, r


def run_all(steps):
    for _, fn in steps:
        fn()


def block_cpu(c, calls):
    w = weights(c)
    ctx = sy.Context()
    sy_steps, sy_r = switchyard_steps(c, w, ctx.ops, ctx.device("cpu"))
    run_all(sy_steps)
    np_steps, np_r = numpy_steps(c, w)
    run_all(np_steps)
    columns = [("switchyard", sy_steps)]
    if torch is not None:
        t_steps, t_r = torch_steps(c, w, torch.device("cpu"))
        run_all(t_steps)
        columns.append((f"torch", t_steps))
    columns.append(("numpy", np_steps))
    # The three agree (float32; gelu's tanh form differs by < 1e-3).
    ref = np_r["y"]
    got = sy_r["y"].numpy()
    assert np.allclose(got, ref, atol=5e-3, rtol=5e-3), np.abs(got - ref).max()
    rows = []
    for i, (name, _) in enumerate(sy_steps):
        rows.append([name] + [per_call_us(steps[i][1], calls) for _, steps in columns])
    rows.append(["whole block"] + [per_call_us(lambda s=steps: run_all(s), max(calls // 10, 50))
                                   for _, steps in columns])
    table(f"2. the transformer block on cpu ({c}), µs per call",
          [""] + [label for label, _ in columns], rows)
    twin = twin_block(c, "cpu", max(calls // 10, 50))
    if twin is not None:
        py_block = rows[-1][1]
        print(f"  the same block from C (same ops, C API): {twin[0]:.1f} µs; the binding's "
              f"own cost {py_block - twin[0]:.1f} µs per block "
              f"({100 * (py_block - twin[0]) / py_block:.1f} % of Python's)")
    with sy.profile() as prof:
        run_all(sy_steps)
    kernels = sorted({f"{row.op} -> {row.kernel or row.route}" for row in prof.rows})
    print("  switchyard kernels: " + "; ".join(kernels))


def twin_block(c, device, blocks):
    """The same block from C through the C API (bench_block_twin, built
    beside the library): (issue, streamed, idle issue) µs per block, or None
    where the program is not there. Python's issue time minus this one is the
    binding's own cost."""
    path = os.environ.get("SWITCHYARD_BENCH_TWIN") or os.path.join(
        os.path.dirname(os.path.dirname(sy.library_path)), "bin", "bench_block_twin")
    if not os.access(path, os.X_OK):
        print(f"  (no {path}: the C API row is left out)")
        return None
    args = [path, f"--device={device}", f"--seq={c.seq}", f"--d_model={c.d}",
            f"--heads={c.h}", f"--d_ff={c.f}", f"--vocab={c.vocab}", f"--blocks={blocks}"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        print(f"  bench_block_twin failed: {done.stderr.strip()}")
        return None
    fields = dict(f.split("=") for f in done.stdout.split()[-3:])
    return (float(fields["issue_us"]), float(fields["streamed_us"]),
            float(fields["idle_issue_us"]))


def block_gpu(c, device, blocks, rounds=3):
    """Host time to issue one block, and its time with the device waited
    for; overhead = issue time / synced time when the GPU is the bottleneck.
    Python and the same block from C (bench_block_twin) are measured in
    `rounds` alternating rounds, as the host's speed drifts; the table has
    each column's median over the rounds, and the binding's cost is the
    median of the rounds' differences."""
    w = weights(c)
    ctx = sy.Context()
    dev = ctx.device(device)
    sy_steps, _ = switchyard_steps(c, w, ctx.ops, dev)

    def measure(steps, sync):
        """(issue, streamed, one+wait, idle issue) µs per block."""
        run_all(steps)
        sync()
        issue = []
        synced = []
        for _ in range(REPEATS):
            start = time.perf_counter()
            for _ in range(blocks):
                run_all(steps)
            issued = time.perf_counter()
            sync()
            end = time.perf_counter()
            issue.append((issued - start) / blocks * 1e6)
            synced.append((end - start) / blocks * 1e6)
        one = []
        issue_one = []
        for _ in range(REPEATS * 3):
            sync()
            start = time.perf_counter()
            run_all(steps)
            issued = time.perf_counter()
            sync()
            one.append((time.perf_counter() - start) * 1e6)
            issue_one.append((issued - start) * 1e6)
        return tuple(statistics.median(x) for x in (issue, synced, one, issue_one))

    def row(label, samples):
        """A table row: each column's median over the rounds."""
        cols = [statistics.median(col) if None not in col else None for col in zip(*samples)]
        return [label, *cols, 100 * cols[0] / cols[1]]

    py, twin = [], []
    for _ in range(rounds):
        py.append(measure(sy_steps, dev.synchronize))
        t = twin_block(c, device, blocks)
        if t is not None:
            twin.append((t[0], t[1], None, t[2]))
    rows = [row("switchyard", py)]
    if twin:
        rows.append(row("switchyard from C (same ops)", twin))
    if torch is not None:
        t_steps, _ = torch_steps(c, w, torch.device(device))
        rows.append(row(f"torch {torch.__version__}", [measure(t_steps, torch.cuda.synchronize)]))
    table(f"3. the transformer block on {device} ({c}), µs per block",
          ["", "issue", "streamed", "one+wait", "idle issue", "issue %"], rows)
    print("  issue: host time to call the block's ops, blocks back to back; streamed: "
          "the same then one wait (the GPU's pace when it is the bottleneck); idle issue: "
          "host time to call one block's ops, the GPU idle before it (no queue effects); "
          "issue % = issue / streamed (the host's share: binding, dispatch, plugin and "
          "driver; < 100 % means the GPU is never starved)")
    if twin:
        diffs = [p[3] - t[3] for p, t in zip(py, twin)]
        binding = statistics.median(diffs)
        streamed = rows[0][2]
        print(f"  the binding's own cost: Python's idle issue time minus C's, per round "
              f"{', '.join(f'{d:.1f}' for d in diffs)} µs; median {binding:.1f} µs per block "
              f"= {100 * binding / streamed:.1f} % of the streamed time (the block's GPU time "
              f"where issue % < 100)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--quick", action="store_true", help="fewer calls (CI smoke run)")
    args = parser.parse_args()
    calls = 2000 if args.quick else 20000
    print(f"switchyard {sy.__version__} ({sy.library_path}), numpy {np.__version__}, "
          f"torch {torch.__version__ if torch else 'not installed'}; "
          f"{os.cpu_count()} cores visible")
    small_ops(args.device, calls)
    if args.device == "cpu":
        block_cpu(Config(), max(calls // 10, 200))
    else:
        block_gpu(Config(), args.device, 20 if args.quick else 200)
        block_gpu(Config(seq=1024, d_model=1024, heads=16, d_ff=4096, vocab=32000),
                  args.device, 5 if args.quick else 20)


if __name__ == "__main__":
    main()
