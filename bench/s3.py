"""Object-store benchmark: what reading and polling an S3 logdir costs in requests.

An S3-compatible server (moto's, served by werkzeug on 127.0.0.1, in this process) counts every
request it answers by kind (LIST, HEAD, GET, ranged GET, PUT). The logdir is the issue's:
``--runs`` runs (100), each with one event file (``--tags`` x ``--steps`` scalars) and a
checkpoint folder of ``--shards`` files (10 per run: 1,000 checkpoint files beside them). It is
written locally with tbkit's ``SummaryWriter`` and uploaded to ``s3://bench/logs``.

Printed:

1. first discovery (``tbkit.reader.discovery.discover`` with a fresh client) and a first full
   read (``tbkit.read(url).scalars()``): requests, and seconds against the same logdir on the
   local disk (the median of ``--repeat`` tries; the ratio S3/local), and the server's floor: the
   same prefix listed by boto3's paginator alone (moto answers a 1,000-key page in a few hundred
   milliseconds, in Python: that, not the client, sets an S3 discovery's time here);
2. an idle reload; "browser open": a reload of what ``tbkit serve`` reads through followed by
   the calls a page makes on each data change besides its charts (``/data/plugins_listing``
   and the profile and projector listings, answered from the reload's listing); a reload
   after one run's object grew (replaced by a longer one, as a
   writer that re-uploads does) and after one run got a new rolled object (as tbkit's writer
   to object storage does): requests each;
3. standby serving: ``tbkit serve --logdir s3://bench/logs --reload_interval R`` as a
   subprocess, left alone for ``--window`` seconds once its first load is over; requests
   counted, and scaled to one hour at that interval and at the default one (5 s). With
   ``--tensorboard``, TensorBoard side by side: ``tensorboard --load_fast=false`` on its
   TensorFlow-free stub (``import tensorflow`` made to fail, so its file system layer is the
   stub's boto3 S3 client, pointed at the server by ``S3_ENDPOINT``; TensorFlow's own S3
   support needs tensorflow-io, not installed here, and the Rust data server reads no S3).

Usage::

    python bench/s3.py [--runs 100] [--shards 10] [--window 60] [--interval 2] [--tensorboard]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

BUCKET = "bench"
URL = f"s3://{BUCKET}/logs"
CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}
# What a page asks on each data change besides the charts: its tabs, and the file-based dashboards' listings
BROWSER_CALLS = ("/data/plugins_listing", "/data/plugin/profile/traces", "/data/plugin/projector/embeddings")
TB_NOTF = (
    "import sys; sys.modules['tensorflow'] = None; sys.argv[0] = 'tensorboard';"
    " from tensorboard.main import run_main; run_main()"
)
KINDS = ("LIST", "HEAD", "GET", "RANGED_GET", "PUT")


class CountingS3:
    """moto's S3 app on ``127.0.0.1:<free port>``, recording each request's kind."""

    def __init__(self) -> None:
        from moto.server import DomainDispatcherApplication, create_backend_app
        from werkzeug.serving import make_server

        app = DomainDispatcherApplication(create_backend_app)
        self.kinds: list[str] = []
        self._lock = threading.Lock()

        def counting(environ: dict[str, Any], start_response: Any) -> Any:
            kind = _kind(environ)
            with self._lock:
                self.kinds.append(kind)
            return app(environ, start_response)

        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self._server = make_server("127.0.0.1", 0, counting, threaded=True)
        self.endpoint = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def mark(self) -> int:
        with self._lock:
            return len(self.kinds)

    def counts(self, since: int) -> Counter[str]:
        with self._lock:
            return Counter(self.kinds[since:])

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)


def _kind(environ: dict[str, Any]) -> str:
    method, path, query = (
        environ["REQUEST_METHOD"],
        environ.get("PATH_INFO", ""),
        environ.get("QUERY_STRING", ""),
    )
    if method == "GET":
        if "list-type" in query or "delimiter" in query or path.rstrip("/").count("/") <= 1:
            return "LIST"
        return "RANGED_GET" if environ.get("HTTP_RANGE") else "GET"
    return method


def write_logdir(root: Path, runs: int, shards: int, tags: int, steps: int) -> None:
    """``runs`` runs of ``tags`` x ``steps`` scalars, each with ``shards`` checkpoint files."""
    import tbkit

    for r in range(runs):
        run = root / f"run{r:03d}"
        with tbkit.SummaryWriter(str(run)) as writer:
            for step in range(steps):
                for t in range(tags):
                    writer.add_scalar(f"metric_{t}", float(step * t), step)
        (run / "checkpoints").mkdir()
        for c in range(shards):
            (run / "checkpoints" / f"shard-{c:05d}-of-{shards:05d}.pt").write_bytes(b"w" * 256)


def upload(fs: Any, root: Path) -> int:
    objects = {}
    for file in root.rglob("*"):
        if file.is_file():
            objects[f"{BUCKET}/logs/" + "/".join(file.relative_to(root).parts)] = file.read_bytes()
    fs.pipe(objects)
    return len(objects)


def fresh_client() -> None:
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()


def timed(action: Any, repeat: int, before: Any = None) -> float:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        t0 = time.perf_counter()
        action()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def row(label: str, counts: Counter[str], extra: str = "") -> None:
    cells = "".join(f"{counts.get(k, 0):>11}" for k in KINDS)
    print(f"{label:<34}{cells}{sum(counts.values()):>8}  {extra}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def standby(
    server: CountingS3, cmd: list[str], env: dict[str, str], ready: Any, window: float, log: Path
) -> Counter[str]:
    """Start ``cmd``, wait until ``ready(port)``, then count the requests of ``window`` seconds."""
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [*cmd, "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 300
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{cmd[:3]} exited with code {proc.returncode}; see {log}")
                try:
                    if ready(port):
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{cmd[:3]} not ready after 300 s; see {log}")
                time.sleep(0.5)
            time.sleep(2.0)  # let a reload in progress finish
            mark = server.mark()
            time.sleep(window)
            return server.counts(mark)
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--shards", type=int, default=10, help="checkpoint files per run")
    parser.add_argument("--tags", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--window", type=float, default=60.0, help="seconds of standby serving counted")
    parser.add_argument("--interval", type=float, default=2.0, help="the servers' --reload_interval")
    parser.add_argument("--tensorboard", action="store_true", help="also count TensorBoard's standby")
    args = parser.parse_args()

    server = CountingS3()
    os.environ.update(CREDENTIALS, AWS_ENDPOINT_URL=server.endpoint)
    import s3fs

    import tbkit
    from tbkit.reader.discovery import discover
    from tbkit.reader.index import LogdirIndex
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.app import create_app

    try:
        with tempfile.TemporaryDirectory(prefix="tbkit-bench-s3-") as tmp:
            local = Path(tmp) / "logs"
            write_logdir(local, args.runs, args.shards, args.tags, args.steps)
            writer_fs = s3fs.S3FileSystem(skip_instance_cache=True)
            writer_fs.mkdir(BUCKET)
            objects = upload(writer_fs, local)
            print(
                f"logdir: {args.runs} runs x {args.tags} tags x {args.steps} steps, {args.shards} checkpoint"
            )
            print(f"files per run ({objects} objects); S3: moto on {server.endpoint}\n")
            print(f"{'':<34}" + "".join(f"{k:>11}" for k in KINDS) + f"{'total':>8}")

            mark = server.mark()
            fresh_client()
            discover(URL)
            row("first discovery", server.counts(mark))
            mark = server.mark()
            fresh_client()
            frame = tbkit.read(URL).scalars()
            row("first read (tbkit.read().scalars())", server.counts(mark), f"{len(frame):,} points")

            index = LogdirIndex(URL)
            index.reload()
            mark = server.mark()
            index.reload()
            row("idle reload", server.counts(mark))

            serving = MultiLogdirProvider([("", URL)])  # what tbkit serve reads through
            serving.reload()
            page = create_app(serving).test_client()
            mark = server.mark()
            serving.reload()
            for call in BROWSER_CALLS:
                page.get(call)
            row("browser open (reload + listings)", server.counts(mark))

            name = next((local / "run005").glob("*tfevents*"))
            more = local / "more"
            with tbkit.SummaryWriter(str(more)) as writer:
                for step in range(args.steps, args.steps + 10):
                    writer.add_scalar("metric_0", float(step), step)
            (extra,) = more.glob("*tfevents*")
            grown = name.read_bytes() + _records(extra.read_bytes())
            writer_fs.pipe_file(f"{BUCKET}/logs/run005/{name.name}", grown)
            mark = server.mark()
            index.reload()
            row("reload after one object grew", server.counts(mark))
            writer_fs.pipe_file(f"{BUCKET}/logs/run006/{name.name}.rolled", extra.read_bytes())
            mark = server.mark()
            index.reload()
            row("reload after one new rolled object", server.counts(mark))
            writer_fs.rm_file(f"{BUCKET}/logs/run006/{name.name}.rolled")
            writer_fs.pipe_file(f"{BUCKET}/logs/run005/{name.name}", name.read_bytes())

            print()
            s3_discovery = timed(lambda: discover(URL), args.repeat, fresh_client)
            local_discovery = timed(lambda: discover(str(local)), args.repeat)
            bare_listing = timed(bare_list, args.repeat)
            s3_read = timed(lambda: tbkit.read(URL).scalars(), args.repeat, fresh_client)
            local_read = timed(lambda: tbkit.read(str(local)).scalars(), args.repeat)
            print(
                f"first discovery: S3 {s3_discovery * 1e3:.1f} ms, local {local_discovery * 1e3:.1f} ms, "
                f"S3/local {s3_discovery / local_discovery:.1f}x"
            )
            print(
                f"  the floor, the prefix listed by boto3 alone: {bare_listing * 1e3:.1f} ms;"
                f" discovery / bare listing {s3_discovery / bare_listing:.2f}x"
            )
            print(
                f"first read:      S3 {s3_read * 1e3:.1f} ms, local {local_read * 1e3:.1f} ms, "
                f"S3/local {s3_read / local_read:.1f}x  (median of {args.repeat})"
            )

            env = {**os.environ, **CREDENTIALS, "AWS_ENDPOINT_URL": server.endpoint}
            per_hour = 3600.0 / args.window
            at_default = args.interval / 5.0  # reloads at the default 5 s interval instead
            print(f"\nstandby serving, {args.window:.0f} s counted, --reload_interval {args.interval:g}:")
            print(
                f"{'':<34}"
                + "".join(f"{k:>11}" for k in KINDS)
                + f"{'total':>8}  per hour (at {args.interval:g} s; at 5 s)"
            )

            def tbkit_ready(port: int) -> bool:
                state = get_json(f"http://127.0.0.1:{port}/data/reload_state")
                return (
                    not state["loading"] and len(get_json(f"http://127.0.0.1:{port}/data/runs")) == args.runs
                )

            cmd = [
                sys.executable,
                "-m",
                "tbkit.cli",
                "serve",
                "--logdir",
                URL,
                "--reload_interval",
                str(args.interval),
            ]
            counts = standby(server, cmd, env, tbkit_ready, args.window, Path(tmp) / "tbkit.log")
            total = sum(counts.values())
            row("tbkit serve", counts, f"{total * per_hour:,.0f}; {total * per_hour * at_default:,.0f}")
            if args.tensorboard:

                def tb_ready(port: int) -> bool:
                    runs = get_json(f"http://127.0.0.1:{port}/data/runs")
                    return len(runs) == args.runs

                tb_env = {**env, "S3_ENDPOINT": server.endpoint, "S3_USE_HTTPS": "0", "S3_VERIFY_SSL": "0"}
                cmd = [
                    sys.executable,
                    "-c",
                    TB_NOTF,
                    "--logdir",
                    URL,
                    "--load_fast=false",
                    "--reload_interval",
                    str(args.interval),
                ]
                tb = standby(server, cmd, tb_env, tb_ready, args.window, Path(tmp) / "tensorboard.log")
                tb_total = sum(tb.values())
                row(
                    "TensorBoard (stub, boto3)",
                    tb,
                    f"{tb_total * per_hour:,.0f}; {tb_total * per_hour * at_default:,.0f}",
                )
                print(f"tbkit / TensorBoard requests: {total / max(tb_total, 1):.3f}")
    finally:
        server.stop()


def bare_list() -> int:
    """Keys under the logdir's prefix by boto3's paginator alone: what the server's listing costs."""
    import boto3

    client = boto3.client("s3")
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix="logs/")
    return sum(len(page.get("Contents", [])) for page in pages)


def _records(data: bytes) -> bytes:
    """An event file's records after its first one (the file_version header event)."""
    length = int.from_bytes(data[:8], "little")
    return data[12 + length + 4 :]


if __name__ == "__main__":
    main()
