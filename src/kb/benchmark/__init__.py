"""Benchmark figures: the ``benchmark`` directive draws a CSV of measurements as a chart
(:mod:`.charts`) and a table (:mod:`.table`), read by :mod:`.data`, with "% of peak" from
the GPU registry (:mod:`.hardware`, ``kb/data/hardware.toml``).
"""

from .directive import setup_benchmark
from .peaks import setup_peaks

__all__ = ["setup_benchmark", "setup_peaks"]
