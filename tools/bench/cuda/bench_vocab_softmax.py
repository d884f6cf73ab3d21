"""softmax and log_softmax over language-model vocabulary rows (32,000 …
128,256, odd lengths included), eager from Python on cuda:0 — the cuda
plugin's own kernel, Note [Long rows] in sdk/gpu/norm.cu — against
PyTorch eager on the same tensors, with a copy of the same bytes for the
fraction of bandwidth and the error of both against float64
(docs/performance.md, "softmax over a vocabulary").

With --captured, the same op alone in a captured graph (sy.graph) under
the autotuner's mode on: the compiler measures the op's own kernel
against the fused kernel of its parts and runs the faster one
(fusion/compile/own_or_fused.h); the table says which it ran, beside the
graph compiled with the mode off (the rule: its own kernel).

    PYTHONPATH=build/release/python python3 tools/bench/cuda/bench_vocab_softmax.py [--captured]
    # or: tools/bench/python/device_run.sh vocab
"""
import statistics
import sys

import torch

import switchyard as sy
# The burst timer of the side-by-side script beside this one.
from bench_torch_ab import burst_ms

# (rows, vocabulary): LLaMA 2's, GPT-2's padded and unpadded, LLaMA 3's.
SHAPES = ((2048, 32000), (2048, 32001), (2048, 50176), (2048, 50257), (1024, 128256))


def median_ms(fn, calls=20):
    burst_ms(fn, 5)  # warm
    return statistics.median(burst_ms(fn, calls) for _ in range(7))


def cases(ctx):
    """Each (op name, torch op, dtype name, rows, cols, x, its switchyard
    tensor, float64 reference, reference scale), in the tables' order."""
    for opname, torch_op in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
        for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
            for rows, cols in SHAPES:
                x = (torch.randn(rows, cols, device="cuda") * 4).to(dtype)
                want = torch_op(x.double(), -1)
                yield (opname, torch_op, name, rows, cols, x, sy.from_dlpack(x, context=ctx),
                       want, want.abs().max().item())


def main():
    ctx = sy.Context()
    print("| op | dtype | rows × cols | ours ms (of copy) | PyTorch ms (of copy) "
          "| PyTorch / ours | max err vs f64 (ours, torch) |")
    print("|---|---|---|---:|---:|---:|---|")
    for opname, torch_op, name, rows, cols, x, sx, want, scale in cases(ctx):
        op = getattr(ctx.ops, opname)
        ours = torch.from_dlpack(op(sx, -1))
        err_ours = (ours.double() - want).abs().max().item() / scale
        err_torch = (torch_op(x, -1).double() - want).abs().max().item() / scale
        o = median_ms(lambda: op(sx, -1))
        t = median_ms(lambda: torch_op(x, -1))
        c = median_ms(x.clone)
        print(f"| {opname} | {name} | {rows} × {cols} | {o:.3f} ({c / o:.2f}) "
              f"| {t:.3f} ({c / t:.2f}) | {t / o:.2f} | {err_ours:.1e}, {err_torch:.1e} |")


def captured(ctx, opname, sx, mode):
    """The op alone in a graph compiled under autotune `mode`: (graph, which
    kernel it runs: "own" or "fused")."""
    ctx.autotune = mode
    with sy.graph(ctx) as g:
        g.output(getattr(ctx.ops, opname)(g.input(sx), -1))
    ctx.autotune = "cached"
    return g, ("fused" if g.info()["fused_groups"] == 1 else "own")


def main_captured():
    ctx = sy.Context()
    print("| op | dtype | rows × cols | own kernel ms (of copy) | autotune on: ms (of copy), runs "
          "| PyTorch ms (of copy) | max err vs f64 (on) |")
    print("|---|---|---|---:|---:|---:|---|")
    for opname, torch_op, name, rows, cols, x, sx, want, scale in cases(ctx):
        g_off, _ = captured(ctx, opname, sx, "off")
        g_on, runs = captured(ctx, opname, sx, "on")
        err = (torch.from_dlpack(g_on(sx)).double() - want).abs().max().item() / scale
        off = median_ms(lambda: g_off(sx))
        on = median_ms(lambda: g_on(sx))
        t = median_ms(lambda: torch_op(x, -1))
        c = median_ms(x.clone)
        print(f"| {opname} | {name} | {rows} × {cols} | {off:.3f} ({c / off:.2f}) "
              f"| {on:.3f} ({c / on:.2f}), {runs} | {t:.3f} ({c / t:.2f}) | {err:.1e} |")
        for line in g_on.explain().splitlines():
            if "measured" in line:
                print(f"<!-- {line.strip()} -->")


if __name__ == "__main__":
    main_captured() if "--captured" in sys.argv[1:] else main()
