"""Mixed-logdir benchmark: scalars, histograms and images read to DataFrames, tbkit and tbparse side by side.

The logdir M is written with tbkit's ``SummaryWriter`` (torch's record forms) and cached:
4 runs, each 10 histogram tags x 1,000 steps (100 float32 values, default bins), 1 image tag
x 1,000 steps (16x16 RGB PNG) and 4 scalar tags x 1,000 steps (40k histograms, 4k images, 16k
scalars in all; ``--scale`` multiplies the steps).

Each case runs in its own subprocess (its peak RSS is its own), fresh from the files:

* ``tbkit scalars``: ``tbkit.read(logdir).scalars()`` (the other kinds in the files are read
  past);
* ``tbkit all``: ``scalars()``, ``histograms()`` and ``images()`` of one ``tbkit.read(logdir)``;
* ``tbparse all``: ``SummaryReader(logdir, extra_columns={"dir_name", "wall_time"})``'s
  ``.scalars``, ``.histograms`` and ``.images``;
* ``bytes``: the limit, reading every event file's bytes (nothing decoded).

Usage: ``python bench/mixed.py [--scale 1.0] [--repeat 3] [--cache DIR] [--cases ...]``; prints
the best time of ``--repeat`` runs of each case, its peak RSS, its CPU seconds (user and
system: on a shared machine the wall time also counts the waits for a core), the seconds of
each of ``tbkit all``'s calls, and tbkit's ratios to tbparse.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CASES = ["tbkit_scalars", "tbkit_all", "tbparse_all", "bytes"]
RUNS, HIST_TAGS, SCALAR_TAGS = 4, 10, 4


def ensure_logdir(cache: Path, steps: int) -> Path:
    """The logdir M with ``steps`` steps under ``cache``, written now unless a complete copy is there."""
    logdir = cache / f"mixed-{RUNS}x{steps}"
    if (logdir / ".complete").exists():
        return logdir
    import numpy as np

    import tbkit

    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (3, 16, 16), dtype=np.uint8)
    for run in range(RUNS):
        with tbkit.SummaryWriter(str(logdir / f"run{run}"), flush_secs=30) as w:
            for step in range(steps):
                for tag in range(HIST_TAGS):
                    w.add_histogram(f"weights/{tag}", rng.normal(size=100).astype(np.float32), step)
                w.add_image("sample", image, step)
                for tag in range(SCALAR_TAGS):
                    w.add_scalar(f"loss/{tag}", float(rng.random()), step)
    (logdir / ".complete").touch()
    return logdir


def _peak_rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _cpu_seconds() -> tuple[float, float]:
    """This process's user and system CPU seconds so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def _case(case: str, logdir: str, split: dict[str, float]) -> int:
    """Run ``case`` on ``logdir``; the number of rows it produced (``tbkit_all`` puts the
    seconds of each of its calls in ``split``)."""
    if case == "tbkit_scalars":
        import tbkit

        return len(tbkit.read(logdir).scalars())
    if case == "tbkit_all":
        import tbkit

        ld = tbkit.read(logdir)
        rows = 0
        for kind in ("scalars", "histograms", "images"):
            start = time.perf_counter()
            rows += len(getattr(ld, kind)())
            split[kind] = time.perf_counter() - start
        return rows
    if case == "tbparse_all":
        from tbparse import SummaryReader

        reader = SummaryReader(logdir, extra_columns={"dir_name", "wall_time"})
        return len(reader.scalars) + len(reader.histograms) + len(reader.images)
    total = 0
    for path in sorted(Path(logdir).rglob("*tfevents*")):
        total += len(path.read_bytes())
    return total


def worker(case: str, logdir: str) -> None:
    """Time ``case`` once and print one JSON line: seconds, rows, peak RSS, CPU seconds (user,
    system) and, for ``tbkit_all``, the seconds of each call."""
    import pandas  # noqa: F401 - imported by every case; not timed

    split: dict[str, float] = {}
    user, system = _cpu_seconds()
    start = time.perf_counter()
    rows = _case(case, logdir, split)
    seconds = time.perf_counter() - start
    cpu = [after - before for after, before in zip(_cpu_seconds(), (user, system), strict=True)]
    result = {"seconds": seconds, "rows": rows, "rss_mb": _peak_rss_mb(), "cpu": cpu, "split": split}
    print("RESULT " + json.dumps(result), flush=True)


def run_case(case: str, logdir: Path) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--worker", case, str(logdir)],
        capture_output=True,
        text=True,
        check=True,
    )
    line = next(x for x in out.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT ") :])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tbkit-bench"))
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the 1,000 steps per run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per case; the best is shown")
    parser.add_argument("--cases", default=",".join(CASES), help=f"from {CASES}")
    parser.add_argument("--worker", nargs=2, metavar=("CASE", "LOGDIR"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(*args.worker)
        return 0
    logdir = ensure_logdir(Path(args.cache), max(1, int(1_000 * args.scale)))
    size = sum(p.stat().st_size for p in logdir.rglob("*tfevents*")) / 1e6
    print(f"logdir M: {logdir} ({size:.0f} MB)")
    results: dict[str, dict[str, Any]] = {}
    for case in args.cases.split(","):
        runs = [run_case(case, logdir) for _ in range(args.repeat)]
        results[case] = min(runs, key=lambda r: r["seconds"])
        best = results[case]
        rss, (user, system) = best["rss_mb"], best["cpu"]
        split = "".join(f"  {kind} {seconds:.3f}" for kind, seconds in best["split"].items())
        print(
            f"{case:<14} {best['seconds']:8.3f} s  rows {best['rows']:>10,}  peak RSS {rss:7.0f} MB"
            f"  cpu user {user:.2f} sys {system:.2f}{split}"
        )
    peer = results.get("tbparse_all")
    if peer:
        for case in ("tbkit_scalars", "tbkit_all"):
            if case in results:
                ours = results[case]
                cpu = sum(peer["cpu"]) / sum(ours["cpu"])
                wall = peer["seconds"] / ours["seconds"]
                print(f"tbparse_all / {case}: {wall:.1f}x (CPU seconds: {cpu:.1f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
