"""Distributed-read benchmark: 2,000 small runs read by Dask on 2 workers against one process.

The logdir is bench/read.py's R (2,000 runs x 5 tags x 100 steps, 1M scalars, written with
tbkit's ``SummaryWriter`` and cached under ``--cache``). Timed, each ``--repeat`` times (the
median is printed):

* one process: ``tbkit.read(logdir).scalars()`` in a fresh subprocess (its imports of pandas
  and tbkit, and the compiled core's load, before the clock starts, as in bench/read.py: the
  Dask caller has them too), the whole frame in memory;
* Dask: ``tbkit.read_dask(logdir).compute()`` on a ``dask.distributed`` ``LocalCluster``
  (``n_workers=2, threads_per_worker=1``, worker processes, 127.0.0.1), the cluster started and
  its workers warmed before the clock starts (each has read one run: imports and first calls;
  and two runs were read through Dask in two partitions, so that the caller and each worker
  have imported what a task needs); the time covers the caller's discovery, building the
  graph, the workers' reads and gathering the frame. The partitions are ``read_dask``'s
  default (runs grouped by bytes, at least one partition a worker thread: 2 here) unless
  ``--runs-per-partition`` says otherwise.

With ``--groupby`` both sides compute each tag's mean value instead (``groupby("tag")`` of the
frame; Dask's on the cluster, so that only the five means come back to the caller). With
``--persist`` the Dask side reads the frame into the cluster's memory
(``client.persist(frame)``, waited for: the partitions held by the workers, as a Dask user
reads before computing on them), nothing gathered to the caller; the one process reads the
whole frame into its memory, as without options. The row count and the sum of values are
then computed on the cluster, after the clock, for the check.

The two are timed alternately (one process, then Dask, ``--repeat`` times), so that both meet
the machine's load alike. Both frames are checked equal (row count and the sum of values)
before the ratio is printed, with each side's times and the machine's load average (1 minute)
before and after: with other work on the cores, neither side's figure means much.

Usage::

    python bench/dask_read.py [--cache DIR] [--repeat 3] [--runs-per-partition N] [--groupby | --persist]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ONE_PROCESS = """
import json, sys, time
import pandas  # imported before the clock, as the Dask caller has it
import tbkit
from tbkit.record import native
native.core()  # the compiled core loaded, as bench/read.py does
t0 = time.perf_counter()
frame = tbkit.read(sys.argv[1]).scalars()
if sys.argv[2] == "groupby":
    frame = frame.groupby("tag", observed=True)["value"].mean().reset_index()
seconds = time.perf_counter() - t0
print(json.dumps({"seconds": seconds, "rows": len(frame), "sum": float(frame["value"].sum())}))
"""


def one_process(logdir: Path, what: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", ONE_PROCESS, str(logdir), what], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def _warm(logdir: str) -> None:
    import tbkit

    tbkit.read(logdir, runs=["run_00"]).scalars()


def _mean_by_tag(frame: object) -> object:
    """Each tag's mean value, as the one-process side computes it (a lazy Dask frame here)."""
    return frame.groupby("tag", observed=True)["value"].mean().reset_index()  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tbkit-bench"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--runs-per-partition", type=int, default=None)
    parser.add_argument(
        "--groupby",
        action="store_true",
        help="both sides compute each tag's mean value instead of the whole frame (Dask: on the cluster)",
    )
    parser.add_argument(
        "--persist",
        action="store_true",
        help="Dask reads the frame into the workers' memory (persist), nothing gathered to the caller",
    )
    args = parser.parse_args()
    if args.groupby and args.persist:
        parser.error("--groupby and --persist: one or the other")

    from read import ensure_logdir  # bench/read.py's cached logdirs

    logdir = ensure_logdir(Path(args.cache), "R")
    load_before = os.getloadavg()[0]
    import dask
    import distributed

    import tbkit

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    client = distributed.Client(cluster)
    try:
        client.run(_warm, str(logdir))  # each worker has read a run (imports, first calls) before the clock
        # and a partition each through Dask: the caller and both workers have imported what it needs
        warm = tbkit.read_dask(str(logdir), runs=["run_00", "run_01"], runs_per_partition=1)
        (_mean_by_tag(warm) if args.groupby else warm).compute()
        what = "groupby" if args.groupby else "frame"
        singles, times, rows, total = [], [], 0, 0.0
        for _ in range(args.repeat):  # alternately, so that both meet the machine's load alike
            singles.append(one_process(logdir, what))
            t0 = time.perf_counter()
            dask_frame = tbkit.read_dask(str(logdir), runs_per_partition=args.runs_per_partition)
            if args.persist:
                held = client.persist(dask_frame)
                distributed.wait(held)
                times.append(time.perf_counter() - t0)
                rows, total = dask.compute(held.shape[0], held["value"].sum())  # on the cluster
                del held  # the workers let the partitions go
                continue
            frame = (_mean_by_tag(dask_frame) if args.groupby else dask_frame).compute()
            times.append(time.perf_counter() - t0)
            rows, total = len(frame), float(frame["value"].sum())
        partitions = dask_frame.npartitions
    finally:
        client.close()
        cluster.close()
    single = statistics.median(s["seconds"] for s in singles)
    if rows != singles[0]["rows"] or abs(float(total) - singles[0]["sum"]) > 1e-6 * max(rows, 1):
        raise SystemExit(f"the frames differ: {rows} rows against {singles[0]['rows']}")
    distributed_s = statistics.median(times)
    result = "each tag's mean value" if args.groupby else "the whole frame"
    if args.persist:
        result += ", held by the workers (persist)"
    print(
        f"logdir R: 2,000 runs x 5 tags x 100 steps (1,000,000 scalars), median of {args.repeat};"
        f" {result} ({rows:,} rows)"
    )
    print(f"one process, tbkit.read().scalars(){'.groupby()' if args.groupby else ''}: {single:6.2f} s")
    print(f"Dask, 2 workers x 1 thread, {partitions} partitions:        {distributed_s:6.2f} s")
    print(f"one process / Dask: {single / distributed_s:.2f}x")
    print("times, one process:", " ".join(f"{s['seconds']:.2f}" for s in singles))
    print("times, Dask:       ", " ".join(f"{t:.2f}" for t in times))
    load_after = os.getloadavg()[0]
    print(f"load average (1 min): {load_before:.2f} before, {load_after:.2f} after, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
