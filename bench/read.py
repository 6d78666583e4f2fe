"""Read-speed benchmark: every scalar of a logdir into memory, tbkit and its peers side by side.

Two logdirs are written with tbkit's ``SummaryWriter`` and cached (regenerated when missing):

* S: 4 runs x 10 tags x 25,000 steps (1M scalars, about 54 MB);
* L: 20 runs x 25 tags x 20,000 steps (10M scalars), with ``--large``;
* R: 2,000 runs x 5 tags x 100 steps (many small runs: the fixed cost per run), with ``--sizes R``.

Before the first tool, every event file of the logdir is read once (the ``bytes`` tool's read,
untimed), so that each tool finds it in the page cache alike (this machine's kernel lets
cached files go between sittings: the first tool to read a cold logdir paid for the disk
alone). Each tool then reads all scalars of the logdir into memory, in its own subprocess so
that its peak RSS (``VmHWM``) is its own:

* ``tbkit``: ``tbkit.read(logdir).scalars()``, once per reader path of ``--paths``: ``native``
  (the compiled core, ``TBKIT_NATIVE=1``) and ``python`` (pure Python, ``TBKIT_NATIVE=0``);
* ``tbparse``: ``SummaryReader(logdir, extra_columns={"dir_name", "wall_time"}).scalars``, or its
  ``.tensors`` when that is empty (``.scalars`` holds only TF1 ``simple_value`` scalars, what
  tbkit's ``add_scalar`` writes by default; tensor-form scalars land in ``.tensors``);
* ``accumulator``: TensorBoard's ``plugin_event_accumulator.EventAccumulator`` per run, nothing
  dropped (size guidance 0), rows gathered into a DataFrame (TensorBoard as installed: with
  TensorFlow present it reads through TensorFlow's record reader);
* ``accumulator_notf``: the same with TensorBoard's TensorFlow-free stub (pure-Python CRC; not
  in the default tool list);
* ``rustboard``: TensorBoard's Rust data server (``tensorboard_data_server``) on 127.0.0.1 with
  ``--reload once --samples-per-plugin scalars=all``, polled through TensorBoard's gRPC
  data-provider client until every series is loaded, then read in full; its time runs from
  the server's start to the DataFrame; its RSS is the client's plus the server's;
* ``tbkit_tag``: ``tbkit.read(logdir, tags=["group_0/metric_0"]).scalars()``, one tag of the
  logdir (compiled core; not in the default list);
* ``rustboard_load``: the same server's load alone (until every series is listed to its last
  step, nothing read back): TensorBoard's figure for a logdir's load (not in the default list);
* ``bytes``: the limit, reading every event file's bytes into memory (nothing decoded).

With ``tbkit_tag``, the last line gives its time as a share of the first tbkit path's, and its
CPU time (the worker's threads together) as a share of that path's: on a shared machine the
CPU times move less than the wall times.

With ``--repeat N`` every tool runs N times, round after round (each round every tool in
turn, so that all meet the machine's load alike); the table gives each tool's median run
and the times of all rounds follow it. A single run of a 0.3 s read on a shared 2-core
machine moves by a third from one run to the next.

Usage: ``python bench/read.py [--large | --sizes S,L,R] [--tools tbkit,rustboard,bytes]
[--paths native,python] [--repeat N] [--cache DIR] [--timeout SECS]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SIZES = {
    "S": {"runs": 4, "tags": 10, "steps": 25_000},
    "L": {"runs": 20, "tags": 25, "steps": 20_000},
    "R": {"runs": 2_000, "tags": 5, "steps": 100},
}
TOOLS = ["tbkit", "tbparse", "accumulator", "rustboard", "bytes"]
PATHS = {"native": "1", "python": "0"}  # tbkit's reader paths and their TBKIT_NATIVE
EXTRA_TOOLS = ["accumulator_notf", "rustboard_load", "tbkit_tag"]
WALL0 = 1_700_000_000.0


# -- the logdirs ---------------------------------------------------------------------------------


def ensure_logdir(cache: Path, size: str) -> Path:
    """The logdir of ``size`` under ``cache``, written now unless a complete copy is there."""
    spec = SIZES[size]
    return write_scalar_logdir(cache / f"read-{size}-{spec['runs']}x{spec['tags']}x{spec['steps']}", spec)


def write_scalar_logdir(logdir: Path, spec: dict, run_name: str = "run_{:02d}") -> Path:
    """``spec``'s runs x tags x steps of scalars in ``logdir``, unless a complete copy is there."""
    marker = logdir / ".complete"
    if marker.exists():
        return logdir
    if logdir.exists():
        shutil.rmtree(logdir)
    import tbkit

    start = time.perf_counter()
    tags = [f"group_{t % 3}/metric_{t}" for t in range(spec["tags"])]
    for r in range(spec["runs"]):
        with tbkit.SummaryWriter(str(logdir / run_name.format(r)), max_queue=100_000) as writer:
            add = writer.add_scalar
            for step in range(spec["steps"]):
                wall = WALL0 + step * 0.01
                for t, tag in enumerate(tags):
                    add(tag, 1.0 / (1 + step) + t + r * 0.001, step, walltime=wall)
    marker.write_text(json.dumps(spec))
    size_mb = sum(p.stat().st_size for p in logdir.rglob("*tfevents*")) / 1e6
    print(f"wrote {logdir} ({size_mb:.0f} MB) in {time.perf_counter() - start:.0f} s", flush=True)
    return logdir


# -- the workers (each runs in its own subprocess) ----------------------------------------------


def _peak_rss_mb(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _read_tbkit(logdir: str, spec: dict) -> Any:
    import tbkit

    return tbkit.read(logdir).scalars()


def _read_tbkit_tag(logdir: str, spec: dict) -> Any:
    import tbkit

    return tbkit.read(logdir, tags=["group_0/metric_0"]).scalars()


def _read_bytes(logdir: str, spec: dict) -> Any:
    import pandas as pd

    sizes = []
    for path in sorted(Path(logdir).rglob("*tfevents*")):
        with open(path, "rb") as f:
            sizes.append(len(f.read()))
    return pd.DataFrame({"bytes": sizes})


def _read_tbparse(logdir: str, spec: dict) -> Any:
    from tbparse import SummaryReader

    # tbparse's ``.scalars`` holds TF1 ``simple_value`` scalars only (what tbkit's add_scalar
    # writes by default); tensor-form scalars (TF2, torch's new_style) are in ``.tensors``.
    reader = SummaryReader(logdir, extra_columns={"dir_name", "wall_time"})
    frame = reader.scalars
    return frame if len(frame) else reader.tensors


def _read_accumulator(logdir: str, spec: dict) -> Any:
    import numpy as np
    import pandas as pd
    from tensorboard.backend.event_processing import plugin_event_accumulator as pea
    from tensorboard.util import tensor_util

    cols: dict[str, list] = {"run": [], "tag": [], "step": [], "wall_time": [], "value": []}
    for run_dir in sorted(p.parent for p in Path(logdir).rglob("*tfevents*")):
        acc = pea.EventAccumulator(str(run_dir), size_guidance={pea.TENSORS: 0})
        acc.Reload()
        run = os.path.relpath(run_dir, logdir)
        for tag in acc.Tags()[pea.TENSORS]:
            if acc.SummaryMetadata(tag).plugin_data.plugin_name != "scalars":
                continue
            events = acc.Tensors(tag)
            cols["run"].extend([run] * len(events))
            cols["tag"].extend([tag] * len(events))
            cols["step"].extend(e.step for e in events)
            cols["wall_time"].extend(e.wall_time for e in events)
            cols["value"].extend(float(tensor_util.make_ndarray(e.tensor_proto)) for e in events)
    frame = pd.DataFrame(cols)
    frame["value"] = frame["value"].astype(np.float64)
    return frame


def _read_accumulator_notf(logdir: str, spec: dict) -> Any:
    import types

    sys.modules["tensorboard.compat.notf"] = types.ModuleType("tensorboard.compat.notf")
    return _read_accumulator(logdir, spec)


def _read_rustboard_load(logdir: str, spec: dict) -> Any:
    return _read_rustboard(logdir, spec, load_only=True)


def _read_rustboard(logdir: str, spec: dict, load_only: bool = False) -> Any:
    import grpc
    import pandas as pd
    import tensorboard_data_server
    from tensorboard.context import RequestContext
    from tensorboard.data import grpc_provider, provider

    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        args = [
            tensorboard_data_server.server_binary(),
            f"--logdir={logdir}",
            "--reload=once",
            "--samples-per-plugin=scalars=all",
            "--host=127.0.0.1",
            "--port=0",
            f"--port-file={port_file}",
            "--die-after-stdin",
        ]
        server = subprocess.Popen(args, stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not port_file.exists() or not port_file.read_text().endswith("\n"):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"data server did not start (exit code {server.poll()})")
                time.sleep(0.02)
            addr = f"127.0.0.1:{int(port_file.read_text())}"
            channel = grpc.insecure_channel(addr, options=[("grpc.max_receive_message_length", 2**31 - 1)])
            data = grpc_provider.GrpcDataProvider(addr, grpc_provider.make_stub(channel))
            ctx = RequestContext()
            want = spec["runs"] * spec["tags"]
            while True:  # loaded when every series reaches its last step
                listing = data.list_scalars(ctx, experiment_id="", plugin_name="scalars")
                done = [
                    ts
                    for tags in listing.values()
                    for ts in tags.values()
                    if ts.max_step == spec["steps"] - 1
                ]
                if len(done) == want:
                    break
                if server.poll() is not None:
                    raise RuntimeError("data server exited while loading")
                time.sleep(0.05)
            if load_only:  # the data server's load alone: every series listed to its last step
                frame = pd.DataFrame({"series": [ts.max_step for ts in done]})
                frame.attrs["server_rss_mb"] = _peak_rss_mb(server.pid)
                channel.close()
                return frame
            cols: dict[str, list] = {"run": [], "tag": [], "step": [], "wall_time": [], "value": []}
            for run in sorted(listing):  # one request per run keeps each answer well under 2 GiB
                result = data.read_scalars(
                    ctx,
                    experiment_id="",
                    plugin_name="scalars",
                    downsample=spec["steps"] * 2,
                    run_tag_filter=provider.RunTagFilter(runs=[run]),
                )
                for tag, series in result.get(run, {}).items():
                    cols["run"].extend([run] * len(series))
                    cols["tag"].extend([tag] * len(series))
                    cols["step"].extend(p.step for p in series)
                    cols["wall_time"].extend(p.wall_time for p in series)
                    cols["value"].extend(p.value for p in series)
            frame = pd.DataFrame(cols)
            frame.attrs["server_rss_mb"] = _peak_rss_mb(server.pid)
            channel.close()
            return frame
        finally:
            if server.poll() is None:
                server.stdin.close()
                server.terminate()
                try:
                    server.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


READERS = {
    "tbkit": _read_tbkit,
    "tbkit_tag": _read_tbkit_tag,
    "tbparse": _read_tbparse,
    "accumulator": _read_accumulator,
    "accumulator_notf": _read_accumulator_notf,
    "rustboard": _read_rustboard,
    "rustboard_load": _read_rustboard_load,
    "bytes": _read_bytes,
}


def worker(tool: str, logdir: str, spec: dict) -> None:
    """Read all scalars with ``tool``, print one JSON line: seconds, rows, frame bytes, peak RSS."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import pandas  # noqa: F401 - every tool builds a DataFrame; its import is not timed

    if tool.startswith("tbkit"):  # tbkit and tbkit_tag alike: the import is not timed
        from tbkit.record import native

        native.core()  # TBKIT_NATIVE=1 and no compiled core: fail here, not halfway
    start, cpu = time.perf_counter(), time.process_time()
    frame = READERS[tool](logdir, spec)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    rss = _peak_rss_mb() + frame.attrs.get("server_rss_mb", 0.0)
    out = {
        "seconds": seconds,
        "cpu_seconds": cpu,  # the worker's threads together (a server's, for rustboard, not counted)
        "rows": len(frame),
        "df_bytes": int(frame.memory_usage(deep=True).sum()),
        "rss_mb": rss,
    }
    print("RESULT " + json.dumps(out), flush=True)


# -- the driver ----------------------------------------------------------------------------------


def run_tool(tool: str, logdir: Path, spec: dict, timeout: float, env: dict | None = None) -> dict:
    """Run one tool's worker in a subprocess, bounded by ``timeout`` seconds."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", tool, str(logdir), json.dumps(spec)]
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env={**os.environ, **(env or {})},
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the worker's own process group: it and any server it started
        proc.communicate()
        return {"error": f"timeout after {timeout:.0f} s"}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    tail = (err or out).strip().splitlines()[-3:]
    return {"error": f"exit {proc.returncode}: {' | '.join(tail)}"}


def _median_run(found: list[dict]) -> dict:
    """The run of median seconds among a tool's runs (the lower middle one of an even count), or
    the first error if any run failed."""
    errors = [r for r in found if "error" in r]
    if errors:
        return errors[0]
    ranked = sorted(found, key=lambda r: r["seconds"])
    return ranked[(len(ranked) - 1) // 2]


def report(size: str, results: dict[str, dict], *, large: bool) -> None:
    """Print the table: tool, seconds, ratio vs tbkit, peak RSS, rows (and frame size on L).

    The base is tbkit's first path (``tbkit[native]`` by default); then each tbkit path
    against every peer and against reading the bytes.
    """
    tbkits = [t for t in results if t.startswith("tbkit") and "error" not in results[t]]
    base = results[tbkits[0]]["seconds"] if tbkits else None
    head = f"{'tool':<18}{'seconds':>10}{'x tbkit':>10}{'peak RSS MB':>13}{'rows':>12}"
    if large:
        head += f"{'df MB':>9}{'RSS/df':>8}"
    print(f"\n== {size}: {SIZES[size]} ==\n{head}")
    for tool, res in results.items():
        if "error" in res:
            print(f"{tool:<18}{res['error']}")
            continue
        ratio = f"{res['seconds'] / base:.2f}" if base else "-"
        line = f"{tool:<18}{res['seconds']:>10.2f}{ratio:>10}{res['rss_mb']:>13.0f}{res['rows']:>12,}"
        if large and tool != "bytes":  # its frame is a list of file sizes
            df_mb = res["df_bytes"] / 2**20
            line += f"{df_mb:>9.0f}{res['rss_mb'] / df_mb:>8.2f}"
        print(line)
    base_name = tbkits[0] if tbkits else "tbkit"
    print(
        f"x tbkit: seconds relative to {base_name} (higher = tbkit faster). rustboard's RSS: client + server."
    )
    for name in tbkits:
        mine = results[name]["seconds"]
        for tool, res in results.items():
            if tool.startswith("tbkit") or "error" in res:
                continue
            if tool == "bytes":
                print(f"{name}: {mine / res['seconds']:.1f}x the time to read the bytes")
            else:
                print(f"{name}: {res['seconds'] / mine:.2f}x faster than {tool}")
    tag = results.get("tbkit_tag")
    full = [results[n] for n in tbkits if n.startswith("tbkit[")]
    if tag and "error" not in tag and full:
        share = 100 * tag["seconds"] / full[0]["seconds"]
        mine, theirs = tag["cpu_seconds"], full[0]["cpu_seconds"]
        print(
            f"tbkit_tag: one tag in {share:.0f}% of the time of a full read"
            f" ({100 * mine / theirs:.0f}% of its CPU time: {mine:.2f} s against {theirs:.2f} s)"
        )


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, make the logdirs, run each tool, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "tbkit-bench"))
    parser.add_argument("--large", action="store_true", help="also run L (10M scalars)")
    parser.add_argument("--only-large", action="store_true", help="run L only")
    parser.add_argument("--sizes", help="the logdirs to read, e.g. S,R (overrides --large/--only-large)")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"from {TOOLS + EXTRA_TOOLS}")
    parser.add_argument("--paths", default=",".join(PATHS), help=f"tbkit's reader paths, from {list(PATHS)}")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per tool run")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of every tool, each tool's median run reported (odd: a real run)",
    )
    parser.add_argument("--worker", nargs=3, metavar=("TOOL", "LOGDIR", "SPEC"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1], json.loads(args.worker[2]))
        return 0
    tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = sorted(set(tools) - set(READERS))
    if unknown:
        parser.error(f"unknown tools {unknown}; choose from {TOOLS + EXTRA_TOOLS}")
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    if not paths or set(paths) - set(PATHS):
        parser.error(f"--paths: choose from {list(PATHS)}")
    runs: list[tuple[str, str, dict]] = []  # (name in the table, tool, environment)
    for tool in tools:
        if tool == "tbkit":
            runs.extend((f"tbkit[{p}]", tool, {"TBKIT_NATIVE": PATHS[p]}) for p in paths)
        else:
            runs.append((tool, tool, {}))
    sizes = ["L"] if args.only_large else (["S", "L"] if args.large else ["S"])
    if args.sizes:
        sizes = [x.strip() for x in args.sizes.split(",") if x.strip()]
        if set(sizes) - set(SIZES):
            parser.error(f"--sizes: choose from {list(SIZES)}")
    for size in sizes:
        logdir = ensure_logdir(Path(args.cache), size)
        _read_bytes(str(logdir), SIZES[size])  # untimed: every tool finds the files cached alike
        tries: dict[str, list[dict]] = {name: [] for name, _, _ in runs}
        for _ in range(args.repeat):  # the tools in turn, round after round: all meet the load alike
            for name, tool, env in runs:
                tries[name].append(run_tool(tool, logdir, SIZES[size], args.timeout, env))
                print(f"  {name}: {tries[name][-1]}", flush=True)
        results = {name: _median_run(found) for name, found in tries.items()}
        report(size, results, large=size == "L")
        if args.repeat > 1:
            print(f"times of the {args.repeat} rounds (the table gives each tool's median run):")
            for name, found in tries.items():
                print(
                    f"  {name:<16}"
                    + " ".join(f"{r['seconds']:.2f}" if "error" not in r else "error" for r in found)
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
