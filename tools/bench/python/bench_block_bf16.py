"""The bf16 transformer block from Python: switchyard eager and captured
(@sy.compile) beside PyTorch eager and torch.compile, on one CUDA GPU.

The block of bench_block.cc and bench_block_torch.py (batch 8 x 512 x 1024,
16 heads, MLP 4096, no biases): rms_norm, one QKV linear viewed into heads,
causal scaled_dot_product_attention, the output linear and residual,
rms_norm, linear + tanh gelu, linear and residual. Weights and the input
are made by torch and shared with switchyard through DLPack (no copy).

Every row is timed the same way: after 0.3 s of warm-up, the median of 20
timings of 5 blocks by the host clock, each ending in the framework's
device synchronize. First calls (captures, compiles) are shown apart.

    python3 tools/bench/python/bench_block_bf16.py
"""
import statistics
import time

import torch
import torch.nn.functional as F

import switchyard as sy

B, L, D, H, E, HIDDEN = 8, 512, 1024, 16, 64, 4096
DEV = torch.device("cuda:0")
DT = torch.bfloat16


def rand(*shape, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, device=DEV) * (hi - lo) + lo).to(DT)


def torch_block(p):
    def block(x):
        h = F.rms_norm(x, (D,), p["norm1"], 1e-6)
        qkv = F.linear(h, p["w_qkv"]).view(B, L, 3, H, E).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
        a = a.permute(0, 2, 1, 3).reshape(B, L, D)
        x = x + F.linear(a, p["w_o"])
        h = F.rms_norm(x, (D,), p["norm2"], 1e-6)
        return x + F.linear(F.gelu(F.linear(h, p["w_up"]), approximate="tanh"), p["w_down"])
    return block


def switchyard_block(ops, p):
    def block(x):
        h = ops.rms_norm(x, p["norm1"], 1e-6)
        qkv = ops.linear(h, p["w_qkv"]).reshape(B, L, 3, H, E).permute(2, 0, 3, 1, 4)
        a = ops.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
        a = a.permute(0, 2, 1, 3).reshape(B, L, D)
        x = x + ops.linear(a, p["w_o"])
        h = ops.rms_norm(x, p["norm2"], 1e-6)
        return x + ops.linear(ops.gelu(ops.linear(h, p["w_up"]), approximate="tanh"),
                              p["w_down"])
    return block


def timed(fn, x, sync):
    """(first call ms, steady ms per block, host µs per block)."""
    sync()
    t0 = time.perf_counter()
    fn(x)
    sync()
    first = (time.perf_counter() - t0) * 1e3
    t_warm = time.perf_counter()
    while time.perf_counter() - t_warm < 0.3:
        fn(x)
        sync()
    steady, host = [], []
    for _ in range(20):
        h0 = time.perf_counter()
        for _ in range(5):
            y = fn(x)
        h1 = time.perf_counter()
        sync()
        h2 = time.perf_counter()
        steady.append((h2 - h0) / 5 * 1e3)
        host.append((h1 - h0) / 5 * 1e6)
    del y
    return first, statistics.median(steady), statistics.median(host)


def main():
    prop = torch.cuda.get_device_properties(0)
    print(f"device: {prop.name}, torch {torch.__version__}, switchyard {sy.__version__}")
    s = 1.0 / 32
    p = {"norm1": rand(D, lo=0.5, hi=1.5), "norm2": rand(D, lo=0.5, hi=1.5),
         "w_qkv": rand(3 * D, D, lo=-s, hi=s), "w_o": rand(D, D, lo=-s, hi=s),
         "w_up": rand(HIDDEN, D, lo=-s, hi=s), "w_down": rand(D, HIDDEN, lo=-s / 2, hi=s / 2)}
    x = rand(B, L, D)
    torch.cuda.synchronize()

    ctx = sy.Context()
    dev = ctx.device("cuda:0")
    sp = {k: sy.from_dlpack(v, context=ctx) for k, v in p.items()}
    sx = sy.from_dlpack(x, context=ctx)
    sy_eager = switchyard_block(ctx.ops, sp)
    sy_captured = sy.compile(switchyard_block(ctx.ops, sp), context=ctx)
    t_eager = torch_block(p)
    t_compiled = torch.compile(torch_block(p))

    # The four agree (bf16; the captured graph fuses and rounds alike).
    want = t_eager(x).float()
    for name, fn in (("switchyard eager", sy_eager), ("switchyard captured", sy_captured)):
        got = torch.from_dlpack(fn(sx)).float()
        dev.synchronize()
        err = (got - want).abs().max().item()
        print(f"  {name}: max |diff| against torch eager {err:.3g}")

    rows = [("switchyard eager", timed(sy_eager, sx, dev.synchronize)),
            ("switchyard @sy.compile", timed(sy_captured, sx, dev.synchronize)),
            ("torch eager", timed(t_eager, x, torch.cuda.synchronize)),
            ("torch.compile", timed(t_compiled, x, torch.cuda.synchronize))]
    print("| block bf16 8x512x1024 | first call ms | steady ms | host us/block |")
    print("|---|---:|---:|---:|")
    for name, (first, steady, host) in rows:
        print(f"| {name} | {first:.1f} | {steady:.3f} | {host:.0f} |")


if __name__ == "__main__":
    main()
