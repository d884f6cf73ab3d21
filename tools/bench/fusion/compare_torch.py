"""bench_fusion's cuda rows beside PyTorch's (bench_fusion_torch.py), one table.

    python3 tools/bench/fusion/compare_torch.py bench_fusion.json torch.json

Columns: our eager and fused times (ms), PyTorch eager and torch.compile,
fused ÷ torch.compile (issue 16's bar: ≤ 1.05), for the row-length sweep both
fractions of copy bandwidth (the bar: ≥ 0.9), torch.compile's compile time,
and whether the row meets its bar. Needs only the standard library.
"""
import json
import sys


def ours(path):
    """{row name: {"eager": ms, "fused": ms, "frac_copy": x}} from Google Benchmark JSON."""
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    rows = {}
    with open(path) as f:
        data = json.load(f)
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        parts = b["name"].split("/")
        if "manual_time" in parts:
            parts.remove("manual_time")
        if parts[-2:-1] == ["compile"]:
            rows.setdefault("/".join(parts), {})["ms"] = b["real_time"] * scale[b.get("time_unit", "ns")]
            continue
        if parts[-1] not in ("eager", "fused"):
            continue
        row = rows.setdefault("/".join(parts[:-1]), {})
        row[parts[-1]] = b["real_time"] * scale[b.get("time_unit", "ns")]
        if "frac_copy" in b:
            row["frac_copy"] = b["frac_copy"]
    return rows


def main():
    mine = ours(sys.argv[1])
    with open(sys.argv[2]) as f:
        torch = {r["name"]: r for r in json.load(f)["rows"]}

    def fmt(v, spec=".3f"):
        return "" if v is None else format(v, spec)

    print("| row | eager | fused | torch eager | torch.compile | fused / compile | "
          "frac_copy ours | frac_copy compile | compile s (torch) | bar |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for name in sorted((set(mine) | set(torch)) - {n for n in mine if "/compile/" in n}):
        m, t = mine.get(name, {}), torch.get(name, {})
        fused, comp = m.get("fused"), t.get("compiled_ms")
        ratio = fused / comp if fused and comp else None
        # Issue 16's bars: the sweep ≥ 0.9 of copy, the rest ≤ 1.05 × torch.compile.
        frac = m.get("frac_copy")
        if "/rowlen/" in name:
            bar = "" if frac is None else ("met" if frac >= 0.9 else "MISSED (< 0.9 of copy)")
        else:
            bar = "" if ratio is None else ("met" if ratio <= 1.05 else "MISSED (> 1.05x)")
        print(f"| {name} | {fmt(m.get('eager'))} | {fmt(fused)} | {fmt(t.get('eager_ms'))} | "
              f"{fmt(comp)} | {fmt(ratio, '.2f')} | {fmt(frac, '.2f')} | "
              f"{fmt(t.get('compiled_frac_copy'), '.2f')} | {fmt(t.get('compile_s'), '.1f')} | "
              f"{bar} |")
    for name in sorted(mine):
        if "/compile/" in name:
            print(f"{name}: {mine[name]['ms']:.3f} ms")


if __name__ == "__main__":
    main()
