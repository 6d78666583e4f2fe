"""Export-speed benchmark: ``tbkit export`` to Parquet against ``tbkit.read(L).scalars()``.

The logdir is bench/read.py's (S: 1M scalars; L: 10M scalars with ``--large``), written and
cached by it under ``/tmp/tbkit-bench``. Both sides run as fresh subprocesses (each pays the
same interpreter start and imports), ``--repeat`` times alternately; the best time of each is
kept. The goal: the export takes at most 2x the read (it reads the same frame, then writes it).

    python bench/export.py [--large] [--repeat 3] [--cache DIR] [--format parquet]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from read import ensure_logdir  # bench/read.py writes and caches the logdirs

READ = "import sys, tbkit; frame = tbkit.read(sys.argv[1]).scalars(); assert len(frame)"


def _timed(args: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", action="store_true", help="the 10M-scalar logdir L (default: S, 1M)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side (best kept)")
    parser.add_argument("--cache", default="/tmp/tbkit-bench", help="where bench/read.py caches its logdirs")
    parser.add_argument("--format", default="parquet", choices=["parquet", "csv", "json"])
    args = parser.parse_args()
    logdir = ensure_logdir(Path(args.cache), "L" if args.large else "S")
    size = sum(p.stat().st_size for p in logdir.rglob("*tfevents*")) / 1e6
    print(f"logdir {logdir} ({size:.0f} MB of event files)")
    read_times: list[float] = []
    export_times: dict[str, list[float]] = {"scalars": [], "all": []}  # --kinds scalars, and every kind
    out_root = Path(tempfile.mkdtemp(prefix="tbkit-export-bench-"))
    try:
        for i in range(args.repeat):
            read_times.append(_timed([sys.executable, "-c", READ, str(logdir)]))
            for kinds, times in export_times.items():
                out = out_root / f"{kinds}{i}"
                cmd = [sys.executable, "-m", "tbkit.cli", "export", "--logdir", str(logdir), "-o", str(out)]
                times.append(_timed([*cmd, "--format", args.format, "--kinds", kinds, "--no-progress"]))
                mb = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1e6
                print(f"  run {i + 1}: export --kinds {kinds} {times[-1]:.2f} s ({mb:.0f} MB written)")
            print(f"  run {i + 1}: read {read_times[-1]:.2f} s")
    finally:
        shutil.rmtree(out_root, ignore_errors=True)
    read_s = min(read_times)
    print(f"tbkit.read(logdir).scalars(): {read_s:.2f} s (best of {args.repeat})")
    for kinds, times in export_times.items():
        best = min(times)
        print(f"tbkit export --format {args.format} --kinds {kinds}: {best:.2f} s, ratio {best / read_s:.2f}")
    print("goal: ratio <= 2")


if __name__ == "__main__":
    main()
