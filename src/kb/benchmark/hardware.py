"""The registry of GPU peaks (``data/hardware.toml``) and "% of peak" arithmetic."""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

REGISTRY = Path(__file__).parent.parent / "data" / "hardware.toml"
#: How messages name the registry: where to add a GPU.
REGISTRY_SHOWN = "src/kb/data/hardware.toml"

#: Units a benchmark column may be in, as (quantity, factor to the base unit per second).
UNITS = {
    "GFLOP/s": ("flop", 1e9),
    "TFLOP/s": ("flop", 1e12),
    "PFLOP/s": ("flop", 1e15),
    "GB/s": ("byte", 1e9),
    "TB/s": ("byte", 1e12),
}


@dataclass(frozen=True)
class Metric:
    key: str
    unit: str
    label: str


@dataclass(frozen=True)
class Gpu:
    key: str
    name: str
    aliases: tuple[str, ...]
    peaks: dict[str, float]
    source: str
    clock_mhz: float | None = None  # the clock the datasheet's tensor-core figures assume

    @property
    def short(self) -> str:
        """What a chart's label calls it: the first alias (\"B200\")."""
        return self.aliases[0] if self.aliases else self.name


@dataclass(frozen=True)
class Registry:
    metrics: dict[str, Metric]
    gpus: dict[str, Gpu]

    def find(self, name: str) -> Gpu | None:
        """The GPU whose key, name or alias is ``name`` (ignoring case, spaces and dashes)."""
        wanted = _normalise(name)
        for gpu in self.gpus.values():
            if wanted in {_normalise(n) for n in (gpu.key, gpu.name, *gpu.aliases)}:
                return gpu
        return None


def _normalise(name: str) -> str:
    return re.sub(r"[\s_-]+", "", name).lower()


@functools.cache
def load_registry(path: Path = REGISTRY) -> Registry:
    with open(path, "rb") as stream:
        data = tomllib.load(stream)
    metrics = {
        key: Metric(key, spec["unit"], spec["label"]) for key, spec in data["metrics"].items()
    }
    gpus = {}
    for key, spec in data["gpus"].items():
        gpus[key] = Gpu(
            key=key,
            name=spec["name"],
            aliases=tuple(spec.get("aliases", ())),
            peaks={m: float(spec[m]) for m in metrics if m in spec},
            source=spec["source"],
            clock_mhz=float(spec["clock_mhz"]) if "clock_mhz" in spec else None,
        )
    return Registry(metrics, gpus)


def convert(value: float, unit: str, to_unit: str) -> float:
    """``value`` in ``unit`` expressed in ``to_unit``; ValueError for unlike quantities."""
    (quantity, factor), (to_quantity, to_factor) = UNITS[unit], UNITS[to_unit]
    if quantity != to_quantity:
        raise ValueError(f"cannot compare {unit} with {to_unit}")
    return value * factor / to_factor


def format_number(value: float) -> str:
    """A peak as datasheets print it: 2250, 989.4, 1.792 (no trailing zeros)."""
    return f"{value:.3f}".rstrip("0").rstrip(".")
