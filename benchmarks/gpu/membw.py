"""Device memory bandwidth (GB/s): copy, read-only reduction, write-only fill, a+b.

Usage: python3 benchmarks/gpu/membw.py --out DIR [--prefix h200]
Writes DIR/<prefix>-membw.csv and DIR/<prefix>-membw.json.

What is measured
----------------
For each buffer size in BUFFER_BYTES (32 MiB ... 8 GiB per buffer; the L2 is
tens of MB, so sizes >= 512 MiB measure DRAM/HBM; 32 MiB may partly hit L2),
float32 contiguous buffers:

* ``copy_d2d``: ``dst.copy_(src)`` (a device-to-device cudaMemcpyAsync).
  bytes = 2 * buffer (read src + write dst).
* ``read_sum``: ``torch.sum(x, 0, out=y)`` (read-only reduction of the 1-D
  buffer to one float).
  bytes = buffer (the 4-byte result is ignored).
* ``write_fill``: ``x.fill_(1.0)`` (write-only). bytes = buffer.
* ``add``: ``torch.add(a, b, out=c)``. bytes = 3 * buffer (read a, b; write c).
* ``h2d_pinned`` / ``d2h_pinned`` (only buffers <= 1 GiB): ``copy_`` between a
  pinned host tensor and a device tensor, non_blocking. bytes = buffer
  (bytes transferred over the host link, counted once). Not device-memory
  bandwidth; listed for reference.

Byte counting: bytes = bytes read + bytes written in device memory by one call,
as listed above (no allowance for caches or for write-allocate traffic).
GB/s = bytes / per-call seconds / 1e9 (decimal GB). Per-call time from CUDA
events (see _common.py: warm-up, batches, median/min/max of repeats).
"""

from __future__ import annotations

import argparse
import sys
import time

import _common as C
import torch

MiB = 1 << 20
GiB = 1 << 30
BUFFER_BYTES = [32 * MiB, 128 * MiB, 512 * MiB, 2 * GiB, 8 * GiB]
PCIE_MAX = 1 * GiB

METHOD = (
    f"float32 contiguous buffers of buffer_bytes each in {BUFFER_BYTES}. bytes column = "
    "device-memory bytes read + written per call: copy_d2d dst.copy_(src) = "
    "2*buffer; read_sum torch.sum(x, 0, out=y) (1-D x, 0-dim y) = buffer; write_fill x.fill_(1.0) = buffer; "
    "add torch.add(a,b,out=c) = 3*buffer; h2d_pinned/d2h_pinned (buffers <= 1 GiB, "
    "pinned host memory, non_blocking copy_) = buffer transferred over the host "
    "link, counted once (not device-memory bandwidth). No allowance for cache or "
    "write-allocate traffic. GB/s = bytes / per-call seconds / 1e9. Sizes below "
    "the L2 size may be served partly from L2."
)

COLUMNS = [
    "kernel",
    "bytes",
    "gbps_median",
    "gbps_min",
    "gbps_max",
    "ms_median",
    "ms_min",
    "ms_max",
    "buffer_bytes",
    "repeats",
    "inner",
]

KERNELS = ["copy_d2d", "read_sum", "write_fill", "add", "h2d_pinned", "d2h_pinned"]


def make_case(kernel, nbytes):
    n = nbytes // 4
    dev = "cuda"
    if kernel == "copy_d2d":
        src = torch.randn(n, device=dev)
        dst = torch.empty_like(src)
        return (lambda: dst.copy_(src)), 2 * nbytes, (src, dst)
    if kernel == "read_sum":
        x = torch.randn(n, device=dev)
        out = torch.empty((), device=dev)
        return (lambda: torch.sum(x, 0, out=out)), nbytes, (x, out)
    if kernel == "write_fill":
        x = torch.empty(n, device=dev)
        return (lambda: x.fill_(1.0)), nbytes, (x,)
    if kernel == "add":
        a = torch.randn(n, device=dev)
        b = torch.randn(n, device=dev)
        c = torch.empty_like(a)
        return (lambda: torch.add(a, b, out=c)), 3 * nbytes, (a, b, c)
    if kernel == "h2d_pinned":
        h = torch.empty(n, dtype=torch.float32, pin_memory=True)
        h.fill_(1.0)
        d = torch.empty(n, device=dev)
        return (lambda: d.copy_(h, non_blocking=True)), nbytes, (h, d)
    if kernel == "d2h_pinned":
        h = torch.empty(n, dtype=torch.float32, pin_memory=True)
        d = torch.randn(n, device=dev)
        return (lambda: h.copy_(d, non_blocking=True)), nbytes, (h, d)
    raise ValueError(kernel)


def main(argv=None):
    ap = C.common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    ap.add_argument("--kernels", default=",".join(KERNELS))
    args = ap.parse_args(argv)
    t0 = time.time()
    prefix = args.prefix or C.default_prefix()
    kernels = args.kernels.split(",")

    md = C.base_metadata("membw", METHOD, argv)
    md.update(buffer_bytes=BUFFER_BYTES, kernels=kernels, pcie_max_buffer_bytes=PCIE_MAX)
    free, total = torch.cuda.mem_get_info()
    md["mem_get_info_at_start"] = {"free": free, "total": total}

    sampler = C.ClockSampler().start()
    C.warm_gpu(1.0)
    md["nvidia_smi_after_warmup"] = C.nvidia_smi_query()

    rows, skipped = [], []
    md["per_config"] = []
    for kernel in kernels:
        for nb in BUFFER_BYTES:
            tag = f"{kernel} {nb}"
            if kernel.endswith("_pinned") and nb > PCIE_MAX:
                continue
            if time.time() - t0 > args.max_seconds:
                skipped.append(f"{tag}: time cap")
                continue
            keep = None
            try:
                fn, nbytes, keep = make_case(kernel, nb)
                t_start = time.time()
                ms, inner = C.time_with_args(fn, args)
                md["per_config"].append(C.config_record(tag, ms, t_start, time.time(), sampler))
            except Exception as e:
                C.record_failure("membw", tag, e, skipped)
                continue
            finally:
                fn = keep = None
                torch.cuda.empty_cache()
            st = C.summarize(ms)
            row = dict(
                kernel=kernel, bytes=nbytes, buffer_bytes=nb, repeats=len(ms), inner=inner, **st
            )
            C.add_rates(row, nbytes, st, "gbps", 1e9)
            rows.append(row)
            print(
                f"[membw] {kernel:11s} buf={nb / MiB:7.0f} MiB bytes={nbytes:12d}  "
                f"{row['gbps_median']:8.1f} GB/s (min {row['gbps_min']:.1f} "
                f"max {row['gbps_max']:.1f})  {st['ms_median']:.4f} ms  inner={inner}",
                flush=True,
            )
    return C.finish_run(args, prefix, "membw", COLUMNS, rows, md, skipped, t0, sampler)


if __name__ == "__main__":
    sys.exit(main())
