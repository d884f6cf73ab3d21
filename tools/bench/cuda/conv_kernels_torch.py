"""Which GPU kernels PyTorch's F.conv2d and Switchyard's conv2d run, side by
side, on ResNet-50's shapes (docs/cuda.md, "Knob variants"): each side's
calls under torch.profiler, the kernels listed with their mean GPU time.
Two sides running the same kernel in the same time differ only in the
host; a different kernel is an engine (or knob setting) the other side's
search did not pick.

PyTorch runs as bench_torch_ab.py sets it (cudnn.benchmark on, TF32 off).

    PYTHONPATH=build/release/python:tools/bench/cuda \\
        python3 tools/bench/cuda/conv_kernels_torch.py [--match='f32 NCHW 512']
"""

import argparse

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

import switchyard as sy
from bench_cuda_torch import RESNET_CONVS

torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True


def kernels(fn, calls):
    """(name, calls, mean µs) of the GPU work of `calls` calls of fn."""
    for _ in range(5):  # plans, searches
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    rows = [(e.key, e.count, e.device_time_total / e.count)
            for e in prof.key_averages() if e.count > 0 and e.device_time_total > 0]
    return sorted(rows, key=lambda r: -r[1] * r[2])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--match", default="",
                        help="only the rows whose 'dtype layout case' contains this")
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    ctx = sy.Context()
    for layout in ("NCHW", "NHWC"):
        fmt = torch.channels_last if layout == "NHWC" else torch.contiguous_format
        for dtype, name in ((torch.float32, "f32"), (torch.float16, "f16"),
                            (torch.bfloat16, "bf16")):
            for label, c, hw, k, kernel, stride, padding in RESNET_CONVS:
                row = f"{name} {layout} {label}"
                if args.match not in row:
                    continue
                x = torch.rand(32, c, hw, hw, device="cuda").to(dtype).to(memory_format=fmt)
                w = torch.rand(k, c, kernel, kernel, device="cuda").to(dtype).to(
                    memory_format=fmt)
                sx, sw = sy.from_dlpack(x, context=ctx), sy.from_dlpack(w, context=ctx)
                sides = {
                    "torch": lambda: F.conv2d(x, w, None, stride, padding),  # noqa: E731
                    "ours": lambda: ctx.ops.conv2d(  # noqa: E731
                        sx, sw, None, [stride, stride], [padding, padding]),
                }
                print(f"== {row}")
                for side, fn in sides.items():
                    for kernel_name, count, mean_us in kernels(fn, args.calls):
                        print(f"  {side:5s} {count:4d} x {mean_us:8.1f} µs  {kernel_name[:200]}")


if __name__ == "__main__":
    main()
