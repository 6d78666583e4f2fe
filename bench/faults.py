"""Writer faults side by side: tbkit's ``SummaryWriter`` and ``torch.utils.tensorboard``'s.

Each probe runs in a fresh subprocess per writer and reports what the user saw (the
exception raised, if any, and where) and what was kept (points read back by ``tbkit.read``
from what is on disk afterwards, against the points the script logged):

* ``disk-full``: the log directory is a 256 KB tmpfs; 20,000 scalars are logged, then
  ``flush()`` and ``close()``;
* ``read-only``: the log directory is on a read-only tmpfs;
* ``dir-deleted``: the log directory is removed after 100 points, then 100 more are
  logged and the writer flushed and closed;
* ``fork``: 100 points, then ``os.fork()``; the child logs 100 points of its own and exits
  (as a DataLoader worker would), the parent logs 100 more and closes;
* ``after-close``: ``add_scalar`` after ``close()``;
* ``threads``: eight threads log 5,000 points each on one writer;
* ``two-processes``: two processes write 1,000 points each into one directory, starting in
  the same second.

The tmpfs probes need root (``mount``); without it they are reported as skipped.

Usage: ``python bench/faults.py [--writers tbkit,torch]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

PROBE = textwrap.dedent(
    """
    import json, os, shutil, sys, threading, time, traceback
    writer_name, probe, logdir = sys.argv[1:4]
    if writer_name == "torch":
        from torch.utils.tensorboard import SummaryWriter
    else:
        from tbkit import SummaryWriter
    seen = []

    def attempt(where, call):
        try:
            call()
        except BaseException as exc:
            seen.append(f"{where}: {type(exc).__name__}: {str(exc)[:90]}")

    logged = 0
    if probe == "disk-full" or probe == "read-only":
        w = None
        def make():
            global w
            w = SummaryWriter(logdir)
        attempt("SummaryWriter()", make)
        if w is not None:
            def log():
                global logged
                for step in range(20000):
                    w.add_scalar("x", float(step), step)
                    logged += 1
            attempt("add_scalar", log)
            attempt("flush", w.flush)
            attempt("close", w.close)
    elif probe == "dir-deleted":
        w = SummaryWriter(logdir, flush_secs=1)
        for step in range(100):
            w.add_scalar("x", float(step), step)
        logged = 100
        w.flush()
        time.sleep(0.5)
        shutil.rmtree(logdir)
        def more():
            global logged
            for step in range(100, 200):
                w.add_scalar("x", float(step), step)
                logged += 1
        attempt("add_scalar", more)
        attempt("flush", w.flush)
        attempt("close", w.close)
    elif probe == "fork":
        w = SummaryWriter(logdir)
        for step in range(100):
            w.add_scalar("parent", float(step), step)
        w.flush()
        pid = os.fork()
        if pid == 0:
            child = []
            try:
                for step in range(100):
                    w.add_scalar("child", float(step), step)
                w.flush()
            except BaseException as exc:
                child.append(f"child: {type(exc).__name__}: {str(exc)[:90]}")
            with open(os.path.join(os.path.dirname(logdir), "child.json"), "w") as f:
                json.dump(child, f)
            os._exit(0)
        os.waitpid(pid, 0)
        for step in range(100, 200):
            w.add_scalar("parent", float(step), step)
        attempt("close", w.close)
        logged = 300
        with open(os.path.join(os.path.dirname(logdir), "child.json")) as f:
            seen.extend(json.load(f))
    elif probe == "after-close":
        w = SummaryWriter(logdir)
        w.add_scalar("x", 1.0, 0)
        w.close()
        logged = 2
        attempt("add_scalar after close", lambda: w.add_scalar("x", 2.0, 1))
        attempt("close twice", w.close)
    elif probe == "threads":
        w = SummaryWriter(logdir)
        def job(i):
            for step in range(5000):
                w.add_scalar(f"t{i}", float(step), step)
        threads = [threading.Thread(target=job, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        w.close()
        logged = 40000
    print(json.dumps({"seen": seen, "logged": logged}))
    """
)

TWO = textwrap.dedent(
    """
    import sys, time
    writer_name, logdir, tag, at = sys.argv[1:5]
    if writer_name == "torch":
        from torch.utils.tensorboard import SummaryWriter
    else:
        from tbkit import SummaryWriter
    time.sleep(max(0.0, float(at) - time.time()))
    w = SummaryWriter(logdir)
    for step in range(1000):
        w.add_scalar(tag, float(step), step)
    w.close()
    """
)


def _mount(path: Path, options: str) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True)
    return done.returncode == 0


def _kept(root: Path) -> int:
    """Points tbkit reads back from whatever event files are under ``root``."""
    import tbkit

    if not root.exists() or not any(root.rglob("*tfevents*")):
        return 0
    return len(tbkit.read(str(root)).scalars())


TIMEOUT = 60.0


def _run_probe(writer: str, name: str, logdir: Path) -> dict:
    """The probe script in its own process group, killed (with any child) if it hangs."""
    command = [sys.executable, "-c", PROBE, writer, name, str(logdir)]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"seen": [f"HUNG: killed after {TIMEOUT:.0f} s"], "logged": 0}
    lines = out.strip().splitlines()
    if not lines:
        return {"seen": [f"crashed: {err.strip()[-200:]}"], "logged": 0}
    return json.loads(lines[-1])


def probe(writer: str, name: str, work: Path) -> dict:
    """Run one probe for one writer; what was seen and kept."""
    root = work / f"{writer}-{name}"
    logdir = root / "logs"
    mounted = None
    if name in ("disk-full", "read-only"):
        mounted = logdir
        if not _mount(logdir, "size=256k" if name == "disk-full" else "ro,size=64k"):
            return {"seen": ["skipped: cannot mount a tmpfs (needs root)"], "logged": 0, "kept": 0}
    try:
        if name == "two-processes":
            logdir.mkdir(parents=True)
            at = str(int(time.time()) + 4)
            kids = [
                subprocess.Popen([sys.executable, "-c", TWO, writer, str(logdir), tag, at])
                for tag in ("first", "second")
            ]
            codes = [kid.wait(120) for kid in kids]
            files = len(list(logdir.iterdir()))
            result = {"seen": [f"exit codes {codes}, {files} files"], "logged": 2000}
        else:
            if name != "read-only":
                root.mkdir(parents=True, exist_ok=True)
            result = _run_probe(writer, name, logdir)
        kept_where = root if name != "dir-deleted" else logdir
        if mounted is not None:
            result["kept"] = _kept(mounted)
        else:
            result["kept"] = _kept(kept_where)
        return result
    finally:
        if mounted is not None:
            subprocess.run(["umount", str(mounted)], capture_output=True)


PROBES = ["disk-full", "read-only", "dir-deleted", "fork", "after-close", "threads", "two-processes"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", default="tbkit,torch")
    parser.add_argument("--probes", default=",".join(PROBES))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tbkit-faults-"))
    try:
        for name in args.probes.split(","):
            for writer in args.writers.split(","):
                r = probe(writer, name, work)
                seen = "; ".join(r["seen"]) or "no error"
                print(f"{name:<14}{writer:<7} kept {r['kept']:>6} of {r['logged']:>6} | {seen}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    os.sync()


if __name__ == "__main__":
    main()
