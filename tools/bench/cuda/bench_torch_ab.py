"""Switchyard beside PyTorch on the same GPU, in one process, on the same
tensors, timed in alternation (docs/performance.md, issue 17):
scaled_dot_product_attention against F.scaled_dot_product_attention,
conv2d on ResNet-50's shapes against F.conv2d, (--only=conv2d_relu)
conv2d (+ bias) → relu captured in a graph, where the pattern pass may
replace it by cuda::conv2d_relu, against F.relu(F.conv2d(...)), and
(--only=cast) a mixed-precision network's casts of ResNet-50's
activations, NCHW and channels-last, against Tensor.to(dtype).

bench_cuda and bench_cuda_torch.py time the two libraries one after the
other, minutes apart, so a shift in clocks or in the GPU's temperature
between the runs reads as a difference between the libraries. Here each
round times a burst of PyTorch's calls and a burst of ours back to back
(the order alternating between rounds), and the ratio is taken per round;
the tables give the median of those ratios and each side's median time.

Switchyard gets PyTorch's tensors through DLPack (no copy) and runs its
default route (the dispatcher's choice, as a user gets it); PyTorch runs
its own default (attention: its backend choice; conv2d: cudnn.benchmark
on, TF32 off, as the cuda plugin never uses TF32). Both allocate their
output per call. Host time to enqueue one call is timed the same way for
both, from Python.

    PYTHONPATH=build/release/python python3 tools/bench/cuda/bench_torch_ab.py \
        [--rounds=15] [--only=attention,conv2d,conv2d_relu,cast] [--match='f16 NCHW conv1']
"""

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

import switchyard as sy
# The same shapes and enqueue timer as bench_cuda_torch.py's rows.
from bench_cuda_torch import ATTENTION_SHAPES, RESNET_CONVS, host_enqueue_us

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True


def burst_ms(fn, calls):
    """Host time of `calls` calls and a device-wide synchronize, per call."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e3


class Table:
    """Rows of one op; `below` counts rows under their target ratio."""

    def __init__(self, title, rounds, extra=None):
        self.rounds, self.rows, self.below = rounds, 0, 0
        print(f"\n{title}")
        print("| dtype | case | torch ms | switchyard ms | torch/ours (median of rounds) "
              "| min, max of rounds | TFLOP/s ours |" + (f" {extra} |" if extra else ""))
        print("|---|---|---:|---:|---:|---|---:|" + ("---|" if extra else ""))

    def row(self, dtype, case, torch_fn, sy_fn, calls, flops, target, extra=None):
        for _ in range(3):  # warm both: plans, searches, clocks
            burst_ms(torch_fn, calls)
            burst_ms(sy_fn, calls)
        t_ms, s_ms, ratios = [], [], []
        for r in range(self.rounds):
            pair = [(torch_fn, t_ms), (sy_fn, s_ms)]
            for fn, into in (pair if r % 2 == 0 else pair[::-1]):
                into.append(burst_ms(fn, calls))
            ratios.append(t_ms[-1] / s_ms[-1])
        ratio = statistics.median(ratios)
        ours = statistics.median(s_ms)
        self.rows += 1
        self.below += ratio < target
        print(f"| {dtype} | {case} | {statistics.median(t_ms):.3f} | {ours:.3f} | {ratio:.3f} "
              f"| {min(ratios):.2f}, {max(ratios):.2f} | {flops / (ours * 1e-3) / 1e12:.1f} |"
              + (f" {extra} |" if extra else ""))

    def close(self):
        print(f"rows below their target: {self.below} of {self.rows}")


def check(what, got, want, tol):
    err = (got.float() - want.float()).abs().max().item()
    scale = want.float().abs().max().item() + 1e-6
    if err > tol * scale:
        raise SystemExit(f"{what}: max |ours - torch| = {err} (scale {scale})")


def error_vs_f64(got, want):
    """max |got - want| / max |want|, want in float64."""
    return ((got.double() - want).abs().max() / want.abs().max()).item()


def attention(ctx, rounds):
    table = Table("scaled_dot_product_attention (target >= 0.95 of PyTorch)", rounds)
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
        for b, h, l, e in ATTENTION_SHAPES:
            q, k, v = ((torch.rand(b, h, l, e, device="cuda") * 2 - 1).to(dtype) for _ in range(3))
            sq, sk, sv = (sy.from_dlpack(t, context=ctx) for t in (q, k, v))
            for causal in (False, True):
                torch_fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
                sy_fn = lambda: ctx.ops.scaled_dot_product_attention(  # noqa: E731
                    sq, sk, sv, is_causal=causal)
                case = f"{b}·{h}·{l}·{e}{' causal' if causal else ''}"
                check(f"attention {name} {case}", torch.from_dlpack(sy_fn()), torch_fn(), 2e-2)
                flops = 4.0 * b * h * l * l * e / (2 if causal else 1)
                table.row(name, case, torch_fn, sy_fn, 3 if l >= 4096 else 10, flops, 0.95)
            del q, k, v, sq, sk, sv
    table.close()


class ResnetConv:
    """One of ResNet-50's convolutions at N = 32 in one dtype and layout,
    on PyTorch tensors (x in [-2, 2], w in [-0.1, 0.1])."""

    def __init__(self, name, layout, dtype, label, c, hw, k, kernel, stride, padding):
        fmt = torch.channels_last if layout == "NHWC" else torch.contiguous_format
        self.name, self.layout, self.dtype, self.label = name, layout, dtype, label
        self.stride, self.padding = stride, padding
        self.x = (torch.rand(32, c, hw, hw, device="cuda") * 4 - 2).to(dtype).to(
            memory_format=fmt)
        self.w = (torch.rand(k, c, kernel, kernel, device="cuda") * 0.2 - 0.1).to(dtype).to(
            memory_format=fmt)
        oh = (hw + 2 * padding - kernel) // stride + 1
        self.flops = 2.0 * 32 * k * oh * oh * c * kernel * kernel
        self.case = f"{layout} {label}"
        self.target = 0.95 if dtype == torch.float32 else 0.9
        self.tolerance = 1e-4 if dtype == torch.float32 else 2e-2


def resnet_convs(match):
    """ResnetConv of every row (both layouts, f32, f16, bf16) whose
    'dtype layout case' contains `match`, one at a time."""
    for layout in ("NCHW", "NHWC"):
        for dtype, name in ((torch.float32, "f32"), (torch.float16, "f16"),
                            (torch.bfloat16, "bf16")):
            for row in RESNET_CONVS:
                if match in f"{name} {layout} {row[0]}":
                    yield ResnetConv(name, layout, dtype, *row)


def conv2d(ctx, rounds, match):
    # The last column: each side's error against the same convolution in
    # float64, which shows a 16-bit reduction where one ran (the cuda
    # plugin's conv2d_reduced_precision option; docs/cuda.md).
    table = Table("conv2d, N = 32 (target >= 0.9 of PyTorch for f16/bf16, 0.95 for f32)",
                  rounds, extra="error vs f64: torch, ours")
    for p in resnet_convs(match):
        sx, sw = sy.from_dlpack(p.x, context=ctx), sy.from_dlpack(p.w, context=ctx)
        torch_fn = lambda: F.conv2d(p.x, p.w, None, p.stride, p.padding)  # noqa: E731
        sy_fn = lambda: ctx.ops.conv2d(  # noqa: E731
            sx, sw, None, [p.stride, p.stride], [p.padding, p.padding])
        ours = torch.from_dlpack(sy_fn())
        check(f"conv2d {p.name} {p.case}", ours, torch_fn(), p.tolerance)
        want = F.conv2d(p.x.double(), p.w.double(), None, p.stride, p.padding)
        errors = f"{error_vs_f64(torch_fn(), want):.1e}, {error_vs_f64(ours, want):.1e}"
        del want, ours
        table.row(p.name, p.case, torch_fn, sy_fn, 10, p.flops, p.target, extra=errors)
        del p, sx, sw
    table.close()
    print("\nhost time to enqueue one small call (N=1 64->64 3x3, 8^2; target <= 10 µs)")
    print("| dtype | layout | torch µs | switchyard µs |")
    print("|---|---|---:|---:|")
    for layout in ("NCHW", "NHWC"):
        fmt = torch.channels_last if layout == "NHWC" else torch.contiguous_format
        for dtype, name in ((torch.float32, "f32"), (torch.float16, "f16"),
                            (torch.bfloat16, "bf16")):
            x = (torch.rand(1, 64, 8, 8, device="cuda") * 4 - 2).to(dtype).to(memory_format=fmt)
            w = (torch.rand(64, 64, 3, 3, device="cuda") * 0.2 - 0.1).to(dtype).to(
                memory_format=fmt)
            sx, sw = sy.from_dlpack(x, context=ctx), sy.from_dlpack(w, context=ctx)
            torch_fn = lambda: F.conv2d(x, w, None, 1, 1)  # noqa: E731
            sy_fn = lambda: ctx.ops.conv2d(sx, sw, None, [1, 1], [1, 1])  # noqa: E731
            for _ in range(20):
                torch_fn()
                sy_fn()
            print(f"| {name} | {layout} | {host_enqueue_us(torch_fn, 100):.1f} "
                  f"| {host_enqueue_us(sy_fn, 100):.1f} |")


def conv2d_relu(ctx, rounds, match):
    # The graph is compiled with the default patterns policy (measured):
    # the pass times cuda::conv2d_relu against the two ops and keeps the
    # faster. The extra column says which it kept, and the eager
    # conv2d + relu time (the two ops from Python, median of 5 bursts).
    table = Table("conv2d (+ bias) -> relu captured, N = 32, against F.relu(F.conv2d) "
                  "(target >= 0.9 for f16/bf16, 0.95 for f32)", rounds,
                  extra="pattern; eager conv2d + relu ms")
    for p in resnet_convs(match):
        b = (torch.rand(p.w.shape[0], device="cuda") - 0.5).to(p.dtype)
        sx, sw, sb = (sy.from_dlpack(t, context=ctx) for t in (p.x, p.w, b))
        conv = [p.stride, p.stride], [p.padding, p.padding]
        with sy.graph(ctx) as g:
            g.output(ctx.ops.relu(ctx.ops.conv2d(g.input(sx), sw, sb, *conv)))
        notes = [line for line in g.explain().splitlines() if "pattern conv2d" in line]
        kept = ("replaced" if notes and "not replaced" not in notes[0]
                else "two ops" if notes else "no match")
        torch_fn = lambda: F.relu(F.conv2d(p.x, p.w, b, p.stride, p.padding))  # noqa: E731
        sy_fn = lambda: g(sx)  # noqa: E731
        eager = lambda: ctx.ops.relu(ctx.ops.conv2d(sx, sw, sb, *conv))  # noqa: E731
        got = sy_fn()
        got = got[0] if isinstance(got, (list, tuple)) else got
        check(f"conv2d_relu {p.name} {p.case}", torch.from_dlpack(got), torch_fn(), p.tolerance)
        eager_ms = statistics.median(burst_ms(eager, 10) for _ in range(5))
        table.row(p.name, p.case, torch_fn, sy_fn, 10, p.flops, p.target,
                  extra=f"{kept}; {eager_ms:.3f}")
        del p, b, sx, sw, sb, g, got
    table.close()


# ResNet-50's activations at N = 32: the stem's output and each stage's.
CAST_SHAPES = ((32, 64, 112, 112), (32, 256, 56, 56), (32, 512, 28, 28), (32, 2048, 7, 7))


def cast(ctx, rounds):
    # Both sides keep the input's memory format (Note [Elementwise output
    # layout]; PyTorch's to() preserves it); the extra column gives our
    # result's layout, the figure is bytes moved (read + write) per second.
    table = Table("cast of ResNet-50 activations, N = 32, against Tensor.to(dtype) "
                  "(target >= 0.9; the TFLOP/s column is TB/s moved)", rounds,
                  extra="our layout")
    for src, dst, name in ((torch.float32, torch.float16, "f32 -> f16"),
                           (torch.bfloat16, torch.float32, "bf16 -> f32")):
        target = {torch.float16: sy.float16, torch.float32: sy.float32}[dst]
        for shape in CAST_SHAPES:
            for fmt, layout in ((torch.contiguous_format, "NCHW"),
                                (torch.channels_last, "NHWC")):
                x = (torch.rand(shape, device="cuda") * 2 - 1).to(src).contiguous(
                    memory_format=fmt)
                sx = sy.from_dlpack(x, context=ctx)
                torch_fn = lambda: x.to(dst)  # noqa: E731
                sy_fn = lambda: ctx.ops.cast(sx, target)  # noqa: E731
                got = torch.from_dlpack(sy_fn())
                check(f"cast {name} {shape} {layout}", got, torch_fn(), 0)
                kept = ("NHWC" if got.is_contiguous(memory_format=torch.channels_last)
                        and not got.is_contiguous() else "NCHW")
                moved = x.numel() * (x.element_size() + got.element_size())
                table.row(name, f"{layout} {'x'.join(map(str, shape))}", torch_fn, sy_fn, 10,
                          moved, 0.9, extra=kept)
                del x, sx, got
    table.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", default="attention,conv2d")
    parser.add_argument("--match", default="",
                        help="conv2d: only the rows whose 'dtype layout case' contains this")
    args = parser.parse_args()
    p = torch.cuda.get_device_properties(0)
    print(f"device: {p.name}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"switchyard {sy.__version__}")
    ctx = sy.Context()
    parts = args.only.split(",")
    if "attention" in parts:
        attention(ctx, args.rounds)
    if "conv2d" in parts:
        conv2d(ctx, args.rounds, args.match)
    if "conv2d_relu" in parts:
        conv2d_relu(ctx, args.rounds, args.match)
    if "cast" in parts:
        cast(ctx, args.rounds)


if __name__ == "__main__":
    main()
