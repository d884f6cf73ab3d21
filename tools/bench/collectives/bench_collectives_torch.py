"""torch.distributed with NCCL, timed as bench_collectives times Switchyard:
all_reduce (sum, in place) and all_gather (all_gather_into_tensor) of f32,
1 KiB … 1 GiB of result by factors of two; per row a barrier, 5 warm-up
calls, then `iters` calls back to back and one synchronize (host clock /
iters), the same iteration counts. Run as one rank of a job (launch.sh sets
RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT).

    python3 bench_collectives_torch.py [--max_bytes=N] [--out=rows.json]

Rank 0 prints one line per row and writes the rows as JSON.
"""

import argparse
import json
import os
import time

import torch
import torch.distributed as dist


def iterations(nbytes):
    if nbytes <= 1 << 20:
        return 200
    if nbytes <= 1 << 26:
        return 50
    return 10


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max_bytes", type=int, default=1 << 30)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    local = int(os.environ.get("LOCAL_RANK", os.environ["RANK"]))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=device)
    rank, world = dist.get_rank(), dist.get_world_size()
    rows = []
    for op in ("all_reduce", "all_gather"):
        nbytes = 1024
        while nbytes <= args.max_bytes:
            out_elements = nbytes // 4
            if op == "all_gather" and out_elements % world:
                nbytes *= 2
                continue
            if op == "all_reduce":
                x = torch.ones(out_elements, device=device)
                once = lambda: dist.all_reduce(x)  # noqa: E731
            else:
                x = torch.ones(out_elements // world, device=device)
                y = torch.empty(out_elements, device=device)
                once = lambda: dist.all_gather_into_tensor(y, x)  # noqa: E731
            iters = iterations(nbytes)
            dist.barrier()
            for _ in range(5):
                once()
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(iters):
                once()
            torch.cuda.synchronize()
            seconds = (time.perf_counter() - t0) / iters
            factor = (world - 1) / world * (2 if op == "all_reduce" else 1)
            row = {"name": f"{op}/{nbytes}", "bytes": nbytes, "time_us": seconds * 1e6,
                   "algbw_GBps": nbytes / seconds / 1e9,
                   "busbw_GBps": nbytes * factor / seconds / 1e9}
            rows.append(row)
            if rank == 0:
                print(f"{row['name']:<24} {row['time_us']:12.2f} us  algbw "
                      f"{row['algbw_GBps']:8.2f} GB/s  busbw {row['busbw_GBps']:8.2f} GB/s",
                      flush=True)
            del x
            nbytes *= 2
    if rank == 0:
        nccl = ".".join(map(str, torch.cuda.nccl.version()))
        print(f"torch {torch.__version__}, NCCL {nccl}, {world} ranks")
        if args.out:
            with open(args.out, "w") as f:
                json.dump({"torch": torch.__version__, "nccl": nccl, "world": world,
                           "rows": rows}, f, indent=1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
