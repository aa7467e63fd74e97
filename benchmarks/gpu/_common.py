"""Shared helpers for the GPU micro-benchmarks in this folder.

Only the Python standard library and PyTorch are used.

Timing method (used by every script here)
-----------------------------------------
``time_op(fn)`` measures one operation ``fn`` (a callable that launches GPU
work and returns without synchronising):

1. Two untimed calls (first-call costs: kernel selection, allocator, lazy
   module loading), then a synchronise.
2. A probe: ``fn`` is run 3 times between two CUDA events to estimate the
   time of one call, ``t``. Started on an idle GPU, the probe includes launch
   latency and often overestimates ``t`` several times over for short calls.
3. Calibration: ``inner = ceil(min_batch_ms / t)`` calls are timed as one batch;
   while a batch lasts less than ``min_batch_ms``, ``inner`` is scaled up by
   the shortfall (with 5% to spare) and the batch is timed again (at most
   ``max_calibrations`` times; ``inner`` is capped at ``max_inner``).
4. Untimed warm-up: ``inner`` calls repeated until ``warmup_ms`` of GPU time has
   passed (at least one batch), so clocks have ramped up.
5. ``repeats`` timed batches, back to back: a CUDA event is recorded before and
   after each batch of ``inner`` calls; the host synchronises once, at the end.
   The time of one call in a batch is ``elapsed(batch) / inner``.

The scripts report the median over the repeats and also the minimum and the
maximum (for a rate, the maximum rate comes from the minimum time and vice
versa). Every timed batch's length is kept: the metadata JSON lists, per
configuration, ``inner`` and the shortest and longest batch in ms, and the
SM clock and power read by ``nvidia-smi`` while that configuration ran.
"""

from __future__ import annotations

import csv
import datetime as _dt
import json
import math
import os
import platform
import re
import shlex
import socket
import statistics
import subprocess
import sys
import time

import torch

TIMING_METHOD = (
    "Each configuration: 2 untimed calls; a 3-call probe timed with CUDA events "
    "to estimate the per-call time t; calls grouped into batches of "
    "inner=ceil(min_batch_ms/t) calls, then calibrated: one batch is timed and, "
    "while it lasts less than min_batch_ms, inner is scaled up by the shortfall "
    "(+5%) and the batch timed again (capped at max_inner); untimed warm-up "
    "batches for at least warmup_ms of GPU time; then `repeats` back-to-back batches, each "
    "bracketed by torch.cuda.Event(enable_timing=True) records, one host "
    "synchronise at the end. Per-call time = batch elapsed / inner. Reported: "
    "median, min and max over the repeats (rate_max from min time, rate_min "
    "from max time). Inputs are random normal values (not zeros), allocated "
    "once per configuration with the PyTorch caching allocator (cudaMalloc); "
    "no clocks or power settings are changed. per_config in the JSON lists "
    "each configuration's inner, shortest and longest timed batch (ms), and the "
    "SM clock and power sampled by nvidia-smi while it ran."
)

NVSMI_FIELDS = [
    "name",
    "driver_version",
    "pci.bus_id",
    "pstate",
    "clocks.sm",
    "clocks.mem",
    "clocks.gr",
    "clocks.max.sm",
    "clocks.max.mem",
    "clocks.applications.graphics",
    "clocks.applications.memory",
    "power.draw",
    "power.limit",
    "power.max_limit",
    "temperature.gpu",
    "memory.total",
    "memory.used",
    "utilization.gpu",
    "compute_mode",
    "clocks_event_reasons.active",
]


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _run(cmd, timeout=20):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except Exception as e:  # missing binary, timeout, ...
        return None, "", f"{type(e).__name__}: {e}"


def nvidia_smi_query(index: int = 0) -> dict:
    """Query nvidia-smi for GPU `index`. Tolerates every failure.

    Tries all fields in one call; if that fails (an unknown field makes the
    whole query fail), asks field by field.
    """
    out = {"ok": False, "time": now_iso()}
    base = ["nvidia-smi", "-i", str(index), "--format=csv,noheader,nounits"]
    rc, so, se = _run(base + ["--query-gpu=" + ",".join(NVSMI_FIELDS)])
    if rc == 0 and so.strip():
        vals = [v.strip() for v in so.strip().splitlines()[0].split(",")]
        if len(vals) == len(NVSMI_FIELDS):
            out.update(dict(zip(NVSMI_FIELDS, vals)))
            out["ok"] = True
            return out
    if rc is None:
        out["error"] = se.strip()
        return out
    for f in NVSMI_FIELDS:
        rc, so, se = _run(base + ["--query-gpu=" + f], timeout=10)
        if rc == 0 and so.strip():
            out[f] = so.strip().splitlines()[0].strip()
            out["ok"] = True
        else:
            out[f] = None
    return out


def nvidia_smi_static() -> dict:
    """Once-per-run nvidia-smi information (driver CUDA version, clock table)."""
    info = {}
    rc, so, se = _run(["nvidia-smi"])
    if rc == 0:
        m = re.search(r"CUDA Version:\s*([0-9.]+)", so)
        info["driver_cuda_version"] = m.group(1) if m else None
        m = re.search(r"Driver Version:\s*([0-9.]+)", so)
        info["driver_version"] = m.group(1) if m else None
    else:
        info["error"] = (se or so).strip()[-500:]
    rc, so, se = _run(["nvidia-smi", "-i", "0", "-q", "-d", "CLOCK"])
    if rc == 0:
        info["clock_report"] = [ln.rstrip() for ln in so.splitlines() if ln.strip()]
    return info


def device_info() -> dict:
    dev = torch.cuda.current_device()
    p = torch.cuda.get_device_properties(dev)
    info = {
        "device_index": dev,
        "device_name": torch.cuda.get_device_name(dev),
        "compute_capability": f"{p.major}.{p.minor}",
        "sm_count": p.multi_processor_count,
        "total_memory_bytes": p.total_memory,
    }
    for attr in (
        "L2_cache_size",
        "max_threads_per_multi_processor",
        "regs_per_multiprocessor",
        "shared_memory_per_multiprocessor",
        "memory_clock_rate",
        "memory_bus_width",
        "clock_rate",
        "uuid",
    ):
        v = getattr(p, attr, None)
        if v is not None:
            info[attr] = str(v) if attr == "uuid" else v
    return info


def cudnn_version_string(number):
    """cuDNN's version number as a dotted version: 91900 -> "9.19.0", 8902 -> "8.9.2".

    ``torch.backends.cudnn.version()`` returns cuDNN's CUDNN_VERSION integer, which is
    major*10000 + minor*100 + patch from cuDNN 9 on, and major*1000 + minor*100 + patch
    before it. None stays None.
    """
    if number is None:
        return None
    number = int(number)
    if number >= 90000:
        major, rest = divmod(number, 10000)
    else:
        major, rest = divmod(number, 1000)
    minor, patch = divmod(rest, 100)
    return f"{major}.{minor}.{patch}"


class ClockSampler:
    """Samples SM clock, power and throttle reasons with ``nvidia-smi -lms`` in the background.

    ``stats(t0, t1)`` summarises the samples taken between two ``time.time()`` stamps.
    Any failure (no nvidia-smi) leaves the sampler empty; it never stops a benchmark.
    """

    FIELDS = ["clocks.sm", "power.draw", "clocks_event_reasons.active"]

    def __init__(self, period_ms=200, index=0):
        self.samples = []  # (time.time(), sm_mhz, watts, reasons)
        self.error = None
        self._proc = None
        self._thread = None
        self._cmd = [
            "nvidia-smi",
            "-i",
            str(index),
            "--query-gpu=" + ",".join(self.FIELDS),
            "--format=csv,noheader,nounits",
            f"--loop-ms={int(period_ms)}",
        ]

    def start(self):
        import threading

        try:
            self._proc = subprocess.Popen(
                self._cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
            )
        except Exception as e:
            self.error = f"{type(e).__name__}: {e}"
            return self
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def _read(self):
        for line in self._proc.stdout:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != len(self.FIELDS):
                continue
            try:
                self.samples.append((time.time(), float(parts[0]), float(parts[1]), parts[2]))
            except ValueError:
                continue

    def stop(self):
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except Exception:
                self._proc.kill()
        if self._thread is not None:
            self._thread.join(timeout=5)
        return self

    def stats(self, t0, t1):
        sel = [s for s in self.samples if t0 <= s[0] <= t1]
        if not sel:
            return {"clock_samples": 0}
        mhz = sorted(s[1] for s in sel)
        watts = sorted(s[2] for s in sel)
        return {
            "clock_samples": len(sel),
            "sm_mhz_min": mhz[0],
            "sm_mhz_median": statistics.median(mhz),
            "sm_mhz_max": mhz[-1],
            "power_w_median": round(statistics.median(watts), 1),
            "power_w_max": round(watts[-1], 1),
            "throttle_reasons_seen": sorted({s[3] for s in sel}),
        }

    def summary(self):
        out = {"command": " ".join(self._cmd), "samples": len(self.samples)}
        if self.error:
            out["error"] = self.error
        if self.samples:
            out.update(self.stats(self.samples[0][0], self.samples[-1][0]))
        return out


def software_info() -> dict:
    info = {
        "torch_version": torch.__version__,
        "torch_cuda_version": torch.version.cuda,
        "torch_git_version": getattr(torch.version, "git_version", None),
        "python_version": sys.version.split()[0],
        "platform": platform.platform(),
        "hostname": socket.gethostname(),
    }
    try:
        info["cudnn_version"] = cudnn_version_string(torch.backends.cudnn.version())
    except Exception:
        info["cudnn_version"] = None
    try:
        info["matmul_allow_tf32"] = torch.backends.cuda.matmul.allow_tf32
        info["matmul_allow_bf16_reduced_precision_reduction"] = (
            torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
        )
    except Exception:
        pass
    try:
        info["preferred_blas_library"] = str(torch.backends.cuda.preferred_blas_library())
    except Exception:
        pass
    return info


#: The repository's root: commands are recorded as one runs them from there.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def command_line(argv=None) -> str:
    """The command that runs this script again, from the repository's root:
    ``python3 benchmarks/gpu/gemm.py --out /tmp/bench --sizes 4096``. ``argv``: the arguments
    ``main`` was given (default: the process's)."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if script and not os.path.relpath(script, REPO_ROOT).startswith(".."):
        script = os.path.relpath(script, REPO_ROOT).replace(os.sep, "/")
    arguments = sys.argv[1:] if argv is None else list(argv)
    return shlex.join(["python3", script or "benchmarks/gpu/<script>.py", *map(str, arguments)])


def environment(md: dict) -> dict:
    """What the measurement ran on, in one place: GPU, driver, CUDA (torch's and the
    driver's), torch, cuDNN, Triton and Python versions. The build shows it under the figure
    with the command (the Reproduce block)."""
    smi = md.get("nvidia_smi", {})
    env = {
        "gpu": md.get("device_name"),
        "driver": smi.get("driver_version"),
        "cuda": md.get("torch_cuda_version"),
        "driver_cuda": smi.get("driver_cuda_version"),
        "torch": md.get("torch_version"),
        "cudnn": md.get("cudnn_version"),
        "python": md.get("python_version"),
    }
    try:
        import triton

        env["triton"] = triton.__version__
    except Exception:
        pass
    return {key: value for key, value in env.items() if value}


def base_metadata(benchmark: str, method: str, argv=None) -> dict:
    """The start of a run's metadata JSON. ``command`` runs the measurement again (from the
    repository's root) and ``environment`` says what it ran on: a post that shows the CSV
    prints both in its figure's Reproduce block."""
    md = {
        "benchmark": benchmark,
        "date": now_iso(),  # measurement start, UTC, from the clock at run time
        "command": command_line(argv),
        "method": method,
        "timing": TIMING_METHOD,
    }
    md.update(device_info())
    md.update(software_info())
    md["nvidia_smi"] = nvidia_smi_static()
    md["nvidia_smi_before"] = nvidia_smi_query()
    md["environment"] = environment(md)
    return md


def finish_metadata(md: dict, t0: float) -> dict:
    md["nvidia_smi_after"] = nvidia_smi_query()
    md["date_end"] = now_iso()
    md["wall_seconds"] = round(time.time() - t0, 2)
    try:
        md["max_memory_allocated_bytes"] = torch.cuda.max_memory_allocated()
    except Exception:
        pass
    return md


def _timed_batch(fn, inner):
    """GPU time in ms of ``inner`` back-to-back calls of ``fn`` (synchronises)."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(inner):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e)


class Timing(list):
    """Per-call ms over the repeats (a list), with ``inner`` and each batch's ms."""

    def __init__(self, per_call_ms, inner, batch_ms, calibrations):
        super().__init__(per_call_ms)
        self.inner = inner
        self.batch_ms = batch_ms
        self.calibrations = calibrations


def time_op(
    fn,
    repeats=20,
    min_batch_ms=20.0,
    warmup_ms=100.0,
    max_inner=20000,
    max_calibrations=4,
):
    """Return a :class:`Timing` (the per-call ms over the repeats). See module doc."""
    fn()
    fn()
    torch.cuda.synchronize()
    t = max(_timed_batch(fn, 3) / 3.0, 1e-4)
    inner = int(min(max_inner, max(1, math.ceil(min_batch_ms / t))))
    calibrations = []
    for _ in range(max_calibrations):
        elapsed = _timed_batch(fn, inner)
        calibrations.append((inner, round(elapsed, 4)))
        if elapsed >= min_batch_ms or inner >= max_inner:
            break
        scale = min_batch_ms / max(elapsed, 1e-4) * 1.05
        inner = int(min(max_inner, max(inner + 1, math.ceil(inner * scale))))
    t = max(elapsed / calibrations[-1][0], 1e-5)
    nwarm = max(1, int(math.ceil(warmup_ms / (t * inner))))
    for _ in range(nwarm):
        for _ in range(inner):
            fn()
    evs = [
        (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
        for _ in range(repeats)
    ]
    for s, e in evs:
        s.record()
        for _ in range(inner):
            fn()
        e.record()
    torch.cuda.synchronize()
    batch_ms = [s.elapsed_time(e) for s, e in evs]
    return Timing([b / inner for b in batch_ms], inner, batch_ms, calibrations)


def summarize(ms_list):
    return {
        "ms_median": statistics.median(ms_list),
        "ms_min": min(ms_list),
        "ms_max": max(ms_list),
    }


def time_with_args(fn, args):
    """time_op with the repeat, batch and warm-up settings given on the command line.

    Returns (per-call ms list, inner); the whole :class:`Timing` is the first item.
    """
    timing = time_op(
        fn, repeats=args.repeats, min_batch_ms=args.min_batch_ms, warmup_ms=args.warmup_ms
    )
    return timing, timing.inner


def config_record(label, timing, t_start, t_end, sampler=None):
    """What the JSON keeps about one configuration: batch lengths, clocks while it ran."""
    rec = {
        "config": label,
        "inner": timing.inner,
        "batch_ms_min": round(min(timing.batch_ms), 4),
        "batch_ms_max": round(max(timing.batch_ms), 4),
        "calibration": timing.calibrations,
    }
    if sampler is not None:
        rec.update(sampler.stats(t_start, t_end))
    return rec


def record_failure(script, label, error, skipped, verb="FAILED"):
    """Note a configuration that could not be measured; the run goes on with the next one."""
    text = str(error).splitlines()[0] if str(error) else ""
    message = f"{label}: {type(error).__name__}: {text}"[:300]
    print(f"[{script}] {verb}", message, flush=True)
    skipped.append(message)


def finish_run(args, prefix, name, columns, rows, md, skipped, t0, sampler=None):
    """Write the CSV and metadata JSON; exit status 1 when nothing could be measured."""
    md["skipped"] = skipped
    if sampler is not None:
        sampler.stop()
        md["clock_sampler"] = sampler.summary()
    batches = [c["batch_ms_min"] for c in md.get("per_config", []) if "batch_ms_min" in c]
    if batches:
        md["shortest_timed_batch_ms"] = min(batches)
    finish_metadata(md, t0)
    write_outputs(args.out, prefix, name, columns, rows, md)
    return 0 if rows else 1


def add_rates(row, amount, summary, unit, scale):
    """Set ``<unit>_median/_min/_max``: ``amount`` (FLOPs or bytes) per second over ``scale``.

    The fastest time gives the highest rate, so min and max swap sides.
    """
    for key, ms_key in (("median", "ms_median"), ("min", "ms_max"), ("max", "ms_min")):
        row[f"{unit}_{key}"] = amount / (summary[ms_key] * 1e-3) / scale
    return row


def warm_gpu(seconds=1.0):
    """Untimed bf16 GEMMs for about `seconds` so clocks leave idle first."""
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(8192, 8192, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    t0 = time.time()
    while time.time() - t0 < seconds:
        for _ in range(20):
            torch.mm(a, b, out=c)
        torch.cuda.synchronize()
    del a, b, c
    torch.cuda.empty_cache()


def default_prefix() -> str:
    try:
        name = torch.cuda.get_device_name(0)
    except Exception:
        return "gpu"
    m = re.search(r"\b([A-Z]+\d+[A-Za-z]*)\b", name.replace("NVIDIA", ""))
    tag = m.group(1) if m else name
    return re.sub(r"[^a-z0-9]+", "-", tag.lower()).strip("-") or "gpu"


def write_outputs(out_dir, prefix, name, columns, rows, md):
    os.makedirs(out_dir, exist_ok=True)
    csv_path = os.path.join(out_dir, f"{prefix}-{name}.csv")
    json_path = os.path.join(out_dir, f"{prefix}-{name}.json")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow([_fmt(r.get(c)) for c in columns])
    md["csv_file"] = os.path.basename(csv_path)
    md["csv_columns"] = columns
    md["rows"] = len(rows)
    with open(json_path, "w") as f:
        json.dump(md, f, indent=2, sort_keys=False, default=str)
        f.write("\n")
    print(f"wrote {csv_path} ({len(rows)} rows) and {json_path}", flush=True)
    return csv_path, json_path


def _fmt(v):
    if isinstance(v, float):
        return f"{v:.6g}" if abs(v) < 1e5 else f"{v:.1f}"
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else v


def common_args(parser):
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument(
        "--prefix", default=None, help="file name prefix (default: from the GPU name, e.g. h200)"
    )
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--min-batch-ms", type=float, default=20.0)
    parser.add_argument("--warmup-ms", type=float, default=100.0)
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=150.0,
        help="stop starting new configurations after this many seconds",
    )
    return parser
