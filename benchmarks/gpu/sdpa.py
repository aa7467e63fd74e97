"""Scaled-dot-product attention forward throughput (TFLOP/s).

Usage: python3 benchmarks/gpu/sdpa.py --out DIR [--prefix h200]
Writes DIR/<prefix>-sdpa.csv and DIR/<prefix>-sdpa.json.

What is measured
----------------
``torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=...)``,
forward only, under ``torch.inference_mode()``, bf16, q/k/v of shape
(batch, heads, seqlen, head_dim), contiguous, random normal, self-attention
(query length = key length = seqlen), no mask tensor, no dropout, default scale.

* seqlen in 512 ... 32768 (powers of two), head_dim in {64, 128}, causal and not.
* Shape rule: batch = TOKENS // seqlen with TOKENS = 32768, so batch*seqlen is
  32768 tokens for every row; heads = WIDTH // head_dim with WIDTH = 2048
  (model width heads*head_dim = 2048: 32 heads of 64, 16 heads of 128).
  So q, k, v each hold 32768*2048 bf16 values (128 MiB) in every row, and the
  work per row grows linearly with seqlen.
* backend: ``default`` is what PyTorch picks by itself (the number a user of
  SDPA gets). Each of ``flash``, ``cudnn`` and ``efficient`` (memory-efficient)
  is then forced with ``torch.nn.attention.sdpa_kernel``; a backend that
  refuses a shape is skipped and noted in the metadata. The math backend is
  not run (it materialises seqlen^2 scores).

FLOP counting
-------------
FLOPs = 4 * batch * heads * seqlen^2 * head_dim (two matmuls, Q K^T and P V,
each 2 * seqlen^2 * head_dim per head), halved when causal (the convention of
the FlashAttention papers: the exact causal count is (seqlen+1)/(2*seqlen) of
the full one). Softmax, scaling and masking are not counted.
TFLOP/s = FLOPs / per-call seconds / 1e12 (CUDA events; see _common.py).
"""

from __future__ import annotations

import argparse
import sys
import time

import _common as C
import torch
import torch.nn.functional as F

SEQLENS = [512, 1024, 2048, 4096, 8192, 16384, 32768]
HEAD_DIMS = [64, 128]
TOKENS = 32768
WIDTH = 2048

METHOD = (
    "F.scaled_dot_product_attention forward, inference_mode, bf16, q/k/v shape "
    "(batch, heads, seqlen, head_dim) contiguous random normal, self-attention "
    f"(q len = kv len), no mask/dropout, default scale. batch = {TOKENS} // seqlen "
    f"(batch*seqlen = {TOKENS} tokens), heads = {WIDTH} // head_dim (heads*head_dim = {WIDTH}). "
    "FLOPs = 4*batch*heads*seqlen^2*head_dim, divided by 2 when causal "
    "(is_causal=True); softmax/scale not counted. TFLOP/s = FLOPs / per-call "
    "seconds / 1e12. backend=default is PyTorch's own choice; flash, cudnn, "
    "efficient are forced via torch.nn.attention.sdpa_kernel (rows missing "
    "where a backend refused the shape, see `skipped`)."
)

COLUMNS = [
    "head_dim",
    "causal",
    "seqlen",
    "batch",
    "heads",
    "tflops_median",
    "tflops_min",
    "tflops_max",
    "ms_median",
    "ms_min",
    "ms_max",
    "backend",
    "repeats",
    "inner",
]


def backends():
    out = [("default", None)]
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception:
        return out, None
    for name, attr in (
        ("flash", "FLASH_ATTENTION"),
        ("cudnn", "CUDNN_ATTENTION"),
        ("efficient", "EFFICIENT_ATTENTION"),
    ):
        if hasattr(SDPBackend, attr):
            out.append((name, getattr(SDPBackend, attr)))
    return out, sdpa_kernel


def main(argv=None):
    ap = C.common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    ap.add_argument("--seqlens", default=None)
    ap.add_argument(
        "--backends",
        default="default,flash,cudnn,efficient",
        help="comma-separated subset of default,flash,cudnn,efficient",
    )
    args = ap.parse_args(argv)
    t0 = time.time()
    seqlens = [int(s) for s in args.seqlens.split(",")] if args.seqlens else SEQLENS
    prefix = args.prefix or C.default_prefix()
    want = set(args.backends.split(","))

    md = C.base_metadata("sdpa", METHOD, argv)
    md.update(seqlens=seqlens, head_dims=HEAD_DIMS, tokens=TOKENS, width=WIDTH)
    bks, sdpa_kernel = backends()
    bks = [b for b in bks if b[0] in want]
    md["backends"] = [b[0] for b in bks]
    for flag in (
        "flash_sdp_enabled",
        "cudnn_sdp_enabled",
        "mem_efficient_sdp_enabled",
        "math_sdp_enabled",
    ):
        try:
            md[flag] = getattr(torch.backends.cuda, flag)()
        except Exception:
            pass

    sampler = C.ClockSampler().start()
    C.warm_gpu(1.0)
    md["nvidia_smi_after_warmup"] = C.nvidia_smi_query()

    rows, skipped = [], []
    md["per_config"] = []
    with torch.inference_mode():
        for bname, bk in bks:
            for d in HEAD_DIMS:
                for causal in (False, True):
                    for s in seqlens:
                        tag = f"{bname} d={d} causal={causal} s={s}"
                        if time.time() - t0 > args.max_seconds:
                            skipped.append(f"{tag}: time cap")
                            continue
                        b = max(1, TOKENS // s)
                        h = WIDTH // d
                        g = torch.Generator(device="cuda").manual_seed(s + d)
                        q, k, v = (
                            torch.randn(
                                b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g
                            )
                            for _ in range(3)
                        )

                        def fn():
                            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

                        try:
                            t_start = time.time()
                            if bk is None:
                                ms, inner = C.time_with_args(fn, args)
                            else:
                                with sdpa_kernel([bk]):
                                    ms, inner = C.time_with_args(fn, args)
                            md["per_config"].append(
                                C.config_record(tag, ms, t_start, time.time(), sampler)
                            )
                        except Exception as e:
                            C.record_failure("sdpa", tag, e, skipped, verb="skipped")
                            try:
                                torch.cuda.synchronize()
                            except Exception:
                                pass
                            continue
                        finally:
                            del q, k, v
                        st = C.summarize(ms)
                        flop = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
                        row = dict(
                            head_dim=d,
                            causal=causal,
                            seqlen=s,
                            batch=b,
                            heads=h,
                            backend=bname,
                            repeats=len(ms),
                            inner=inner,
                            **st,
                        )
                        C.add_rates(row, flop, st, "tflops", 1e12)
                        rows.append(row)
                        print(
                            f"[sdpa] {bname:9s} d={d:3d} causal={int(causal)} s={s:6d} "
                            f"b={b:3d} h={h:2d}  {row['tflops_median']:7.1f} TFLOP/s "
                            f"(min {row['tflops_min']:.1f} max {row['tflops_max']:.1f})  "
                            f"{st['ms_median']:.4f} ms  inner={inner}",
                            flush=True,
                        )
    return C.finish_run(args, prefix, "sdpa", COLUMNS, rows, md, skipped, t0, sampler)


if __name__ == "__main__":
    sys.exit(main())
