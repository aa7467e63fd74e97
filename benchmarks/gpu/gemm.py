"""Dense GEMM throughput (TFLOP/s) over square sizes, bf16 and (where supported) fp8.

Usage: python3 benchmarks/gpu/gemm.py --out DIR [--prefix h200]
Writes DIR/<prefix>-gemm.csv and DIR/<prefix>-gemm.json.

What is measured
----------------
C = A @ B for square M = N = K in SIZES (1024 ... 16384).

* ``bf16``: ``torch.mm(A, B, out=C)``, A, B, C bf16, row-major, random normal
  inputs; PyTorch's default cuBLAS path (fp32 accumulate).
* ``fp8_e4m3``: ``torch._scaled_mm(A8, B8.t(), scale_a, scale_b,
  out_dtype=bf16)`` with A8, B8 ``float8_e4m3fn`` (B passed column-major as
  cuBLASLt requires), per-tensor float32 scales of 1.0, ``use_fast_accum=False``.
* ``fp8_e4m3_fastacc``: the same with ``use_fast_accum=True`` (Hopper's faster,
  less precise fp8 accumulation, as used by many training recipes).

fp8 rows are only produced when torch has ``float8_e4m3fn`` and ``_scaled_mm``
and the device has compute capability >= 8.9; a failure is recorded in the
metadata (``fp8_status``) rather than aborting.

FLOP counting
-------------
FLOPs per GEMM = 2 * M * N * K (one multiply and one add per inner-product
term); no credit for the output scaling/conversion. TFLOP/s = FLOPs / time /
1e12, where time is per-call time from CUDA events (see _common.py: warm-up,
batches of calls, median/min/max of the repeats).
"""

from __future__ import annotations

import argparse
import sys
import time

import _common as C
import torch

SIZES = [1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384]

METHOD = (
    f"Square GEMM C=A@B, M=N=K in {SIZES}. FLOPs per call = 2*M*N*K; "
    "TFLOP/s = 2*M*N*K / per-call seconds / 1e12. bf16: torch.mm(A,B,out=C), "
    "all bf16 row-major, random normal inputs, default cuBLAS (fp32 accumulate). "
    "fp8_e4m3: torch._scaled_mm(A8, B8.t(), scale_a=1.0, scale_b=1.0 (float32 "
    "per-tensor), out_dtype=bf16, use_fast_accum=False), A8/B8 float8_e4m3fn "
    "converted from random normal bf16; fp8_e4m3_fastacc: same with "
    "use_fast_accum=True. Output scaling and dtype conversion are not counted "
    "as FLOPs. Columns tflops_min/tflops_max come from the max/min per-call "
    "time over the repeats."
)

COLUMNS = [
    "dtype",
    "m",
    "n",
    "k",
    "tflops_median",
    "tflops_min",
    "tflops_max",
    "ms_median",
    "ms_min",
    "ms_max",
    "repeats",
    "inner",
]


def fp8_supported():
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        return False, "torch lacks float8_e4m3fn or _scaled_mm"
    cap = torch.cuda.get_device_capability()
    if cap < (8, 9):
        return False, f"compute capability {cap} < 8.9"
    try:
        a = torch.randn(256, 256, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(256, 256, device="cuda").to(torch.float8_e4m3fn)
        one = torch.tensor(1.0, device="cuda")
        out = torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        out = out[0] if isinstance(out, tuple) else out
        ref = a.float() @ b.float().t()
        err = (out.float() - ref).abs().max().item()
        torch.cuda.synchronize()
        return True, f"ok (256^3 check vs fp32, max abs err {err:.3g})"
    except Exception as e:
        return False, f"_scaled_mm failed: {type(e).__name__}: {e}"[:500]


def make_case(dtype, n):
    g = torch.Generator(device="cuda").manual_seed(n)
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16, generator=g)
    if dtype == "bf16":
        c = torch.empty(n, n, device="cuda", dtype=torch.bfloat16)
        return (lambda: torch.mm(a, b, out=c)), (a, b, c)
    a8 = a.to(torch.float8_e4m3fn)
    b8 = b.to(torch.float8_e4m3fn)  # (n, k) row-major; b8.t() is (k, n) column-major
    del a, b
    one = torch.tensor(1.0, device="cuda", dtype=torch.float32)
    fast = dtype.endswith("fastacc")
    bt = b8.t()

    def fn():
        return torch._scaled_mm(
            a8, bt, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast
        )

    return fn, (a8, b8, one)


def main(argv=None):
    ap = C.common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    ap.add_argument("--sizes", default=None, help="comma-separated sizes (default: built-in list)")
    args = ap.parse_args(argv)
    t0 = time.time()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else SIZES
    prefix = args.prefix or C.default_prefix()

    md = C.base_metadata("gemm", METHOD, argv)
    md["sizes"] = sizes
    ok8, why8 = fp8_supported()
    md["fp8_status"] = why8
    dtypes = ["bf16"] + (["fp8_e4m3", "fp8_e4m3_fastacc"] if ok8 else [])
    md["dtypes"] = dtypes
    print(f"[gemm] device={md['device_name']} fp8: {why8}", flush=True)

    sampler = C.ClockSampler().start()
    C.warm_gpu(1.0)
    md["nvidia_smi_after_warmup"] = C.nvidia_smi_query()

    rows, skipped = [], []
    md["per_config"] = []
    for dtype in dtypes:
        for n in sizes:
            if time.time() - t0 > args.max_seconds:
                skipped.append(f"{dtype} {n}: time cap")
                continue
            try:
                fn, keep = make_case(dtype, n)
                t_start = time.time()
                ms, inner = C.time_with_args(fn, args)
                md["per_config"].append(
                    C.config_record(f"{dtype} {n}", ms, t_start, time.time(), sampler)
                )
            except Exception as e:
                C.record_failure("gemm", f"{dtype} {n}", e, skipped)
                continue
            finally:
                fn = keep = None
                torch.cuda.empty_cache()
            s = C.summarize(ms)
            flop = 2.0 * n * n * n
            row = dict(dtype=dtype, m=n, n=n, k=n, repeats=len(ms), inner=inner, **s)
            C.add_rates(row, flop, s, "tflops", 1e12)
            rows.append(row)
            print(
                f"[gemm] {dtype:18s} {n:6d}  {row['tflops_median']:8.1f} TFLOP/s "
                f"(min {row['tflops_min']:.1f} max {row['tflops_max']:.1f})  "
                f"{s['ms_median']:.4f} ms  inner={inner}",
                flush=True,
            )
    return C.finish_run(args, prefix, "gemm", COLUMNS, rows, md, skipped, t0, sampler)


if __name__ == "__main__":
    sys.exit(main())
