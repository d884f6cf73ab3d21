"""PyTorch's numbers beside bench_fusion's cuda rows (issue 16), on the same GPU.

The same graphs as tools/bench/fusion/bench_graphs.cc, composed from the same
primitives in the same order, in PyTorch eager and under torch.compile
(default mode, dynamic=False, a fresh Dynamo state per graph):

  chain      relu(sigmoid(tanh(x*y + 1)*2 - y)) + x        8192x8192
  softmax    exp(x - max) / sum(exp(x - max)), last dim      8192x8192
  rms_norm   x * rsqrt(mean(x*x) + 1e-6) * w, last dim       8192x8192
  gelu       x * ((erf(x / sqrt 2) + 1) * 0.5)               8192x8192
  rowlen     softmax and rms_norm over rows of 256 ... 262144 (rows x cols
             = 2^26), as a fraction of a device-to-device copy's bandwidth
  block      the pre-norm transformer block (bf16, 8x512x1024, 16 heads,
             MLP 4096 with a bias, tanh gelu, causal attention)

in f32 and bf16. Timing is bench_fusion's method: the host clock around one
call and a torch.cuda.synchronize(), per call; the table shows the median
(bench_fusion prints Google Benchmark's mean; on these multi-100-µs rows the
two agree within noise). The copy is bench_fusion's too: best of 17 timed
copies of 2^26 elements after 3 warm-ups, bytes = 2 x the tensor. A graph's
bytes are bench_fusion's: every input read once, every output written once.

compile_s is torch.compile's first call (trace, Inductor, Triton autotune-free
default mode, the first run), synchronized, with a fresh Inductor cache
directory unless TORCHINDUCTOR_CACHE_DIR is set.

    python3 tools/bench/fusion/bench_fusion_torch.py [--only=graphs,rowlen,block]
        [--repeats=50] [--json=out.json]
"""
import json
import math
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="sy_inductor_"))

import torch  # noqa: E402  (after the cache directory is chosen)
import torch.nn.functional as F  # noqa: E402


def arg(name, default):
    prefix = f"--{name}="
    return next((a[len(prefix):] for a in sys.argv if a.startswith(prefix)), default)


REPEATS = int(arg("repeats", "50"))
ONLY = arg("only", "graphs,rowlen,block").split(",")
JSON_PATH = arg("json", "")
dev = torch.device("cuda:0")
DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16}
ROW_LENGTHS = [256, 1024, 4096, 16384, 65536, 262144]  # bench_fusion's sweep
results = []


def rand(shape, dt, seed, lo=-2.0, hi=2.0):
    g = torch.Generator(device=dev).manual_seed(seed)
    return (torch.rand(shape, device=dev, generator=g) * (hi - lo) + lo).to(dt)


# ---- The graphs (bench_graphs.cc) -------------------------------------------

def chain(x, y):
    a = torch.tanh(x * y + 1.0) * 2.0 - y
    return torch.relu(torch.sigmoid(a)) + x


def softmax(x):
    m = torch.amax(x, dim=-1, keepdim=True)
    e = torch.exp(x - m)
    return e / torch.sum(e, dim=-1, keepdim=True)


def rms_norm(x, w):
    ms = torch.mean(x * x, dim=-1, keepdim=True)
    return x * torch.rsqrt(ms + 1e-6) * w


def gelu(x):
    return x * ((torch.erf(x * 0.7071067811865476) + 1.0) * 0.5)


# ---- Timing (bench_fusion's method) -------------------------------------------

def host_ms(fn, args):
    """Median of per-call host times around a call and a synchronize."""
    t_warm = time.perf_counter()
    while time.perf_counter() - t_warm < 0.1:  # clocks settle, caches fill
        fn(*args)
        torch.cuda.synchronize()
    ms = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn(*args)
        torch.cuda.synchronize()
        ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms)


def compiled(fn, args):
    """torch.compile(fn) and the seconds of its first (compiling) call."""
    torch._dynamo.reset()
    c = torch.compile(fn, dynamic=False)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    c(*args)
    torch.cuda.synchronize()
    return c, time.perf_counter() - t0


_copy_bw = {}


def copy_bandwidth(dt):
    """Bytes/s of a device-to-device copy of 2^26 elements (bench_fusion's)."""
    if dt not in _copy_bw:
        src = rand((1 << 26,), dt, 99)
        dst = torch.empty_like(src)
        best = math.inf
        for i in range(20):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            dst.copy_(src)
            torch.cuda.synchronize()
            if i >= 3:
                best = min(best, time.perf_counter() - t0)
        _copy_bw[dt] = 2.0 * src.numel() * src.element_size() / best
    return _copy_bw[dt]


def measure(name, fn, args, nbytes, dt, frac=False):
    eager = host_ms(fn, args)
    c, compile_s = compiled(fn, args)
    comp = host_ms(c, args)
    row = {"name": name, "eager_ms": eager, "compiled_ms": comp, "compile_s": compile_s,
           "bytes": nbytes}
    if frac:
        bw = copy_bandwidth(dt)
        row["eager_frac_copy"] = nbytes / (eager * 1e-3) / bw
        row["compiled_frac_copy"] = nbytes / (comp * 1e-3) / bw
    results.append(row)
    save()  # after every row: a run cut short keeps what it measured
    fr = (f" | {row['eager_frac_copy']:.2f} | {row['compiled_frac_copy']:.2f}" if frac
          else " | | ")
    print(f"| {name} | {eager:.3f} | {comp:.3f} | {compile_s:.1f}{fr} |", flush=True)
    del c


def save():
    if not JSON_PATH:
        return
    p = torch.cuda.get_device_properties(0)
    with open(JSON_PATH, "w") as f:
        json.dump({"device": p.name, "torch": torch.__version__, "rows": results,
                   "copy_bytes_per_s": {t: _copy_bw.get(dt) for t, dt in DTYPES.items()}},
                  f, indent=1)


def graphs():
    for t, dt in DTYPES.items():
        n = 8192
        size = torch.empty((), dtype=dt).element_size()
        x, y = rand((n, n), dt, 1), rand((n, n), dt, 2)
        w = rand((n,), dt, 5)
        measure(f"cuda/chain/{t}/8192x8192", chain, (x, y), 3 * n * n * size, dt)
        measure(f"cuda/softmax/{t}/8192x8192", softmax, (x,), 2 * n * n * size, dt)
        measure(f"cuda/rms_norm/{t}/8192x8192", rms_norm, (x, w), 2 * n * n * size, dt)
        measure(f"cuda/gelu/{t}/8192x8192", gelu, (x,), 2 * n * n * size, dt)
        del x, y, w


def rowlen():
    for t, dt in DTYPES.items():
        size = torch.empty((), dtype=dt).element_size()
        for cols in ROW_LENGTHS:
            rows = (1 << 26) // cols
            x = rand((rows, cols), dt, 3)
            w = rand((cols,), dt, 5)
            nbytes = 2 * rows * cols * size
            measure(f"cuda/rowlen/softmax/{t}/{cols}", softmax, (x,), nbytes, dt, frac=True)
            measure(f"cuda/rowlen/rms_norm/{t}/{cols}", rms_norm, (x, w), nbytes, dt, frac=True)
            del x, w


def block():
    B, L, D, H = 8, 512, 1024, 16
    E, HIDDEN = D // H, 4 * D
    dt = torch.bfloat16
    s = 1.0 / math.sqrt(D)
    norm1, norm2 = rand((D,), dt, 8), rand((D,), dt, 9)
    w_qkv = rand((3 * D, D), dt, 10) * s
    w_o = rand((D, D), dt, 11) * s
    w_up = rand((HIDDEN, D), dt, 12) * s
    b_up = rand((HIDDEN,), dt, 13) * 0.1
    w_down = rand((D, HIDDEN), dt, 14) * (0.5 * s)

    def fn(x):
        h = F.rms_norm(x, (D,), norm1, 1e-6)
        qkv = F.linear(h, w_qkv).view(B, L, 3, H, E).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
        a = a.permute(0, 2, 1, 3).reshape(B, L, D)
        x = x + F.linear(a, w_o)
        h = F.rms_norm(x, (D,), norm2, 1e-6)
        return x + F.linear(F.gelu(F.linear(h, w_up, b_up), approximate="tanh"), w_down)

    x = rand((B, L, D), dt, 7)
    measure("cuda/block/bf16/8x512x1024", fn, (x,), 2 * B * L * D * 2, dt)


def main():
    p = torch.cuda.get_device_properties(0)
    print(f"device: {p.name}, torch {torch.__version__}, "
          f"inductor cache {os.environ['TORCHINDUCTOR_CACHE_DIR']}, repeats {REPEATS}")
    print("| row | eager ms | torch.compile ms | compile s | eager frac_copy | "
          "compiled frac_copy |")
    print("|---|---:|---:|---:|---:|---:|")
    # The sweep last: 24 compiles, the most a time limit may cut short.
    if "graphs" in ONLY:
        graphs()
    if "block" in ONLY:
        block()
    if "rowlen" in ONLY:
        rowlen()
    for t, dt in DTYPES.items():
        if dt in _copy_bw:
            print(f"copy bandwidth {t}: {_copy_bw[dt] / 1e9:.0f} GB/s")
    save()


if __name__ == "__main__":
    main()
