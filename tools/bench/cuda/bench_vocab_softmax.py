"""softmax and log_softmax over language-model vocabulary rows (32,000 …
128,256, odd lengths included), eager from Python on cuda:0 — the cuda
plugin's own kernel, Note [Long rows] in sdk/gpu/norm.cu — against
PyTorch eager on the same tensors, with a copy of the same bytes for the
fraction of bandwidth and the error of both against float64
(docs/performance.md, "softmax over a vocabulary").

    PYTHONPATH=build/release/python python3 tools/bench/cuda/bench_vocab_softmax.py
    # or: tools/bench/python/device_run.sh vocab
"""
import statistics

import torch

import switchyard as sy
# The burst timer of the side-by-side script beside this one.
from bench_torch_ab import burst_ms

# (rows, vocabulary): LLaMA 2's, GPT-2's padded and unpadded, LLaMA 3's.
SHAPES = ((2048, 32000), (2048, 32001), (2048, 50176), (2048, 50257), (1024, 128256))


def median_ms(fn, calls=20):
    burst_ms(fn, 5)  # warm
    return statistics.median(burst_ms(fn, calls) for _ in range(7))


def main():
    ctx = sy.Context()
    print("| op | dtype | rows × cols | ours ms (of copy) | PyTorch ms (of copy) "
          "| PyTorch / ours | max err vs f64 (ours, torch) |")
    print("|---|---|---|---:|---:|---:|---|")
    for opname, torch_op in (("softmax", torch.softmax), ("log_softmax", torch.log_softmax)):
        op = getattr(ctx.ops, opname)
        for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
            for rows, cols in SHAPES:
                x = (torch.randn(rows, cols, device="cuda") * 4).to(dtype)
                sx = sy.from_dlpack(x, context=ctx)
                want = torch_op(x.double(), -1)
                scale = want.abs().max().item()
                ours = torch.from_dlpack(op(sx, -1))
                err_ours = (ours.double() - want).abs().max().item() / scale
                err_torch = (torch_op(x, -1).double() - want).abs().max().item() / scale
                o = median_ms(lambda: op(sx, -1))
                t = median_ms(lambda: torch_op(x, -1))
                c = median_ms(x.clone)
                print(f"| {opname} | {name} | {rows} × {cols} | {o:.3f} ({c / o:.2f}) "
                      f"| {t:.3f} ({c / t:.2f}) | {t / o:.2f} | {err_ours:.1e}, {err_torch:.1e} |")
                del x, sx, want, ours


if __name__ == "__main__":
    main()
