#!/usr/bin/env python3
"""torch.matmul on the GPU for bench_autotune_cuda's shapes (same list, same
dtypes: f32 with TF32 off, and bf16), timed with CUDA events: warm-up, then
the median of 15 timings of back-to-back calls. Prints a markdown table.

    python3 tools/bench/autotune/bench_autotune_torch.py [--only=f32|bf16]
"""
import statistics
import sys

import torch

SHAPES = [
    (256, 256, 256), (512, 512, 512), (1024, 1024, 1024), (2048, 2048, 2048),
    (4096, 4096, 4096), (1, 4096, 4096), (16, 4096, 4096), (128, 4096, 4096),
    (2048, 4096, 4096), (1, 4096, 11008), (16, 4096, 11008), (128, 4096, 11008),
    (2048, 4096, 11008), (2048, 11008, 4096), (1000, 1000, 1000), (777, 1531, 2049),
]


def time_us(fn, inner):
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(15):
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e3 / inner)
    return statistics.median(samples)


def main():
    only = next((a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--only=")), "")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}\n")
    print("| dtype | M×K×N | torch.matmul (µs) | TFLOP/s |\n|---|---|---|---|")
    for name, dtype in (("f32", torch.float32), ("bf16", torch.bfloat16)):
        if only and only != name:
            continue
        for m, k, n in SHAPES:
            a = torch.randn(m, k, device="cuda", dtype=dtype)
            b = torch.randn(k, n, device="cuda", dtype=dtype)
            out = torch.empty(m, n, device="cuda", dtype=dtype)
            fn = lambda: torch.matmul(a, b, out=out)  # noqa: E731
            for _ in range(10):
                fn()
            torch.cuda.synchronize()
            one = time_us(fn, 1)
            inner = max(1, min(1000, int(50 / max(one, 1e-3))))
            us = time_us(fn, inner)
            print(f"| {name} | {m}×{k}×{n} | {us:.1f} | {2 * m * k * n / (us * 1e6):.1f} |")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
