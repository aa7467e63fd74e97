"""Several processes sharing one GPU by time slicing: throughput share, latency, narrow kernels.

Usage: python3 benchmarks/gpu/timeslice.py --out DIR [--prefix h200]
Writes DIR/<prefix>-timeslice.csv and DIR/<prefix>-timeslice.json.

Without MPS or MIG, CUDA contexts of different processes do not run kernels at the same
time: the GPU switches between them (time slicing). This script measures what that means
for tenants, with separate processes standing in for separate tenants. It changes no GPU
setting (no MPS daemon, no MIG, no clocks, no compute mode) and measures the GPU as found.

Tenants are worker processes (``multiprocessing``, spawn), each with its own CUDA context.
Each experiment prepares its tenants (builds inputs, warms up), then starts them together
for ``--duration`` seconds (default 3) of back-to-back requests. A request is launched and
then waited for with ``torch.cuda.synchronize()``; its latency is host wall time around both.

Experiments (column ``experiment``)
-----------------------------------
* ``share``: ``tenants`` = 1..4 processes, each running bf16 8192x8192x8192 GEMMs
  (``torch.mm``) back to back. ``tflops_per_tenant`` is the median over tenants of
  2*8192^3 * requests / seconds, ``tflops_total`` the sum over tenants, ``relative_total``
  the total over the one-tenant total.
* ``latency``: one interactive tenant whose request is one bf16 4096^3 GEMM followed by
  5 ms of idling, next to ``busy_neighbours`` = 0..3 processes running the 8192^3 GEMMs of
  ``share`` back to back. ``latency_ms_*`` are the interactive tenant's request latencies
  (median, 99th percentile, maximum) and ``requests`` how many it completed.
* ``narrow``: a kernel that occupies only ``NARROW_PROGRAMS`` thread blocks (a Triton
  kernel of dependent float32 FMAs, one block per program, so at most 16 of the SMs are
  busy), sized to last about 2 ms alone. ``mode=processes``: ``tenants`` processes each
  launch it back to back. ``mode=streams``: one process launches ``tenants`` copies at a
  time on as many CUDA streams, which the GPU may run side by side. ``tflops_total`` counts
  2 FLOPs per FMA; ``relative_total`` is the total over one tenant alone.

Seconds are wall time from the common start to the end of each tenant's last request.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import statistics
import sys
import time

import _common as C
import torch

DURATION = 3.0
THINK_MS = 5.0
BIG, SMALL = 8192, 4096
NARROW_PROGRAMS = 16
NARROW_BLOCK = 1024
NARROW_TARGET_MS = 2.0
SHARE_TENANTS = [1, 2, 3, 4]
LATENCY_NEIGHBOURS = [0, 1, 2, 3]
NARROW_TENANTS = [1, 2, 4]

METHOD = (
    "Tenants are separate processes (multiprocessing spawn), one CUDA context each, on one "
    "GPU with no MPS and no MIG (time slicing between contexts). Each experiment prepares "
    "and warms its tenants, then starts them together for `duration` s of back-to-back "
    "requests; a request is launched, then torch.cuda.synchronize(); latency = host wall "
    "time of both. share: 1..4 tenants of bf16 8192^3 torch.mm; TFLOP/s = 2*8192^3 * "
    "requests / s per tenant (median over tenants), total = sum. latency: one tenant whose "
    "request is one bf16 4096^3 torch.mm then 5 ms idle, beside 0..3 tenants running the "
    "8192^3 GEMMs; latency percentiles of its requests. narrow: a Triton kernel of dependent "
    f"fp32 FMAs in {NARROW_PROGRAMS} programs of {NARROW_BLOCK} elements (at most "
    f"{NARROW_PROGRAMS} SMs busy), about {NARROW_TARGET_MS} ms alone; processes: n tenants "
    "each launching it; streams: one process launching n at a time on n CUDA streams; "
    "TFLOP/s counts 2 FLOPs per FMA. relative_total = total / the one-tenant total."
)

COLUMNS = [
    "experiment",
    "mode",
    "tenants",
    "busy_neighbours",
    "tflops_per_tenant",
    "tflops_total",
    "relative_total",
    "latency_ms_median",
    "latency_ms_p99",
    "latency_ms_max",
    "requests",
    "seconds",
]


# -- Inside a tenant process ------------------------------------------------------------------


def _narrow_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def spin(x_ptr, iters, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        a = tl.load(x_ptr + offs)
        b = a * 0.5 + 1.0
        for _ in range(iters):
            a = a * 0.999 + 0.001
            b = b * 0.999 + 0.002
        tl.store(x_ptr + offs, a + b)

    return spin


class Tenant:
    def __init__(self):
        self.cache = {}

    def prepare(self, spec):
        kind = spec["kind"]
        if kind == "gemm":
            n = spec["n"]
            if ("gemm", n) not in self.cache:
                g = torch.Generator(device="cuda").manual_seed(n)
                a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
                b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
                c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
                self.cache[("gemm", n)] = (a, b, c)
            a, b, c = self.cache[("gemm", n)]

            def request():
                torch.mm(a, b, out=c)

            flops = 2.0 * n**3
        elif kind == "narrow":
            spin = self.cache.get("spin") or _narrow_kernel()
            self.cache["spin"] = spin
            streams = spec.get("streams", 1)
            key = ("narrow", streams)
            if key not in self.cache:
                xs = [
                    torch.rand(NARROW_PROGRAMS * NARROW_BLOCK, device="cuda")
                    for _ in range(streams)
                ]
                ss = [torch.cuda.Stream() for _ in range(streams)]
                self.cache[key] = (xs, ss)
            xs, ss = self.cache[key]
            iters = spec["iters"]

            def request():
                for x, s in zip(xs, ss):
                    with torch.cuda.stream(s):
                        spin[(NARROW_PROGRAMS,)](x, iters, BLOCK=NARROW_BLOCK, num_warps=8)

            flops = 2.0 * 2 * iters * NARROW_PROGRAMS * NARROW_BLOCK * streams
        else:
            raise ValueError(kind)
        t0 = time.time()
        while time.time() - t0 < spec.get("warm_s", 0.3):
            request()
            torch.cuda.synchronize()
        self.request, self.flops, self.think = request, flops, spec.get("think_ms", 0.0)
        return {"ready": True}

    def calibrate_narrow(self, target_ms):
        """Iterations for which one narrow launch lasts about ``target_ms`` alone."""
        spin = _narrow_kernel()
        self.cache["spin"] = spin
        x = torch.rand(NARROW_PROGRAMS * NARROW_BLOCK, device="cuda")
        iters = 4096
        for _ in range(6):
            spin[(NARROW_PROGRAMS,)](x, iters, BLOCK=NARROW_BLOCK, num_warps=8)
            torch.cuda.synchronize()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            spin[(NARROW_PROGRAMS,)](x, iters, BLOCK=NARROW_BLOCK, num_warps=8)
            e.record()
            torch.cuda.synchronize()
            ms = s.elapsed_time(e)
            if abs(ms - target_ms) < 0.1 * target_ms:
                break
            iters = max(1, int(iters * target_ms / max(ms, 1e-3)))
        return {"iters": iters, "ms": ms}

    def run(self, start_at, duration):
        while time.time() < start_at:
            time.sleep(0.0005)
        lat = []
        end_at = start_at + duration
        t_end = time.time()
        while time.time() < end_at:
            t0 = time.perf_counter()
            self.request()
            torch.cuda.synchronize()
            lat.append((time.perf_counter() - t0) * 1e3)
            t_end = time.time()
            if self.think:
                time.sleep(self.think / 1e3)
        return {
            "requests": len(lat),
            "flops": self.flops,
            "seconds": t_end - start_at,
            "latency_ms": lat,
        }


def tenant_main(conn):
    torch.cuda.init()
    tenant = Tenant()
    while True:
        msg = conn.recv()
        if msg is None:
            break
        verb, payload = msg
        try:
            if verb == "prepare":
                conn.send(tenant.prepare(payload))
            elif verb == "calibrate":
                conn.send(tenant.calibrate_narrow(payload))
            elif verb == "run":
                conn.send(tenant.run(*payload))
        except Exception as e:
            conn.send({"error": f"{type(e).__name__}: {e}"[:400]})


# -- In the parent ------------------------------------------------------------------------------


class Pool:
    def __init__(self, n):
        ctx = mp.get_context("spawn")
        self.conns, self.procs = [], []
        for _ in range(n):
            parent, child = ctx.Pipe()
            p = ctx.Process(target=tenant_main, args=(child,), daemon=True)
            p.start()
            self.conns.append(parent)
            self.procs.append(p)

    def ask(self, idxs, verb, payloads):
        for i, pl in zip(idxs, payloads):
            self.conns[i].send((verb, pl))
        out = [self.conns[i].recv() for i in idxs]
        for o in out:
            if isinstance(o, dict) and "error" in o:
                raise RuntimeError(o["error"])
        return out

    def close(self):
        for c in self.conns:
            try:
                c.send(None)
            except Exception:
                pass
        for p in self.procs:
            p.join(timeout=10)
            if p.is_alive():
                p.terminate()


def percentile(values, q):
    s = sorted(values)
    if not s:
        return None
    k = min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))
    return s[k]


def run_experiment(pool, specs, duration, sampler, label, md):
    """Prepare tenant i with specs[i], start all together; per-tenant results."""
    idxs = list(range(len(specs)))
    pool.ask(idxs, "prepare", specs)
    start_at = time.time() + 0.2
    results = pool.ask(idxs, "run", [(start_at, duration)] * len(specs))
    rec = {"config": label, **sampler.stats(start_at, start_at + duration)}
    rec["tenants"] = [
        {k: v for k, v in r.items() if k != "latency_ms"} | {"spec": s}
        for r, s in zip(results, specs)
    ]
    md["per_config"].append(rec)
    return results


def rate(r):
    return r["flops"] * r["requests"] / r["seconds"] / 1e12


BUSY = {"kind": "gemm", "n": BIG}


def share(pool, args, sampler, md, rows, skipped, t0):
    alone = None
    for n in SHARE_TENANTS:
        if time.time() - t0 > args.max_seconds:
            skipped.append(f"share {n}: time cap")
            continue
        res = run_experiment(pool, [BUSY] * n, args.duration, sampler, f"share {n}", md)
        rates = [rate(r) for r in res]
        total = sum(rates)
        alone = alone or total
        rows.append(
            dict(
                experiment="share",
                mode="processes",
                tenants=n,
                tflops_per_tenant=statistics.median(rates),
                tflops_total=total,
                relative_total=total / alone,
                requests=sum(r["requests"] for r in res),
                seconds=max(r["seconds"] for r in res),
            )
        )
        print(f"[timeslice] share n={n}: per tenant {rates}, total {total:.1f}", flush=True)


def latency(pool, args, sampler, md, rows, skipped, t0):
    for k in LATENCY_NEIGHBOURS:
        if time.time() - t0 > args.max_seconds:
            skipped.append(f"latency {k}: time cap")
            continue
        inter = {"kind": "gemm", "n": SMALL, "think_ms": THINK_MS}
        res = run_experiment(pool, [inter] + [BUSY] * k, args.duration, sampler, f"latency {k}", md)
        lat = res[0]["latency_ms"]
        rows.append(
            dict(
                experiment="latency",
                mode="processes",
                tenants=k + 1,
                busy_neighbours=k,
                latency_ms_median=statistics.median(lat),
                latency_ms_p99=percentile(lat, 99),
                latency_ms_max=max(lat),
                requests=res[0]["requests"],
                seconds=res[0]["seconds"],
            )
        )
        print(
            f"[timeslice] latency k={k}: median {statistics.median(lat):.3f} ms, "
            f"p99 {percentile(lat, 99):.3f} ms, max {max(lat):.3f} ms, n={len(lat)}",
            flush=True,
        )


def narrow(pool, args, sampler, md, rows, skipped, t0):
    cal = pool.ask([0], "calibrate", [NARROW_TARGET_MS])[0]
    md["narrow"]["iters"] = cal["iters"]
    md["narrow"]["calibrated_ms"] = cal["ms"]
    print(f"[timeslice] narrow kernel: {cal}", flush=True)
    spec = {"kind": "narrow", "iters": cal["iters"]}
    for mode in ("processes", "streams"):
        alone = None
        for n in NARROW_TENANTS:
            if time.time() - t0 > args.max_seconds:
                skipped.append(f"narrow {mode} {n}: time cap")
                continue
            specs = [spec] * n if mode == "processes" else [spec | {"streams": n}]
            res = run_experiment(pool, specs, args.duration, sampler, f"narrow {mode} {n}", md)
            rates = [rate(r) for r in res]
            total = sum(rates)
            alone = alone or total
            rows.append(
                dict(
                    experiment="narrow",
                    mode=mode,
                    tenants=n,
                    tflops_per_tenant=statistics.median(rates)
                    if mode == "processes"
                    else total / n,
                    tflops_total=total,
                    relative_total=total / alone,
                    latency_ms_median=statistics.median(res[0]["latency_ms"]),
                    requests=sum(r["requests"] for r in res),
                    seconds=max(r["seconds"] for r in res),
                )
            )
            print(
                f"[timeslice] narrow {mode} n={n}: total {total:.3f} TFLOP/s "
                f"({total / alone:.2f}x alone)",
                flush=True,
            )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--prefix", default=None)
    ap.add_argument("--duration", type=float, default=DURATION)
    ap.add_argument("--max-seconds", type=float, default=150.0)
    args, _ = ap.parse_known_args(argv)
    t0 = time.time()
    prefix = args.prefix or C.default_prefix()

    md = C.base_metadata("timeslice", METHOD, argv)
    md.update(
        duration_s=args.duration,
        think_ms=THINK_MS,
        gemm_sizes={"busy": BIG, "interactive": SMALL},
        narrow={"programs": NARROW_PROGRAMS, "block": NARROW_BLOCK, "target_ms": NARROW_TARGET_MS},
        timing="Host wall time (time.perf_counter) around launch + torch.cuda.synchronize() "
        "for each request; throughput = counted FLOPs of completed requests / seconds from the "
        "common start to the tenant's last completion.",
    )
    rc, so, _ = C._run(["nvidia-smi", "-q", "-d", "COMPUTE"])
    md["compute_mode_report"] = [ln.rstrip() for ln in so.splitlines() if ln.strip()][-3:]
    md["per_config"] = []
    sampler = C.ClockSampler().start()

    pool = Pool(max(max(SHARE_TENANTS), max(LATENCY_NEIGHBOURS) + 1, max(NARROW_TENANTS)))
    rows, skipped = [], []
    try:
        share(pool, args, sampler, md, rows, skipped, t0)
    except Exception as e:
        C.record_failure("timeslice", "share", e, skipped)
    try:
        latency(pool, args, sampler, md, rows, skipped, t0)
    except Exception as e:
        C.record_failure("timeslice", "latency", e, skipped)
    try:
        narrow(pool, args, sampler, md, rows, skipped, t0)
    except Exception as e:
        C.record_failure("timeslice", "narrow", e, skipped)
    pool.close()
    return C.finish_run(args, prefix, "timeslice", COLUMNS, rows, md, skipped, t0, sampler)


if __name__ == "__main__":
    sys.exit(main())
