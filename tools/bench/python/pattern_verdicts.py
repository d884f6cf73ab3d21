"""What the fusion pass's measured pattern verdicts say on cpu
(docs/performance.md, the onednn plugin's pattern kernels): linear with a
bias then gelu, matmul then add then gelu, and matmul then add, captured
with sy.graph() at a few GEMM sizes (f32, default plugin set), and the
pass's note for each: the fused op's time against the match as the plan
runs it (Note [Verdicts against the plan]), in µs. The last graph is a
transformer MLP's up-projection feeding its down-projection, where a
matmul_add that left gelu alone would undo the add + gelu fusion.

    PYTHONPATH=build/release/python python3 tools/bench/python/pattern_verdicts.py
"""

import os

import numpy as np

import switchyard as sy

SIZES = ((64, 256, 256), (512, 1024, 1024), (2048, 1024, 4096), (4096, 1024, 4096))


def main():
    ctx = sy.Context()
    rng = np.random.default_rng(0)
    print(f"cpus: {os.cpu_count()}")
    for m, k, n in SIZES:
        x = sy.tensor(rng.standard_normal((m, k)).astype(np.float32), context=ctx)
        w = sy.tensor((rng.standard_normal((n, k)) * 0.05).astype(np.float32), context=ctx)
        wt = sy.tensor((rng.standard_normal((k, n)) * 0.05).astype(np.float32), context=ctx)
        b = sy.tensor(rng.standard_normal((n,)).astype(np.float32), context=ctx)
        graphs = (
            ("linear+bias->gelu(tanh)", lambda gx: ctx.ops.gelu(ctx.ops.linear(gx, w, b), "tanh")),
            ("matmul->add->gelu", lambda gx: ctx.ops.gelu(ctx.ops.matmul(gx, wt) + b)),
            ("matmul->add", lambda gx: ctx.ops.matmul(gx, wt) + b),
            ("matmul->add->gelu->matmul",
             lambda gx: ctx.ops.matmul(ctx.ops.gelu(ctx.ops.matmul(gx, wt) + b), w)),
        )
        for name, body in graphs:
            with sy.graph(ctx) as g:
                g.output(body(g.input(x)))
            for line in g.explain().splitlines():
                if "note: pattern" in line:
                    print(f"{m}x{k}x{n} {name}: {line.strip()[len('note: '):]}")


if __name__ == "__main__":
    main()
