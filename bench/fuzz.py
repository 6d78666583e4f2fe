"""Fuzzing campaign: damaged and hostile event files through tbkit's reader and TensorBoard's.

The suite's fuzz tests are bounded to stay fast; this is the long campaign. Seeds are small
event files written by tbkit (scalars alone, and one of every kind) and, when torch is
installed, by ``torch.utils.tensorboard``. Each case applies one mutation to one seed:

* ``flip``: 1-8 random bit flips;
* ``truncate``: cut at a random offset;
* ``insert``: random bytes inserted at a random offset;
* ``length``: one record's length field set to a huge, negative-as-unsigned or random value,
  with its length checksum recomputed (so the header looks valid);
* ``hostile``: a well-framed record inserted between two records, holding a hostile event:
  a tensor or histogram declaring a huge shape or bucket count, a shape that does not match
  its content, deeply nested JSON plugin content, garbage plugin data, a non-PNG image, a
  wrong dtype.

Oracle, per case: no exception but ``tbkit.errors`` ones escapes from ``tbkit.read(...)``
and every frame method; no hang (``--timeout`` seconds per case); no allocation beyond
``--memory`` MB (the worker runs under that address-space limit); and, for the scalars
seed, every record lying wholly before the damage (and, for ``hostile``, after it) still
read. TensorBoard's ``EventAccumulator`` gets the same files, with the same oracle
(``--no-peer`` skips it): any exception counts as a crash there.

Cases run in a worker subprocess, restarted after a hang or a crash of the process itself.
Failing cases are kept in ``--out`` for replay. Prints the counts per mutation.

Usage: ``python bench/fuzz.py [--minutes 10] [--seed 0] [--timeout 10] [--memory 4096] [--no-peer]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

MUTATIONS = ("flip", "truncate", "insert", "length", "hostile")


# -- seeds -----------------------------------------------------------------------------------------


def write_seeds(root: Path) -> list[dict[str, Any]]:
    """Write the seed event files; each as ``{"name", "path", "records": [[start, end, step]]}``."""
    import numpy as np

    import tbkit
    from tbkit.record.scan import scan_records

    seeds = []
    scalars = root / "scalars"
    with tbkit.SummaryWriter(str(scalars)) as w:
        for step in range(60):
            w.add_scalar("loss", 1.0 / (step + 1), step)
    rich = root / "rich"
    rng = np.random.default_rng(0)
    with tbkit.SummaryWriter(str(rich)) as w:
        for step in range(3):
            w.add_scalar("loss", float(step), step)
            w.add_histogram("weights", rng.normal(size=200), step)
            w.add_image("image", rng.integers(0, 255, (3, 8, 8), dtype=np.uint8), step)
            w.add_text("note", f"**step** {step}", step)
            w.add_audio("audio", rng.uniform(-1, 1, 800).astype(np.float32), step, sample_rate=8000)
            w.add_pr_curve("pr", rng.integers(0, 2, 50), rng.uniform(size=50), step)
        w.add_hparams({"lr": 0.1}, {"hp/metric": 1.0}, run_name=".")
    dirs = [scalars, rich]
    try:
        from torch.utils.tensorboard import SummaryWriter as TorchWriter

        peer = root / "torch"
        tw = TorchWriter(str(peer))
        for step in range(20):
            tw.add_scalar("loss", 1.0 / (step + 1), step)
            tw.add_histogram("weights", rng.normal(size=100), step)
        tw.close()
        dirs.append(peer)
    except ImportError:
        pass
    for folder in dirs:
        for path in sorted(folder.rglob("*tfevents*")):
            data = path.read_bytes()
            scan = scan_records(data)
            records = []
            spans = zip(scan.starts.tolist(), scan.lengths.tolist(), strict=True)
            for i, (start, length) in enumerate(spans):
                head = start - 12  # the data start; the record starts at its length field
                records.append([head, start + length + 4, i - 1 if folder == scalars else None])
            seeds.append({"name": folder.name, "path": str(path), "records": records})
    return seeds


# -- mutations -------------------------------------------------------------------------------------


def _hostile_events(rng: random.Random) -> bytes:
    """One serialized hostile ``Event``."""
    from tbkit.proto import event_pb2, histogram_pb2, tensor_pb2, tensor_shape_pb2

    event = event_pb2.Event(wall_time=1.0, step=rng.randrange(-(2**63), 2**63))
    value = event.summary.value.add(tag=rng.choice(["loss", "weights", "x" * rng.randrange(1, 70_000)]))
    choice = rng.randrange(7)
    if choice == 0:  # a huge declared shape, few bytes
        dims = [rng.choice([2**31, 3 * 10**12, 2**62, 0, 1]) for _ in range(rng.randrange(1, 4))]
        value.tensor.CopyFrom(
            tensor_pb2.TensorProto(
                dtype=rng.choice([1, 2, 3, 9, 19]),
                tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[{"size": d} for d in dims]),
                tensor_content=os.urandom(rng.randrange(0, 64)),
            )
        )
        value.metadata.plugin_data.plugin_name = rng.choice(["scalars", "histograms", "text", "pr_curves"])
    elif choice == 1:  # a shape that does not match the content
        dims = [{"size": rng.randrange(0, 9)} for _ in range(rng.randrange(0, 3))]
        tensor = tensor_pb2.TensorProto(dtype=rng.choice([1, 2]), tensor_shape={"dim": dims})
        if rng.random() < 0.5:
            tensor.float_val.extend([1.0] * rng.randrange(0, 20))
        else:
            tensor.tensor_content = os.urandom(rng.randrange(0, 40))
        value.tensor.CopyFrom(tensor)
        value.metadata.plugin_data.plugin_name = rng.choice(["scalars", "histograms", "pr_curves"])
    elif choice == 2:  # a legacy histogram declaring many buckets
        histo = histogram_pb2.HistogramProto(min=0, max=1, num=rng.choice([2**40, -1, 0]), sum=1)
        histo.bucket_limit.extend([float(i) for i in range(rng.randrange(0, 30))])
        histo.bucket.extend([1.0] * rng.randrange(0, 30))
        value.histo.CopyFrom(histo)
    elif choice == 3:  # deeply nested JSON as plugin content
        depth = rng.choice([100, 3000, 100_000])
        nested = rng.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth])
        plugins = ["graph_keras_model", "hparams", "custom_scalars", "text"]
        value.metadata.plugin_data.plugin_name = rng.choice(plugins)
        value.metadata.plugin_data.content = nested.encode() if rng.random() < 0.5 else b""
        value.tensor.CopyFrom(tensor_pb2.TensorProto(dtype=7, string_val=[nested.encode()]))
    elif choice == 4:  # garbage plugin data
        plugins = ["hparams", "pr_curves", "images", "audio", "mesh", "graph_keras_model", "projector"]
        value.metadata.plugin_data.plugin_name = rng.choice(plugins)
        value.metadata.plugin_data.content = os.urandom(rng.randrange(0, 200))
        value.tensor.CopyFrom(tensor_pb2.TensorProto(dtype=7, string_val=[os.urandom(20) for _ in range(3)]))
    elif choice == 5:  # an image that is not one
        value.image.height, value.image.width = rng.choice([(2**31 - 1, 2**31 - 1), (0, 0), (-5, 3)])
        value.image.colorspace = 3
        value.image.encoded_image_string = os.urandom(rng.randrange(0, 100))
    else:  # a wrong dtype for the kind
        value.tensor.CopyFrom(
            tensor_pb2.TensorProto(dtype=rng.choice([0, 7, 8, 10, 23, 99]), tensor_content=os.urandom(16))
        )
        value.metadata.plugin_data.plugin_name = rng.choice(["scalars", "histograms", "pr_curves", "mesh"])
    return event.SerializeToString()


def mutate(data: bytes, seed: dict[str, Any], kind: str, rng: random.Random) -> tuple[bytes, int, int]:
    """The damaged bytes and the damaged span ``[lo, hi)`` in the original file."""
    from tbkit.record.crc import masked_crc32c
    from tbkit.record.framing import encode_record

    buf = bytearray(data)
    n = len(buf)
    if kind == "flip":
        spots = [rng.randrange(n) for _ in range(rng.randrange(1, 9))]
        for at in spots:
            buf[at] ^= 1 << rng.randrange(8)
        return bytes(buf), min(spots), max(spots) + 1
    if kind == "truncate":
        at = rng.randrange(n)
        return bytes(buf[:at]), at, n
    if kind == "insert":
        at = rng.randrange(n + 1)
        return bytes(buf[:at]) + os.urandom(rng.randrange(1, 64)) + bytes(buf[at:]), at, at
    start, end, _ = rng.choice(seed["records"])
    if kind == "length":
        length = rng.choice([2**64 - 1, 2**63, 2**32, 2**31, rng.randrange(2**64), rng.randrange(1, 4096)])
        head = struct.pack("<Q", length)
        buf[start : start + 12] = head + struct.pack("<I", masked_crc32c(head))
        return bytes(buf), start, start + 12
    record = encode_record(_hostile_events(rng))
    return bytes(buf[:end]) + record + bytes(buf[end:]), end, end


# -- the worker --------------------------------------------------------------------------------------


def _frames(logdir: str) -> set[int]:
    import tbkit
    from tbkit.reader.logdir import frame_kinds

    ld = tbkit.read(logdir)
    steps: set[int] = set()
    for kind in frame_kinds():
        frame = ld.frame(kind)
        if kind == "scalars":
            steps = set(frame["step"].tolist())
    return steps


def _peer(path: str) -> set[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(path, size_guidance={k: 0 for k in ("scalars", "histograms", "images", "tensors")})
    acc.Reload()
    steps: set[int] = set()
    for tag in acc.Tags().get("scalars", []):
        steps |= {e.step for e in acc.Scalars(tag)}
    for tag in acc.Tags().get("tensors", []):
        steps |= {e.step for e in acc.Tensors(tag)}
    return steps


def worker(memory_mb: int) -> None:
    """Read cases from stdin (JSON lines), answer one JSON line each on stdout."""
    import resource

    from tbkit.errors import TbkitError

    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing a reader prints may break the protocol
    for line in sys.stdin:
        case = json.loads(line)
        who = case["who"]
        read, tolerated = (_frames, TbkitError) if who == "tbkit" else (_peer, ())
        answer: dict[str, Any] = {"result": "ok", "detail": ""}
        try:
            steps = read(case["dir"] if who == "tbkit" else case["file"])
            missing = sorted(set(case["expect"]) - steps)
            if missing:
                answer = {"result": "lost", "detail": f"missing steps {missing[:5]}"}
        except tolerated:  # type: ignore[misc]
            pass
        except BaseException as exc:  # the oracle counts every escape
            where = [f"{f.filename}:{f.lineno} {f.name}" for f in traceback.extract_tb(exc.__traceback__)]
            ours = [w for w in where if "/tbkit/" in w or "/tensorboard/" in w][-4:] or where[-3:]
            result = "memory" if isinstance(exc, MemoryError) else "crash"
            answer = {"result": result, "detail": f"{type(exc).__name__}: {str(exc)[:200]}", "where": ours}
        out.write(json.dumps(answer) + "\n")
        out.flush()


class Worker:
    """The worker subprocess, restarted when it hangs or dies."""

    def __init__(self, args: argparse.Namespace, who: str) -> None:
        self.args = args
        self.who = who
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        cmd = [sys.executable, __file__, "--worker", "--memory", str(self.args.memory)]
        env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
        return subprocess.Popen(
            cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
        )

    def run(self, case: dict[str, Any]) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({**case, "who": self.who}) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], self.args.timeout + 30)  # + start-up
        line = self.proc.stdout.readline() if ready else ""
        if line:
            return json.loads(line)
        hung = self.proc.poll() is None
        self.proc.kill()
        self.proc.wait()
        self.proc = None
        return {"result": "hang" if hung else "died", "detail": "no answer"}

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per case")
    parser.add_argument("--memory", type=int, default=4096, help="the worker's address-space limit, MB")
    parser.add_argument("--no-peer", dest="peer", action="store_false", help="skip TensorBoard's loader")
    parser.add_argument("--out", default="fuzz-failures", help="where failing cases are kept")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.memory)
        return
    rng = random.Random(args.seed)
    stats: dict[str, Counter[str]] = defaultdict(Counter)
    kept = 0
    with tempfile.TemporaryDirectory(prefix="tbkit-fuzz-") as tmp:
        seeds = write_seeds(Path(tmp) / "seeds")
        runners = {"tbkit": Worker(args, "tbkit")}
        if args.peer:
            runners["peer"] = Worker(args, "peer")
        deadline = time.monotonic() + args.minutes * 60
        try:
            while time.monotonic() < deadline:
                seed, kind = rng.choice(seeds), rng.choice(MUTATIONS)
                original = Path(seed["path"]).read_bytes()
                data, lo, hi = mutate(original, seed, kind, rng)
                case_dir = Path(tmp) / "case"
                shutil.rmtree(case_dir, ignore_errors=True)
                case_dir.mkdir()
                file = case_dir / Path(seed["path"]).name
                file.write_bytes(data)
                # Steps of records wholly before the damage (and after it, for an inserted record).
                steps = [(start, end, s) for start, end, s in seed["records"] if s is not None and s >= 0]
                expect = [s for start, end, s in steps if end <= lo]
                if kind == "hostile":
                    expect += [s for start, end, s in steps if start >= hi]
                case = {"dir": str(case_dir), "file": str(file), "expect": expect}
                answers = {who: runner.run(case) for who, runner in runners.items()}
                stats[kind]["cases"] += 1
                for who, answer in answers.items():
                    stats[kind][f"{who}:{answer['result']}"] += 1
                if answers["tbkit"]["result"] != "ok":
                    out = Path(args.out)
                    out.mkdir(exist_ok=True)
                    name = f"{kind}-{kept:04d}-{file.name}"
                    (out / name).write_bytes(data)
                    (out / f"{name}.txt").write_text(json.dumps(answers, indent=1))
                    kept += 1
        finally:
            for runner in runners.values():
                runner.close()
    columns = "ok/lost/crash/memory/hang/died"
    print(f"{'mutation':<10}{'cases':>7}  tbkit {columns:<26} TensorBoard {columns}")
    for kind in MUTATIONS:
        s = stats[kind]
        ours = "/".join(str(s[f"tbkit:{x}"]) for x in ("ok", "lost", "crash", "memory", "hang", "died"))
        peer = "/".join(str(s[f"peer:{x}"]) for x in ("ok", "lost", "crash", "memory", "hang", "died"))
        print(f"{kind:<10}{s['cases']:>7}  {ours:<32} {peer}")
    total = sum(s["cases"] for s in stats.values())
    print(f"{total} cases in {args.minutes:g} min; failing tbkit cases kept in {args.out}/: {kept}")


if __name__ == "__main__":
    main()
