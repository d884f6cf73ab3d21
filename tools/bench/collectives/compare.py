"""Puts bench_collectives' rows (Google Benchmark JSON) beside
bench_collectives_torch.py's (its JSON) as the markdown table of
docs/performance.md, and checks the targets of issue 21: bus bandwidth
>= 0.95x PyTorch's at >= 64 MiB, latency at 8 KiB within 10 %.

    python3 compare.py ours.json torch.json [GPU name]

Prints the table and one line per target (met / missed); exits 0 either way
(the numbers are the result).
"""

import json
import sys


def ours_rows(path):
    rows = {}
    for b in json.load(open(path))["benchmarks"]:
        op, size = b["name"].split("/")[:2]
        rows[op, int(size)] = {"time_us": b["real_time"], "busbw_GBps": b["busbw_GBps"]}
    return rows


def main():
    ours = ours_rows(sys.argv[1])
    theirs_doc = json.load(open(sys.argv[2]))
    theirs = {(r["name"].split("/")[0], r["bytes"]): r for r in theirs_doc["rows"]}
    gpu = sys.argv[3] if len(sys.argv) > 3 else "GPU"
    world = theirs_doc["world"]
    print(f"{world} × {gpu}; PyTorch {theirs_doc['torch']} with NCCL {theirs_doc['nccl']}; "
          "NCCL_NVLS_ENABLE=0\n")
    print("| op | size | Switchyard µs | PyTorch µs | Switchyard busbw GB/s | "
          "PyTorch busbw GB/s | busbw ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    verdicts = []
    for key in sorted(ours, key=lambda k: (k[0], k[1])):
        if key not in theirs:
            continue
        op, size = key
        a, b = ours[key], theirs[key]
        ratio = a["busbw_GBps"] / b["busbw_GBps"] if b["busbw_GBps"] else float("nan")
        label = f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
        print(f"| {op} | {label} | {a['time_us']:.1f} | {b['time_us']:.1f} | "
              f"{a['busbw_GBps']:.1f} | {b['busbw_GBps']:.1f} | {ratio:.3f} |")
        if size >= 64 << 20:
            verdicts.append((f"{op} {label}: busbw {ratio:.3f}x PyTorch (target >= 0.95)",
                             ratio >= 0.95))
        if size == 8 << 10:
            lat = a["time_us"] / b["time_us"]
            verdicts.append((f"{op} 8 KiB: latency {lat:.3f}x PyTorch (target <= 1.10)",
                             lat <= 1.10))
    print()
    for text, ok in verdicts:
        print(("met:    " if ok else "MISSED: ") + text)


if __name__ == "__main__":
    main()
