"""Load benchmark: ``tbkit serve`` and ``tensorboard --logdir`` under concurrent clients.

Both servers serve the same logdir of a few million scalars (``--runs`` x ``--tags`` x
``--steps``, written by bench/read.py's generator and cached). Once a server has read it
all, ``--clients`` threads (default 50), each with its own keep-alive connection, cycle for
``--seconds`` (default 30) through the main JSON routes: the run list, the scalar tag list,
and one tag of one run's points (each server's own form of that request). Printed per
server: p50 and p99 latency, requests per second, the error rate, and the server's RSS over
the run (at the start, the peak, at the end). Then three probes of the front:

* slowloris: ``--idle`` connections (default 200) that send half a request and stall; with
  them open, how long a fresh ``/data/runs`` takes to answer (or that it did not, in 30 s);
* an oversized POST body: the status and time of the answer (413 expected);
* an oversized header: the status and time of the answer (431 expected).

Both servers run side by side in one invocation and the ratios are printed last. The client
is this one Python process; on a 2-core machine it competes with the server for the CPU,
which it does alike for both.

Usage: ``python bench/load.py [--seconds 30] [--clients 50] [--runs 20 --tags 10 --steps 10000]
[--tools tbkit,tensorboard] [--cache DIR]``
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import importlib.util
import random
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"tbkit_bench_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


serve_bench = _module("serve")
read_bench = _module("read")


def _rss_mb(pid: int) -> float:
    """The current RSS of ``pid`` and its children, MB."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
        todo.extend(serve_bench._children(p))
    return total / 1024


def _paths(server: Any, runs: list[str], tags: list[str]) -> list[str]:
    """The request paths the clients cycle through: list runs, list tags, one series."""
    paths = ["/data/runs", "/data/plugin/scalars/tags"]
    rng = random.Random(0)
    for _ in range(30):
        run, tag = rng.choice(runs), rng.choice(tags)
        tb = server.tool.startswith("tensorboard")
        query = f"run={run}&tag={tag}" if tb else f"tag={tag}&runs={run}"
        paths.append("/data/plugin/scalars/scalars?" + query.replace("/", "%2F"))
    return paths


def _client(port: int, paths: list[str], until: float, out: list[tuple[float, bool]], seed: int) -> None:
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while time.monotonic() < until:
        path = rng.choice(paths)
        start = time.monotonic()
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            ok = resp.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        out.append((time.monotonic() - start, ok))
    conn.close()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def load(server: Any, paths: list[str], clients: int, seconds: float) -> dict[str, float]:
    """Run the clients; latency percentiles (ms), rate, error share and RSS figures."""
    results: list[list[tuple[float, bool]]] = [[] for _ in range(clients)]
    rss = [_rss_mb(server.proc.pid)]
    until = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_client, args=(server.port, paths, until, out, i))
        for i, out in enumerate(results)
    ]
    for thread in threads:
        thread.start()
    while time.monotonic() < until:
        time.sleep(1.0)
        rss.append(_rss_mb(server.proc.pid))
    for thread in threads:
        thread.join()
    rss.append(_rss_mb(server.proc.pid))
    done = [r for one in results for r in one]
    latencies = [t for t, _ in done]
    errors = sum(1 for _, ok in done if not ok)
    return {
        "p50_ms": _percentile(latencies, 0.50) * 1e3,
        "p99_ms": _percentile(latencies, 0.99) * 1e3,
        "rps": len(done) / seconds,
        "errors_pct": 100 * errors / max(len(done), 1),
        "rss_start": rss[0],
        "rss_peak": max(rss),
        "rss_end": rss[-1],
    }


def slowloris(server: Any, idle: int) -> float:
    """Seconds a fresh ``/data/runs`` takes with ``idle`` stalled half-requests open (inf: none in 30 s)."""
    stalled = []
    try:
        for _ in range(idle):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
            s.sendall(b"GET /data/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the blank line
            stalled.append(s)
        start = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        try:
            conn.request("GET", "/data/runs")
            conn.getresponse().read()
            return time.monotonic() - start
        except (OSError, http.client.HTTPException):
            return float("inf")
        finally:
            conn.close()
    except OSError:
        return float("inf")  # refused even the idle connections
    finally:
        for s in stalled:
            s.close()


def oversized(server: Any, what: str) -> tuple[int | str, float]:
    """(status, seconds) of a request with a 64 MB body (``body``) or a 256 KB header (``header``)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    start = time.monotonic()
    try:
        if what == "body":
            conn.putrequest("POST", "/data/plugin/scalars/scalars")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(64 << 20))
            conn.endheaders()
            with contextlib.suppress(OSError):  # the server may answer (and close) before the rest
                conn.send(b"[" * (1 << 20))
        else:
            conn.putrequest("GET", "/data/runs")
            conn.putheader("X-Padding", "a" * (256 << 10))
            conn.endheaders()
        resp = conn.getresponse()
        resp.read()
        return resp.status, time.monotonic() - start
    except (OSError, http.client.HTTPException) as err:
        return type(err).__name__, time.monotonic() - start
    finally:
        conn.close()


def run_tool(tool: str, logdir: Path, spec: dict[str, int], args: argparse.Namespace, work: Path) -> dict:
    server = serve_bench.Server(tool, logdir, work)
    try:
        runs = [f"run_{r:02d}" for r in range(spec["runs"])]
        tags = [f"group_{t % 3}/metric_{t}" for t in range(spec["tags"])]

        def loaded() -> bool:
            names, pairs = serve_bench.listing(server)
            if len(names) < len(runs) or pairs < len(runs) * len(tags):
                return False
            last = serve_bench.tag_data(server, tags[-1], runs)
            return len(last) == len(runs) and all(v == spec["steps"] - 1 for v in last.values())

        loaded_s = serve_bench.wait_for("every point", server, loaded, timeout=900, pause=0.5)
        figures: dict[str, Any] = {"loaded_s": loaded_s}
        figures.update(load(server, _paths(server, runs, tags), args.clients, args.seconds))
        figures["slowloris_s"] = slowloris(server, args.idle)
        figures["body"] = oversized(server, "body")
        figures["header"] = oversized(server, "header")
        return figures
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--idle", type=int, default=200, help="stalled connections of the slowloris probe")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--tags", type=int, default=10)
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--tools", default="tbkit,tensorboard")
    parser.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "tbkit-bench"))
    args = parser.parse_args()
    spec = {"runs": args.runs, "tags": args.tags, "steps": args.steps}
    cache = Path(args.cache)
    logdir = read_bench.write_scalar_logdir(cache / f"load-{args.runs}x{args.tags}x{args.steps}", spec)
    print(
        f"logdir: {args.runs} runs x {args.tags} tags x {args.steps} steps "
        f"= {args.runs * args.tags * args.steps:,} scalars; {args.clients} clients for {args.seconds:.0f} s",
        flush=True,
    )
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-load-") as work:
        for tool in args.tools.split(","):
            results[tool] = run_tool(tool, logdir, spec, args, Path(work))
            r = results[tool]
            print(
                f"{tool:<12} loaded {r['loaded_s']:6.1f} s | p50 {r['p50_ms']:7.1f} ms"
                f"  p99 {r['p99_ms']:8.1f} ms"
                f"  {r['rps']:7.1f} req/s  errors {r['errors_pct']:5.2f}% | RSS MB start {r['rss_start']:.0f}"
                f" peak {r['rss_peak']:.0f} end {r['rss_end']:.0f} | slowloris {r['slowloris_s']:.3f} s"
                f" | 64 MB body {r['body'][0]} in {r['body'][1]:.3f} s | 256 KB header {r['header'][0]}"
                f" in {r['header'][1]:.3f} s",
                flush=True,
            )
    if "tbkit" in results and "tensorboard" in results:
        t, b = results["tbkit"], results["tensorboard"]
        print(
            f"TensorBoard/tbkit: p50 {b['p50_ms'] / t['p50_ms']:.1f}x, p99 {b['p99_ms'] / t['p99_ms']:.1f}x, "
            f"throughput tbkit/TensorBoard {t['rps'] / b['rps']:.1f}x, peak RSS TensorBoard/tbkit "
            f"{b['rss_peak'] / t['rss_peak']:.1f}x"
        )


if __name__ == "__main__":
    main()
