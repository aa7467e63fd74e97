"""Sphinx's environment pickled and loaded again, kb's way and with each object pickled apart.

``kb serve`` pickles the environment after every build (a forked copy writes it) and its next
standby loads it again: at 10,000 posts both are on the way from one save to the next. kb's
part of it (:class:`kb.core.state.EnvState`) gives the pickle one object for each distinct
(word, count) pair of the related terms (its ``__getstate__``). This loads the environment a
site's build left (``serve_speed.py --keep`` leaves ``site-warm``) and times pickling it and
loading the bytes again, with that ``__getstate__`` and without, in alternation, in one
process, with the cycle collector off (as kb's environment writer and loader run):

    python benchmarks/environment_pickle.py SITE/_build/doctrees --rounds 7
"""

from __future__ import annotations

import argparse
import gc
import pickle
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from kb.core import state  # noqa: E402  (kb from this checkout)


def timed_round_trip(env) -> tuple[float, float, int]:
    """Seconds to pickle ``env``, seconds to load the bytes, and their size."""
    start = time.perf_counter()
    data = pickle.dumps(env, pickle.HIGHEST_PROTOCOL)
    dumped = time.perf_counter() - start
    start = time.perf_counter()
    pickle.loads(data)
    return dumped, time.perf_counter() - start, len(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("doctrees", type=Path, help="the doctree folder of a built site")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    gc.disable()
    env = pickle.loads((args.doctrees / "environment.pickle").read_bytes())
    shared = state.EnvState.__getstate__
    rows: dict[str, list[tuple[float, float, int]]] = {"kb": [], "apart": []}
    for number in range(args.rounds):
        for kind in ("kb", "apart") if number % 2 else ("apart", "kb"):
            if kind == "kb":
                state.EnvState.__getstate__ = shared  # type: ignore[method-assign]
            elif "__getstate__" in vars(state.EnvState):
                del state.EnvState.__getstate__  # each object pickled as itself
            rows[kind].append(timed_round_trip(env))
    state.EnvState.__getstate__ = shared  # type: ignore[method-assign]
    for kind, runs in rows.items():
        dump = statistics.median(run[0] for run in runs)
        load = statistics.median(run[1] for run in runs)
        size = runs[0][2] / 1e6
        print(f"{kind:6} {size:6.1f} MB  pickled in {dump:.3f} s, loaded in {load:.3f} s")
    pairs = list(zip(rows["kb"], rows["apart"], strict=True))
    print(
        f"paired: pickled in {statistics.median(a[0] / b[0] for a, b in pairs):.2f},"
        f" loaded in {statistics.median(a[1] / b[1] for a, b in pairs):.2f} of the time"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
