"""Decode attention (one new token per sequence) against a long KV cache: GB/s and TFLOP/s.

Usage: python3 benchmarks/gpu/decode.py --out DIR [--prefix h200]
Writes DIR/<prefix>-decode.csv and DIR/<prefix>-decode.json.

What is measured
----------------
One decode step of grouped-query attention (GQA): every sequence of the batch has one new
query token per query head, ``group`` query heads share each of ``KV_HEADS`` key/value heads,
and the keys and values of ``seqlen`` cached tokens are read from device memory. bf16,
head_dim 128, ``torch.nn.functional.scaled_dot_product_attention`` forward under
``torch.inference_mode()``, no mask (the new token sees the whole cache), default scale.

* Shape rule: batch = TOKENS // seqlen with TOKENS = 262144 cached tokens in every row, so
  the cache K and V together are 2 * 262144 * 8 * 128 * 2 bytes = 1 GiB in every row (far
  more than the L2), whatever the sequence length.
* ``layout=packed``: the ``group`` query heads of each KV head are packed into the rows of
  one attention problem, q of shape (batch, KV_HEADS, group, 128) against k, v of shape
  (batch, KV_HEADS, seqlen, 128), so any attention kernel sees an ordinary multi-head
  problem with ``group`` query rows (query head packing).
* ``layout=gqa``: q of shape (batch, KV_HEADS * group, 1, 128) with ``enable_gqa=True``:
  one query row per head, the backend's own GQA handling. Rows are missing where a backend
  refuses it (listed under ``skipped``). At group 1 both layouts are the same problem.
* backend: ``default`` is PyTorch's own choice; flash, cudnn and efficient are forced with
  ``torch.nn.attention.sdpa_kernel``.

Counting
--------
bytes = K and V read once (2 * batch * KV_HEADS * seqlen * 128 * 2) plus q read and the
output written once (2 * batch * KV_HEADS * group * 128 * 2); GB/s = bytes / per-call
seconds / 1e9. FLOPs = 4 * batch * KV_HEADS * group * seqlen * 128 (Q K^T and P V);
softmax not counted. A kernel that reads the cache more than once per KV head still gets
credit for one read, so its GB/s is an effective rate, comparable across layouts.
Timing: CUDA events, see _common.py.
"""

from __future__ import annotations

import argparse
import sys
import time

import _common as C
import torch
import torch.nn.functional as F

SEQLENS = [4096, 32768, 131072]
GROUPS = [1, 4, 8, 16]
LAYOUTS = ["packed", "gqa"]
TOKENS = 262144
KV_HEADS = 8
HEAD_DIM = 128

METHOD = (
    "One GQA decode step, F.scaled_dot_product_attention forward, inference_mode, bf16, "
    f"head_dim {HEAD_DIM}, {KV_HEADS} KV heads, group query heads per KV head, one new token "
    f"per sequence, no mask, default scale; batch = {TOKENS} // seqlen, so K and V of the "
    "cache are 1 GiB in every row. layout=packed: q (batch, kv_heads, group, d) against k, v "
    "(batch, kv_heads, seqlen, d) (query head packing). layout=gqa: q (batch, kv_heads*group, "
    "1, d), enable_gqa=True. bytes = 2*batch*kv_heads*seqlen*d*2 (K, V read once) + "
    "2*batch*kv_heads*group*d*2 (q read, output written); GB/s = bytes / per-call s / 1e9; "
    "FLOPs = 4*batch*kv_heads*group*seqlen*d. backend=default is PyTorch's own choice; "
    "flash, cudnn, efficient forced via torch.nn.attention.sdpa_kernel."
)

COLUMNS = [
    "layout",
    "group",
    "seqlen",
    "batch",
    "kv_heads",
    "head_dim",
    "gbps_median",
    "gbps_min",
    "gbps_max",
    "tflops_median",
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


def make_case(layout, group, seqlen):
    b, h, d = TOKENS // seqlen, KV_HEADS, HEAD_DIM
    g = torch.Generator(device="cuda").manual_seed(seqlen + group)
    k = torch.randn(b, h, seqlen, d, device="cuda", dtype=torch.bfloat16, generator=g)
    v = torch.randn(b, h, seqlen, d, device="cuda", dtype=torch.bfloat16, generator=g)
    if layout == "packed":
        q = torch.randn(b, h, group, d, device="cuda", dtype=torch.bfloat16, generator=g)

        def fn():
            return F.scaled_dot_product_attention(q, k, v)

    else:
        q = torch.randn(b, h * group, 1, d, device="cuda", dtype=torch.bfloat16, generator=g)

        def fn():
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    nbytes = 2 * b * h * seqlen * d * 2 + 2 * b * h * group * d * 2
    flop = 4.0 * b * h * group * seqlen * d
    return fn, nbytes, flop, b, (q, k, v)


def main(argv=None):
    ap = C.common_args(argparse.ArgumentParser(description=__doc__.splitlines()[0]))
    ap.add_argument("--seqlens", default=None)
    ap.add_argument("--groups", default=None)
    ap.add_argument("--backends", default="default,flash,cudnn,efficient")
    args = ap.parse_args(argv)
    t0 = time.time()
    seqlens = [int(s) for s in args.seqlens.split(",")] if args.seqlens else SEQLENS
    groups = [int(s) for s in args.groups.split(",")] if args.groups else GROUPS
    prefix = args.prefix or C.default_prefix()
    want = set(args.backends.split(","))

    md = C.base_metadata("decode", METHOD, argv)
    md.update(
        seqlens=seqlens,
        groups=groups,
        layouts=LAYOUTS,
        tokens=TOKENS,
        kv_heads=KV_HEADS,
        head_dim=HEAD_DIM,
    )
    bks, sdpa_kernel = backends()
    bks = [b for b in bks if b[0] in want]
    md["backends"] = [b[0] for b in bks]

    sampler = C.ClockSampler().start()
    C.warm_gpu(1.0)
    md["nvidia_smi_after_warmup"] = C.nvidia_smi_query()

    rows, skipped = [], []
    md["per_config"] = []
    with torch.inference_mode():
        for bname, bk in bks:
            for layout in LAYOUTS:
                for group in groups:
                    if layout == "gqa" and group == 1:
                        continue  # the same problem as packed at group 1
                    for s in seqlens:
                        tag = f"{bname} {layout} g={group} s={s}"
                        if time.time() - t0 > args.max_seconds:
                            skipped.append(f"{tag}: time cap")
                            continue
                        keep = None
                        try:
                            fn, nbytes, flop, b, keep = make_case(layout, group, s)
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
                            C.record_failure("decode", tag, e, skipped, verb="skipped")
                            try:
                                torch.cuda.synchronize()
                            except Exception:
                                pass
                            continue
                        finally:
                            fn = keep = None
                            torch.cuda.empty_cache()
                        st = C.summarize(ms)
                        row = dict(
                            layout=layout,
                            group=group,
                            seqlen=s,
                            batch=b,
                            kv_heads=KV_HEADS,
                            head_dim=HEAD_DIM,
                            backend=bname,
                            repeats=len(ms),
                            inner=inner,
                            **st,
                        )
                        C.add_rates(row, nbytes, st, "gbps", 1e9)
                        row["tflops_median"] = flop / (st["ms_median"] * 1e-3) / 1e12
                        rows.append(row)
                        print(
                            f"[decode] {bname:9s} {layout:6s} g={group:2d} s={s:6d} b={b:3d}  "
                            f"{row['gbps_median']:7.1f} GB/s {row['tflops_median']:6.1f} TFLOP/s "
                            f"{st['ms_median']:.4f} ms  inner={inner}",
                            flush=True,
                        )
    return C.finish_run(args, prefix, "decode", COLUMNS, rows, md, skipped, t0, sampler)


if __name__ == "__main__":
    sys.exit(main())
