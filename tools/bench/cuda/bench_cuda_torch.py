"""PyTorch's numbers for the rows of bench_cuda, on the same GPU.

Same shapes, dtypes and method: CUDA events around groups of calls, the
median of 20 groups after warm-up, outputs preallocated where PyTorch takes
out= (add, matmul). f32 matmuls and convolutions run in full FP32 on both
sides: allow_tf32 = False here (matmul and cuDNN), and the cuda plugin
never uses TF32. Convolutions: F.conv2d with cudnn.benchmark=True (a
measured pick per shape, as the plugin's), NCHW and channels_last.
Attention: F.scaled_dot_product_attention with PyTorch's own choice of
backend (and, for reference, forced to flash and to cuDNN).

    python3 tools/bench/cuda/bench_cuda_torch.py [--only=conv2d,attention,block]
"""
import statistics
import sys
import time

import torch
import torch.nn.functional as F

REPEATS = next((int(a[len("--repeats="):]) for a in sys.argv if a.startswith("--repeats=")), 20)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
torch.backends.cudnn.benchmark = True
dev = torch.device("cuda:0")


def time_ms(fn, inner):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    ms = []
    for _ in range(REPEATS):
        start.record()
        for _ in range(inner):
            fn()
        end.record()
        end.synchronize()
        ms.append(start.elapsed_time(end) / inner)
    return statistics.median(ms)


def host_us(fn, calls):
    for _ in range(100):
        fn()
    torch.cuda.synchronize()
    us = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        us.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(us)


def host_enqueue_us(fn, calls):
    """Host microseconds to enqueue one call (no sync in the timed loop)."""
    for _ in range(20):
        fn()
    us = []
    for _ in range(REPEATS):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        us.append((time.perf_counter() - t0) / calls * 1e6)
    torch.cuda.synchronize()
    return statistics.median(us)


# ResNet-50's convolutions at batch 32 (as bench_cuda's kResnetConvs).
RESNET_CONVS = [
    ("conv1 3->64 7x7 s2, 224^2", 3, 224, 64, 7, 2, 3),
    ("64->64 3x3, 56^2", 64, 56, 64, 3, 1, 1),
    ("1x1 256->64, 56^2", 256, 56, 64, 1, 1, 0),
    ("128->128 3x3, 28^2", 128, 28, 128, 3, 1, 1),
    ("256->256 3x3, 14^2", 256, 14, 256, 3, 1, 1),
    ("512->512 3x3, 7^2", 512, 7, 512, 3, 1, 1),
]


def conv_rows():
    for layout in ("NCHW", "NHWC"):
        fmt = torch.channels_last if layout == "NHWC" else torch.contiguous_format
        for dtype, name in ((torch.float32, "f32"), (torch.float16, "f16"), (torch.bfloat16, "bf16")):
            for label, c, h, k, kernel, stride, padding in RESNET_CONVS:
                n = 32
                oh = (h + 2 * padding - kernel) // stride + 1
                x = (torch.rand(n, c, h, h, device=dev) * 4 - 2).to(dtype).to(memory_format=fmt)
                w = (torch.rand(k, c, kernel, kernel, device=dev) * 0.2 - 0.1).to(dtype).to(memory_format=fmt)
                ms = time_ms(lambda: F.conv2d(x, w, None, stride, padding), 10)
                flops = 2.0 * n * k * oh * oh * c * kernel * kernel
                print(f"| F.conv2d {layout} | N=32 {label} | {name} | {ms:.3f} ms | {flops / (ms * 1e-3) / 1e12:.1f} TFLOP/s | |")
                del x, w
    for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        x = (torch.rand(1, 64, 8, 8, device=dev) * 4 - 2).to(dtype)
        w = (torch.rand(64, 64, 3, 3, device=dev) * 0.2 - 0.1).to(dtype)
        fn = lambda: F.conv2d(x, w, None, 1, 1)
        us = host_us(fn, 200)
        print(f"| F.conv2d (per call incl. sync, host clock) | N=1 64->64 3x3, 8^2 | {name} | {us:.1f} us | | |")
        print(f"| F.conv2d (host time to enqueue one call) | N=1 64->64 3x3, 8^2 | {name} | {host_enqueue_us(fn, 100):.1f} us | | |")


ATTENTION_SHAPES = [(16, 16, 512, 64), (4, 16, 2048, 64), (8, 32, 1024, 128),
                    (2, 32, 4096, 128), (1, 32, 8192, 128)]


def attention_rows():
    from torch.nn.attention import SDPBackend, sdpa_kernel
    forced = (("default", None), ("flash", SDPBackend.FLASH_ATTENTION),
              ("cudnn", SDPBackend.CUDNN_ATTENTION))
    for dtype, name in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
        for b, h, l, e in ATTENTION_SHAPES:
            q, k, v = ((torch.rand(b, h, l, e, device=dev) * 2 - 1).to(dtype) for _ in range(3))
            for causal in (False, True):
                flops = 4.0 * b * h * l * l * e / (2 if causal else 1)
                for label, backend in forced:
                    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    try:
                        if backend is None:
                            ms = time_ms(fn, 3 if l >= 4096 else 10)
                        else:
                            with sdpa_kernel(backend):
                                ms = time_ms(fn, 3 if l >= 4096 else 10)
                    except RuntimeError as e:
                        print(f"| F.sdpa {label} | B={b} H={h} L={l} E={e}{' causal' if causal else ''} | {name} | n/a | {str(e)[:80]} | |")
                        continue
                    print(f"| F.sdpa {label} | B={b} H={h} L={l} E={e}{' causal' if causal else ''} | {name} | {ms:.3f} ms | {flops / (ms * 1e-3) / 1e12:.1f} TFLOP/s | |")
            del q, k, v


def main():
    p = torch.cuda.get_device_properties(0)
    print(f"device: {p.name}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"cuDNN {torch.backends.cudnn.version()}")
    print("| op (torch) | shape | dtype | median | rate | vs D2D copy |")
    print("|---|---|---|---|---|---|")
    only = [a[len("--only="):] for a in sys.argv if a.startswith("--only=")]
    if only:
        parts = only[0].split(",")
        if "attention" in parts:
            attention_rows()
        if "conv2d" in parts:
            conv_rows()
        if "block" in parts:
            import os
            sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
            import bench_block_torch
            bench_block_torch.main()
        return
    x = torch.rand(16, device=dev) * 4 - 2
    y = torch.rand(16, device=dev) * 4 - 2
    o = torch.empty(16, device=dev)
    add = lambda: torch.add(x, y, out=o)
    print(f"| torch.add(out=) (tiny, per call, host clock) | [16] | f32 | {host_us(add, 2000):.2f} us | | |")
    print(f"| torch.add(out=) (tiny, per call, device events) | [16] | f32 | {time_ms(add, 1000) * 1000:.2f} us | | |")

    R = C = 8192
    a = torch.rand(R, C, device=dev)
    c = torch.empty_like(a)
    ms = time_ms(lambda: c.copy_(a), 10)
    copy_gbs = 2 * a.numel() * 4 / (ms * 1e-3) / 1e9
    print(f"| copy_ (D2D) | 8192x8192 | f32 | {ms:.3f} ms | {copy_gbs:.0f} GB/s | 1.00 |")
    del a, c

    for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        size = 4 if dtype == torch.float32 else 2
        x = (torch.rand(R, C, device=dev) * 4 - 2).to(dtype)
        y = (torch.rand(R, C, device=dev) * 4 - 2).to(dtype)
        w = (torch.rand(C, device=dev) + 0.5).to(dtype)
        b = (torch.rand(C, device=dev) * 4 - 2).to(dtype)
        out = torch.empty_like(x)
        rows = [
            ("torch.add(out=)", lambda: torch.add(x, y, out=out), 3),
            ("F.gelu", lambda: F.gelu(x), 2),
            ("torch.softmax", lambda: torch.softmax(x, -1), 2),
            ("F.rms_norm", lambda: F.rms_norm(x, (C,), w, 1e-6), 2),
            ("F.layer_norm", lambda: F.layer_norm(x, (C,), w, b, 1e-5), 2),
        ]
        for label, fn, passes in rows:
            ms = time_ms(fn, 10)
            gbs = passes * R * C * size / (ms * 1e-3) / 1e9
            print(f"| {label} | 8192x8192 | {name} | {ms:.3f} ms | {gbs:.0f} GB/s | {gbs / copy_gbs:.2f} |")
        del x, y, w, b, out

    for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        for n in (4096, 8192):
            a = (torch.rand(n, n, device=dev) * 4 - 2).to(dtype)
            b = (torch.rand(n, n, device=dev) * 4 - 2).to(dtype)
            out = torch.empty_like(a)
            inner = 2 if (dtype == torch.float32 and n == 8192) else 5
            ms = time_ms(lambda: torch.matmul(a, b, out=out), inner)
            print(f"| torch.matmul(out=) | {n}x{n}x{n} | {name} | {ms:.3f} ms | {2 * n**3 / (ms * 1e-3) / 1e12:.1f} TFLOP/s | |")
            del a, b, out
    conv_rows()
    attention_rows()


if __name__ == "__main__":
    main()
