"""Run the GEMM, SDPA, memory-bandwidth, decode and time-slicing benchmarks; write CSV/JSON.

Usage: python3 benchmarks/gpu/run_all.py --out DIR [--prefix h200] [--only gemm,sdpa,membw]

Each benchmark runs in its own Python process (a clean CUDA context each, and a
failure in one does not stop the others). Files written to DIR:
<prefix>-gemm.csv/.json, <prefix>-sdpa.csv/.json, <prefix>-membw.csv/.json,
<prefix>-decode.csv/.json and <prefix>-timeslice.csv/.json.
The prefix defaults to one derived from the GPU name (e.g. ``h200``).
At the end a summary of headline numbers is printed from the CSVs.
Planned wall time on an H200: about 4-5 minutes (each script stops starting
new configurations after --max-seconds, 120 s by default, and is killed
after --timeout, 170 s by default, so the whole run stays under ~8.5 minutes).
"""

from __future__ import annotations

import argparse
import csv
import glob
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = ["gemm", "sdpa", "membw", "decode", "timeslice"]


def summary(out_dir, prefix):
    def rows(name):
        pats = (
            [os.path.join(out_dir, f"{prefix}-{name}.csv")]
            if prefix
            else glob.glob(os.path.join(out_dir, f"*-{name}.csv"))
        )
        for p in pats:
            if os.path.exists(p):
                with open(p) as f:
                    return list(csv.DictReader(f))
        return []

    lines = ["", "=== summary (medians) ==="]
    g = rows("gemm")
    for dt in sorted({r["dtype"] for r in g}):
        best = max((r for r in g if r["dtype"] == dt), key=lambda r: float(r["tflops_median"]))
        lines.append(
            f"gemm  {dt:18s} peak {float(best['tflops_median']):7.1f} TFLOP/s at "
            f"{best['m']}^3 (min {float(best['tflops_min']):.1f}, "
            f"max {float(best['tflops_max']):.1f})"
        )
    s = rows("sdpa")
    for bk in sorted({r["backend"] for r in s}):
        for d in sorted({r["head_dim"] for r in s}, key=int):
            for c in ("false", "true"):
                sel = [
                    r for r in s if r["backend"] == bk and r["head_dim"] == d and r["causal"] == c
                ]
                if sel:
                    best = max(sel, key=lambda r: float(r["tflops_median"]))
                    lines.append(
                        f"sdpa  {bk:9s} d={d:>3s} causal={c:5s} best "
                        f"{float(best['tflops_median']):7.1f} TFLOP/s at seqlen "
                        f"{best['seqlen']}"
                    )
    m = rows("membw")
    for k in sorted({r["kernel"] for r in m}):
        best = max((r for r in m if r["kernel"] == k), key=lambda r: float(r["gbps_median"]))
        big = max((r for r in m if r["kernel"] == k), key=lambda r: int(r["buffer_bytes"]))
        lines.append(
            f"membw {k:11s} best {float(best['gbps_median']):8.1f} GB/s "
            f"(buffer {int(best['buffer_bytes']) >> 20} MiB); largest buffer "
            f"{int(big['buffer_bytes']) >> 20} MiB: {float(big['gbps_median']):8.1f} GB/s"
        )
    for r in rows("decode"):
        if r["backend"] == "default" and r["seqlen"] == max(
            (x["seqlen"] for x in rows("decode")), key=int
        ):
            lines.append(
                f"decode default {r['layout']:6s} group={r['group']:>2s} seqlen {r['seqlen']}: "
                f"{float(r['gbps_median']):7.1f} GB/s"
            )
    for r in rows("timeslice"):
        lines.append(
            "timeslice " + ", ".join(f"{k}={v}" for k, v in r.items() if v not in ("", None))
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--prefix", default=None)
    ap.add_argument("--only", default=",".join(BENCHES))
    ap.add_argument(
        "--max-seconds",
        type=float,
        default=120.0,
        help="per benchmark: stop starting new configurations after this",
    )
    ap.add_argument(
        "--timeout",
        type=float,
        default=170.0,
        help="per benchmark process: kill after this many seconds",
    )
    args, extra = ap.parse_known_args(argv)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    status = {}
    for name in args.only.split(","):
        cmd = [
            sys.executable,
            os.path.join(HERE, f"{name}.py"),
            "--out",
            args.out,
            "--max-seconds",
            str(args.max_seconds),
        ] + extra
        if args.prefix:
            cmd += ["--prefix", args.prefix]
        print(f"\n### {name}: {' '.join(cmd)}", flush=True)
        t1 = time.time()
        try:
            rc = subprocess.run(cmd, timeout=args.timeout).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        status[name] = rc
        print(f"### {name}: rc={rc} in {time.time() - t1:.1f} s", flush=True)
    print(summary(args.out, args.prefix))
    print(f"\nstatus: {status}; total {time.time() - t0:.1f} s", flush=True)
    return 0 if all(v == 0 for v in status.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
