"""Write-speed benchmark: tbkit, torch.utils.tensorboard and tensorboardX side by side.

Each case runs every writer in this one process, on the same inputs, and prints the
per-call time of the ``add_*`` loop, the time ``close()`` then takes, the per-call time
including ``close()``, and each peer's ratio to tbkit (higher = tbkit faster).

The ``watch`` case is tbkit's alone: a training loop of a small MLP with
``tbkit.torch.watch(log="all", log_freq=10)`` against the same loop without it.

Three cases put tbkit beside torch at scale and in a loop: ``tags`` (1k, 3k and 10k
distinct scalar tags, 2 calls each, the time including ``close()``), ``per_call``
(``add_scalar`` us/call at 1, 1,000 and 10,000 tags, the same number of calls each) and
``loop`` (a tiny MLP's training step with 10 scalars logged per step, as tensors and as
floats: the logging overhead in percent of the step time).

Usage: ``python bench/write.py [--scale 1.0] [--cases scalar,histogram,image,watch,tags,per_call,loop]``
"""

from __future__ import annotations

import argparse
import gc
import shutil
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def _writers(tensorboardx: bool = True) -> dict[str, Callable[[str], Any]]:
    import tbkit

    out: dict[str, Callable[[str], Any]] = {"tbkit": tbkit.SummaryWriter}
    try:
        from torch.utils.tensorboard import SummaryWriter as TorchWriter

        out["torch"] = TorchWriter
    except ImportError:
        print("torch not installed: skipped")
    if not tensorboardx:
        return out
    try:
        from tensorboardX import SummaryWriter as XWriter

        out["tensorboardX"] = XWriter
    except ImportError:
        print("tensorboardX not installed: skipped")
    return out


def _case_scalar(w: Any, n: int) -> int:
    tags = [f"train/metric_{i}" for i in range(10)]
    steps = n // len(tags)
    add = w.add_scalar
    for step in range(steps):
        for tag in tags:
            add(tag, 0.5 + step * 1e-4, step)
    return steps * len(tags)


def _case_histogram(w: Any, n: int) -> int:
    rng = np.random.default_rng(0)
    values = rng.standard_normal(100_000).astype(np.float32)
    for step in range(n):
        w.add_histogram("weights", values, step)
    return n


def _case_image(w: Any, n: int) -> int:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)
    for step in range(n):
        w.add_image("sample", image, step, dataformats="HWC")
    return n


def _case_hparams(w: Any, n: int) -> int:
    import inspect

    # Each in a sub-run of its own: torch's layout (tensorboardX calls the argument ``name``).
    arg = "run_name" if "run_name" in inspect.signature(w.add_hparams).parameters else "name"
    for i in range(n):
        hparams = {"lr": 0.1 * i, "optimizer": "adam", "layers": 3, "bn": True}
        w.add_hparams(hparams, {"accuracy": 0.5}, **{arg: f"s{i}"})
    return n


def _case_pr_curve(w: Any, n: int) -> int:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 10_000)
    predictions = rng.random(10_000)
    for step in range(n):
        w.add_pr_curve("pr", labels, predictions, step)
    return n


def _case_embedding(w: Any, n: int) -> int:
    rng = np.random.default_rng(0)
    mat = rng.standard_normal((10_000, 128)).astype(np.float32)
    labels = [f"item {i % 10}" for i in range(10_000)]
    for step in range(n):
        w.add_embedding(mat, metadata=labels, global_step=step, tag="emb")
    return n


def _mlp(layers: int) -> Any:
    import torch

    blocks = []
    for _ in range(layers):
        blocks += [torch.nn.Linear(32, 32), torch.nn.ReLU()]
    return torch.nn.Sequential(*blocks)


def _case_graph(w: Any, n: int) -> int:
    import torch

    model = _mlp(100)
    x = torch.zeros(4, 32)
    for _ in range(n):
        w.add_graph(model, x)
    return n


def run_watch(scale: float) -> float:
    """Time a training loop of a small MLP with and without ``watch(log="all", log_freq=10)``.

    The MLP is 32-64-64-10 (ReLU), batch 64, SGD, cross-entropy: about 7,000 weights, so the
    fixed cost per logged step weighs the most. Both loops alternate three times; the
    fastest run of each counts. Prints and returns the overhead in percent of step time.
    """
    import torch

    import tbkit
    from tbkit.integrations.torch import watch

    steps = max(10, int(1_000 * scale))
    print(f"\n== watch: 32-64-64-10 MLP, batch 64, {steps} steps, watch(log='all', log_freq=10)")
    torch.manual_seed(0)
    x, y = torch.randn(64, 32), torch.randint(0, 10, (64,))
    loss_fn = torch.nn.CrossEntropyLoss()

    def loop(watched: bool) -> float:
        model = _mlp()
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        root = tempfile.mkdtemp(prefix="bench-watch-")
        writer = tbkit.SummaryWriter(root)
        handle = watch(model, writer, log="all", log_freq=10) if watched else None
        try:
            for i in range(steps + 50):  # 50 warm-up steps
                if i == 50:
                    gc.collect()
                    t0 = time.perf_counter()
                opt.zero_grad()
                loss_fn(model(x), y).backward()
                opt.step()
            elapsed = (time.perf_counter() - t0) / steps
        finally:
            if handle is not None:
                handle.remove()
            writer.close()
            shutil.rmtree(root, ignore_errors=True)
        return elapsed

    plain, watched = float("inf"), float("inf")
    for _ in range(3):  # alternate, so a burst of load elsewhere hits both alike
        plain = min(plain, loop(False))
        watched = min(watched, loop(True))
    overhead = 100 * (watched / plain - 1)
    print(f"{'loop':<14}{'us/step':>14}")
    print(f"{'plain':<14}{plain * 1e6:>14.1f}")
    print(f"{'watch':<14}{watched * 1e6:>14.1f}")
    print(f"watch overhead: {overhead:.1f}% of step time")
    return overhead


def _mlp() -> Any:
    """The tiny 32-64-64-10 MLP of the training-loop cases."""
    import torch

    return torch.nn.Sequential(
        torch.nn.Linear(32, 64),
        torch.nn.ReLU(),
        torch.nn.Linear(64, 64),
        torch.nn.ReLU(),
        torch.nn.Linear(64, 10),
    )


def _torch_peer() -> dict[str, Callable[[str], Any]]:
    """tbkit and torch's writer (the peer of the scale cases)."""
    return _writers(tensorboardx=False)


def _timed_scalars(factory: Callable[[str], Any], tags: list[str], steps: int) -> tuple[float, float]:
    """``add_scalar`` of every tag at every step (steps outermost); (loop, close) seconds."""
    root = tempfile.mkdtemp(prefix="bench-tags-")
    try:
        w = factory(root)
        add = w.add_scalar
        gc.collect()
        t0 = time.perf_counter()
        for step in range(steps):
            for tag in tags:
                add(tag, 0.5, step)
        t1 = time.perf_counter()
        w.close()
        t2 = time.perf_counter()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return t1 - t0, t2 - t1


def run_tags(scale: float) -> None:
    """Register many distinct scalar tags, 2 calls each: seconds including ``close()``."""
    writers = _torch_peer()
    print("\n== tags: distinct scalar tags, 2 calls each (steps 0 and 1), time including close()")
    print(f"{'tags':>8}{'writer':>8}{'loop s':>10}{'close s':>10}{'total s':>10}{'torch/tbkit':>13}")
    for count in (1_000, 3_000, 10_000):
        n = max(1, int(count * scale))
        tags = [f"train/metric_{i}" for i in range(n)]
        totals: dict[str, float] = {}
        for wname, factory in writers.items():
            loop, close = _timed_scalars(factory, tags, 2)
            totals[wname] = loop + close
            ratio = f"{totals[wname] / totals['tbkit']:.1f}x" if wname != "tbkit" else ""
            print(f"{n:>8}{wname:>8}{loop:>10.3f}{close:>10.3f}{loop + close:>10.3f}{ratio:>13}")


def run_per_call(scale: float) -> None:
    """``add_scalar`` us/call at 1, 1,000 and 10,000 tags, every tag at every step."""
    writers = _torch_peer()
    calls = max(10_000, int(100_000 * scale))
    print(f"\n== per_call: add_scalar over {calls:,} calls, each tag at every step (new tags included)")
    print(
        f"{'tags':>8}{'writer':>8}{'loop us/call':>14}{'close s':>10}{'total us/call':>15}{'torch/tbkit':>13}"
    )
    for count in (1, 1_000, 10_000):
        tags = [f"train/metric_{i}" for i in range(count)]
        steps = max(1, calls // count)
        totals: dict[str, float] = {}
        for wname, factory in writers.items():
            loop, close = _timed_scalars(factory, tags, steps)
            n = steps * count
            totals[wname] = (loop + close) / n
            ratio = f"{totals[wname] / totals['tbkit']:.1f}x" if wname != "tbkit" else ""
            row = f"{count:>8}{wname:>8}{loop / n * 1e6:>14.2f}{close:>10.3f}{totals[wname] * 1e6:>15.2f}"
            print(row + f"{ratio:>13}")


def run_loop(scale: float) -> dict[str, float]:
    """A tiny MLP's training step, with 10 scalars logged per step by tbkit and by torch.

    The MLP is 32-64-64-10 (ReLU), batch 64, SGD, cross-entropy. Logged values are the
    step's loss as a 0-d tensor (``add_scalar(tag, loss, step)``, torch's idiom) or as a
    float (one ``loss.item()`` per step, counted as logging); ``tbkit/4k`` is tbkit with
    ``max_queue=4096`` (its thread woken every 4,096 scalars, not 1,024). A round is ``steps`` steps
    with a new writer, its ``close()`` timed (its background work is charged to it); the
    loops alternate round by round so that load elsewhere hits them alike, and the fastest
    round of each counts. Prints and returns the overhead in percent of the plain step.
    """
    import torch

    import tbkit

    writers = _torch_peer()
    writers["tbkit/4k"] = lambda root: tbkit.SummaryWriter(root, max_queue=4096)  # fewer, larger batches
    steps, rounds = max(50, int(1_000 * scale)), 10
    print(
        f"\n== loop: 32-64-64-10 MLP, batch 64, 10 scalars per step; best of {rounds} rounds of {steps} steps"
    )
    torch.manual_seed(0)
    x, y = torch.randn(64, 32), torch.randint(0, 10, (64,))
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    tags = [f"train/metric_{i}" for i in range(10)]
    loops = ["plain"] + [f"{name} {kind}" for kind in ("tensor", "float") for name in writers]

    def one_round(loop: str, steps: int) -> float:
        name, _, kind = loop.partition(" ")
        root = tempfile.mkdtemp(prefix="bench-loop-")
        w = writers[name](root) if name in writers else None
        try:
            t0 = time.perf_counter()
            for step in range(steps):
                opt.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                opt.step()
                if w is not None:
                    value = loss.detach() if kind == "tensor" else loss.item()
                    for tag in tags:
                        w.add_scalar(tag, value, step)
            if w is not None:
                w.close()
            return (time.perf_counter() - t0) / steps
        finally:
            shutil.rmtree(root, ignore_errors=True)

    for loop in loops:  # warm-up
        one_round(loop, max(10, steps // 5))
    best = dict.fromkeys(loops, float("inf"))
    for _ in range(rounds):
        for loop in loops:
            best[loop] = min(best[loop], one_round(loop, steps))
    plain = best["plain"]
    print(f"{'loop':<18}{'us/step':>10}{'overhead':>10}{'us/call':>10}")
    overheads = {}
    for loop in loops:
        overheads[loop] = 100 * (best[loop] / plain - 1)
        per_call = (best[loop] - plain) / len(tags) * 1e6
        print(f"{loop:<18}{best[loop] * 1e6:>10.1f}{overheads[loop]:>9.1f}%{per_call:>10.2f}")
    for kind in ("tensor", "float"):
        if f"torch {kind}" in best:
            ratio = (best[f"torch {kind}"] - plain) / max(best[f"tbkit {kind}"] - plain, 1e-9)
            print(f"logging overhead, {kind} values: torch/tbkit {ratio:.1f}x")
    return overheads


EXTRA_CASES: dict[str, Callable[[float], object]] = {
    "tags": run_tags,
    "per_call": run_per_call,
    "loop": run_loop,
}

CASES = {
    "scalar": (_case_scalar, 200_000, "add_scalar, 10 tags x 20,000 steps"),
    "histogram": (_case_histogram, 1_000, "add_histogram of 100,000 float32, default bins"),
    "image": (_case_image, 1_000, "add_image 64x64x3 uint8"),
    "hparams": (_case_hparams, 200, "add_hparams with run_name (torch's layout), 4 hparams, 1 metric"),
    "pr_curve": (_case_pr_curve, 200, "add_pr_curve of 10,000 predictions, 127 thresholds"),
    "embedding": (_case_embedding, 3, "add_embedding of 10,000 x 128 float32 with labels"),
    "graph": (_case_graph, 3, "add_graph of a 100-layer MLP (Linear+ReLU)"),
}


def run_case(
    name: str, scale: float, writers: dict[str, Callable[[str], Any]]
) -> dict[str, tuple[float, float]]:
    func, count, title = CASES[name]
    n = max(1, int(count * scale))
    print(f"\n== {name}: {title} (n={n})")
    print(f"{'writer':<14}{'loop us/call':>14}{'close s':>10}{'total us/call':>15}{'tbkit faster by':>17}")
    results: dict[str, tuple[float, float]] = {}
    for wname, factory in writers.items():
        if name == "graph" and wname == "tensorboardX":
            continue  # tensorboardX's add_graph goes through torch's own tracer
        root = tempfile.mkdtemp(prefix=f"bench-{wname}-")
        try:
            w = factory(root)
            gc.collect()
            t0 = time.perf_counter()
            calls = func(w, n)
            t1 = time.perf_counter()
            w.close()
            t2 = time.perf_counter()
        finally:
            shutil.rmtree(root, ignore_errors=True)
        results[wname] = ((t1 - t0) / calls, (t2 - t0) / calls)
        loop, total = results[wname]
        ratio = total / results["tbkit"][1]
        print(f"{wname:<14}{loop * 1e6:>14.2f}{t2 - t1:>10.3f}{total * 1e6:>15.2f}{ratio:>16.1f}x")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every call count")
    names = [*CASES, "watch", *EXTRA_CASES]
    parser.add_argument("--cases", default=",".join(names), help="comma-separated: " + ",".join(names))
    args = parser.parse_args()
    cases = [name.strip() for name in args.cases.split(",")]
    writers = _writers() if set(cases) & set(CASES) else {}  # the peers import TensorFlow
    for name in cases:
        if name == "watch":
            run_watch(args.scale)
        elif name in EXTRA_CASES:
            EXTRA_CASES[name](args.scale)
        else:
            run_case(name, args.scale, writers)


if __name__ == "__main__":
    main()
