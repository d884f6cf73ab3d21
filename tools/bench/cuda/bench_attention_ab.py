"""Attention A/B: Switchyard's scaled_dot_product_attention against
PyTorch's F.scaled_dot_product_attention on the same GPU, in one process,
on the same tensors, timed in alternation (docs/performance.md, issue 17).

bench_cuda and bench_cuda_torch.py time the two libraries one after the
other, minutes apart, so a shift in clocks or in the GPU's temperature
between the runs reads as a difference between the libraries. Here each
round times a burst of PyTorch's calls and a burst of ours back to back
(the order alternating between rounds), and the ratio is taken per round;
the table gives the median of those ratios and each side's median time.

Switchyard gets PyTorch's q, k, v through DLPack (no copy) and runs its
default route (the dispatcher's choice, as a user gets it); PyTorch runs
its own default backend. Both allocate their output per call.

    PYTHONPATH=build/release/python python3 tools/bench/cuda/bench_attention_ab.py \
        [--rounds=15]
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import switchyard as sy

SHAPES = [(16, 16, 512, 64), (4, 16, 2048, 64), (8, 32, 1024, 128),
          (2, 32, 4096, 128), (1, 32, 8192, 128)]


def burst_ms(fn, calls):
    """Host time of `calls` calls and a device-wide synchronize, per call."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    p = torch.cuda.get_device_properties(0)
    print(f"device: {p.name}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"switchyard {sy.__version__}")
    ctx = sy.Context()
    ops = ctx.ops
    print("| dtype | shape | causal | torch ms | switchyard ms | torch/ours (median of rounds) "
          "| min, max of rounds | TFLOP/s ours |")
    print("|---|---|---|---:|---:|---:|---|---:|")
    below = 0
    rows = 0
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
        for b, h, l, e in SHAPES:
            q, k, v = ((torch.rand(b, h, l, e, device="cuda") * 2 - 1).to(dtype) for _ in range(3))
            sq, sk, sv = (sy.from_dlpack(t, context=ctx) for t in (q, k, v))
            for causal in (False, True):
                torch_fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
                sy_fn = lambda: ops.scaled_dot_product_attention(sq, sk, sv, is_causal=causal)  # noqa: E731
                got = torch.from_dlpack(sy_fn())
                want = torch_fn()
                err = (got.float() - want.float()).abs().max().item()
                if err > 2e-2:
                    raise SystemExit(f"{name} {b}x{h}x{l}x{e} causal={causal}: "
                                     f"max |ours - torch| = {err}")
                calls = 3 if l >= 4096 else 10
                for _ in range(3):  # warm both (plans, clocks)
                    burst_ms(torch_fn, calls)
                    burst_ms(sy_fn, calls)
                t_ms, s_ms, ratios = [], [], []
                for r in range(args.rounds):
                    pair = [(torch_fn, t_ms), (sy_fn, s_ms)]
                    for fn, into in (pair if r % 2 == 0 else pair[::-1]):
                        into.append(burst_ms(fn, calls))
                    ratios.append(t_ms[-1] / s_ms[-1])
                ratio = statistics.median(ratios)
                flops = 4.0 * b * h * l * l * e / (2 if causal else 1)
                ours = statistics.median(s_ms)
                rows += 1
                below += ratio < 0.95
                print(f"| {name} | {b}·{h}·{l}·{e} | {'yes' if causal else 'no'} "
                      f"| {statistics.median(t_ms):.3f} | {ours:.3f} | {ratio:.3f} "
                      f"| {min(ratios):.2f}, {max(ratios):.2f} "
                      f"| {flops / (ours * 1e-3) / 1e12:.0f} |")
            del q, k, v, sq, sk, sv
    print(f"rows below 0.95: {below} of {rows}")


if __name__ == "__main__":
    main()
