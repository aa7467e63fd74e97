"""Run a command; print its wall time and the CPU seconds the whole machine was busy meanwhile.

``time`` (and ``farm-bench``) count the CPU of the processes the command waits for. A browser
that Playwright starts is not among them: the test suite's browser tier showed 96 CPU-s under
``time`` and 251 s of busy CPU. This reads the kernel's count of busy time (``/proc/stat``: user,
nice, system, irq and softirq) before and after, so it counts everything the machine ran; run
it on a quiet machine, and compare the busy seconds with the wall seconds times the cores.

    python benchmarks/busy_cpu.py -- make test
    python benchmarks/busy_cpu.py -- .venv/bin/python -m pytest -m browser -n auto --dist loadfile
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

#: The fields of /proc/stat's first line that count busy time (idle, iowait and steal do not).
BUSY_FIELDS = (0, 1, 2, 5, 6)  # user, nice, system, irq, softirq


def busy_seconds() -> float:
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = [int(value) for value in stat.readline().split()[1:]]
    return sum(ticks[field] for field in BUSY_FIELDS) / os.sysconf("SC_CLK_TCK")


def main(command: list[str]) -> int:
    busy, started = busy_seconds(), time.monotonic()
    status = subprocess.run(command, check=False).returncode
    wall, busy = time.monotonic() - started, busy_seconds() - busy
    cores = os.cpu_count() or 1
    print(
        f"wall {wall:.1f} s, busy CPU {busy:.1f} s on {cores} cores "
        f"({busy / (wall * cores):.0%} of them), exit status {status}",
        file=sys.stderr,
    )
    return status


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--"]:
        arguments = arguments[1:]
    if not arguments:
        raise SystemExit("usage: busy_cpu.py -- COMMAND [ARGUMENT ...]")
    raise SystemExit(main(arguments))
