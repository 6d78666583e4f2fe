"""HParams dashboard benchmark: 1,000 sessions x 10 hyperparameters x 5 metrics.

Each session is a run ``s<i>`` holding its session start/end summaries and 5 metric series of
20 points; the root run declares the experiment. Event files are written whole
(:func:`tbkit.writer.event_io.write_event_file`). Figures (seconds):

- ``first_paint``: page open (``page.goto``) to the dashboard's ``data-ready`` with all 1,000
  sessions in the table and the parallel coordinates drawn; target 3 s.
- ``brush``: a brush dragged on a metric axis (pointer down, moves, up) to the table filtered
  (the dashboard's ``data-filter-gen`` changes); target 3 s.
- ``sessions_route``: ``GET /data/plugin/hparams/sessions`` alone (metric min/max over the full
  series of 5,000 series).
- ``write_logdir``: writing the logdir.
"""

from __future__ import annotations

import json
import math
import time
import urllib.request
from pathlib import Path
from typing import Any

TARGETS = {"first_paint": 3.0, "brush": 3.0}
SESSIONS = 1000
STEPS = 20
OPTIMIZERS = ("sgd", "adam", "adamw", "rmsprop")
ACTIVATIONS = ("relu", "gelu", "tanh")
METRICS = ("loss", "accuracy", "val_loss", "val_accuracy", "grad_norm")


def _hparams(i: int, rng: Any) -> dict[str, Any]:
    return {
        "lr": float(10 ** rng.uniform(-5, -1)),
        "weight_decay": float(10 ** rng.uniform(-6, -2)),
        "dropout": float(rng.uniform(0, 0.5)),
        "batch_size": float(2 ** rng.integers(4, 10)),
        "layers": float(rng.integers(1, 13)),
        "width": float(rng.choice([64, 128, 256, 512, 1024])),
        "optimizer": OPTIMIZERS[i % len(OPTIMIZERS)],
        "activation": ACTIVATIONS[i % len(ACTIVATIONS)],
        "warmup": bool(i % 2),
        "seed": float(i % 10),
    }


def write_logdir(root: Path) -> Path:
    """The 1,000-session logdir under ``root``."""
    import numpy as np

    from tbkit.hparams import HParam, Metric, Status
    from tbkit.plugins.hparams.summary import experiment_pb, session_end_pb, session_start_pb
    from tbkit.plugins.scalars.summary import scalar_pb
    from tbkit.proto import event_pb2
    from tbkit.writer.event_io import write_event_file

    rng = np.random.default_rng(0)
    now = time.time()
    first = _hparams(0, rng)
    declared = experiment_pb([HParam(n) for n in first], [Metric(m) for m in METRICS], values=first)
    write_event_file(str(root), [event_pb2.Event(wall_time=now, step=0, summary=declared)])
    for i in range(SESSIONS):
        hp = first if i == 0 else _hparams(i, rng)
        events = [event_pb2.Event(wall_time=now, step=0, summary=session_start_pb(hp, start_time_secs=now))]
        quality = -math.log10(hp["lr"]) / 5 + rng.normal(0, 0.1)
        for step in range(STEPS):
            decay = math.exp(-step / STEPS * (1 + quality))
            values = (decay, 1 - decay / 2, decay * 1.1, 1 - decay / 1.8, rng.gamma(2.0) * decay)
            for tag, value in zip(METRICS, values, strict=True):
                events.append(event_pb2.Event(wall_time=now + step, step=step, summary=scalar_pb(tag, value)))
        end = session_end_pb(Status.SUCCESS, end_time_secs=now + STEPS)
        events.append(event_pb2.Event(wall_time=now + STEPS, step=STEPS, summary=end))
        write_event_file(str(root / f"s{i:04d}"), events)
    return root


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=120) as resp:
        return json.load(resp)


def measure(browser: Any, workdir: Path) -> dict[str, float]:
    """Open the dashboard on 1,000 sessions; time the first paint and a brush."""
    from tbkit.reader.multi import MultiLogdirProvider
    from tbkit.server.serve import start

    workdir.mkdir(parents=True, exist_ok=True)
    out: dict[str, float] = {}
    started = time.perf_counter()
    logdir = write_logdir(workdir / "logdir")
    out["write_logdir"] = time.perf_counter() - started

    handle = start(MultiLogdirProvider([("", str(logdir))]), host="127.0.0.1", port=0, reload_interval=0)
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    try:
        page = context.new_page()
        base = f"http://127.0.0.1:{handle.port}"
        deadline = time.monotonic() + 300  # the server has read the logdir before timing
        while _get(f"{base}/data/reload_state")["loading"] and time.monotonic() < deadline:
            time.sleep(0.2)
        started = time.perf_counter()
        assert len(_get(f"{base}/data/plugin/hparams/sessions")) == SESSIONS
        out["sessions_route"] = time.perf_counter() - started

        started = time.perf_counter()
        page.goto(f"{base}/#hparams")
        page.wait_for_selector(
            f".dashboard[data-ready='1'][data-sessions='{SESSIONS}'] .parcoords[data-ready='1']",
            state="attached",
            timeout=120_000,
        )
        out["first_paint"] = time.perf_counter() - started

        box = page.locator(".pc-axis[data-column='m:accuracy'] .pc-hit").bounding_box()
        x = box["x"] + box["width"] / 2
        generation = page.get_attribute(".dashboard", "data-filter-gen")
        started = time.perf_counter()
        page.mouse.move(x, box["y"] + box["height"] * 0.2)
        page.mouse.down()
        page.mouse.move(x, box["y"] + box["height"] * 0.6, steps=5)
        page.mouse.up()
        changed = "g => document.querySelector('.dashboard').dataset.filterGen !== g"
        page.wait_for_function(changed, arg=generation, timeout=120_000)
        out["brush"] = time.perf_counter() - started
        shown = int(page.get_attribute(".dashboard", "data-shown") or "0")
        assert 0 < shown < SESSIONS, shown
        page.screenshot(path=str(workdir / "hparams.png"))
    finally:
        context.close()
        handle.close()
    return out
