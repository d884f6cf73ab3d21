"""PyTorch eager's time for bench_block's transformer block, on the same GPU.

The same bf16 ops in the same order (see bench_block.cc): rms_norm, one
QKV linear viewed into heads, causal scaled_dot_product_attention, the
output linear and residual, rms_norm, linear + tanh gelu, linear and
residual; batch 8 x 512 x 1024, 16 heads, MLP 4096, no biases. First call
and steady state (median of 20 timings of 5 blocks, CUDA events, after
300 ms of warm-up).

    python3 tools/bench/cuda/bench_block_torch.py
"""
import statistics
import time

import torch
import torch.nn.functional as F

B, L, D, H, E, HIDDEN = 8, 512, 1024, 16, 64, 4096
dev = torch.device("cuda:0")
dt = torch.bfloat16


def rand(*shape, lo=-1.0, hi=1.0):
    return (torch.rand(*shape, device=dev) * (hi - lo) + lo).to(dt)


s = 1.0 / 32
norm1, norm2 = rand(D, lo=0.5, hi=1.5), rand(D, lo=0.5, hi=1.5)
w_qkv, w_o = rand(3 * D, D, lo=-s, hi=s), rand(D, D, lo=-s, hi=s)
w_up, w_down = rand(HIDDEN, D, lo=-s, hi=s), rand(D, HIDDEN, lo=-s / 2, hi=s / 2)


def block(x):
    h = F.rms_norm(x, (D,), norm1, 1e-6)
    qkv = F.linear(h, w_qkv).view(B, L, 3, H, E).permute(2, 0, 3, 1, 4)
    a = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
    a = a.permute(0, 2, 1, 3).reshape(B, L, D)
    x = x + F.linear(a, w_o)
    h = F.rms_norm(x, (D,), norm2, 1e-6)
    return x + F.linear(F.gelu(F.linear(h, w_up), approximate="tanh"), w_down)


def main():
    p = torch.cuda.get_device_properties(0)
    print(f"device: {p.name}, torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}")
    x = rand(B, L, D)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    y = block(x)
    torch.cuda.synchronize()
    first_ms = (time.perf_counter() - t0) * 1e3
    # Warm up for 300 ms, so that clocks settle before anything is timed.
    t_warm = time.perf_counter()
    while time.perf_counter() - t_warm < 0.3:
        y = block(x)
        torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    ms, host = [], []
    for _ in range(20):
        start.record()
        h0 = time.perf_counter()
        for _ in range(5):
            y = block(x)
        h1 = time.perf_counter()
        end.record()
        end.synchronize()
        ms.append(start.elapsed_time(end) / 5)
        host.append((h1 - h0) / 5 * 1e6)
    med = statistics.median(ms)
    flops = 2.0 * B * L * D * (3 * D + D + 2 * HIDDEN) + 4.0 * B * H * L * L * E / 2
    print(f"| block (PyTorch eager) | B=8 L=512 D=1024 H=16 bf16 | first call {first_ms:.1f} ms | "
          f"steady {med:.3f} ms | {flops / (med * 1e-3) / 1e12:.1f} TFLOP/s | host {statistics.median(host):.0f} us/block |")
    del y


if __name__ == "__main__":
    main()
