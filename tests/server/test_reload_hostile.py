"""A run holding records that break their decoders costs only those records (issue 14).

Before, a Keras graph of deeply nested JSON raised RecursionError out of the reload: the
background reload stopped for the whole logdir and the run's good points were not served.
Served here through the real app on 127.0.0.1 with its real background reload.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

from tbkit import SummaryWriter
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.serve import start
from tests.plugins._hostile import AFTER, BEFORE, declared, deep_json, keras, logdir_with

_POLLS = 6000  # a guard against a hang, not a time bound: each poll waits one reload interval


def _get(base: str, path: str) -> Any:
    with urllib.request.urlopen(base + path, timeout=60) as response:
        return json.load(response)


def _total(base: str, run: str) -> int:
    answer = _get(base, f"data/plugin/scalars/scalars?tag=good&runs={run}")
    return int(answer[run]["total"]) if run in answer else 0


def test_a_hostile_run_keeps_its_good_points_and_later_reloads_go_on(tmp_path: Path) -> None:
    hostile = [keras(deep_json()), declared([2**31], "histograms", float_val=[1.0], tag="h")]
    logdir_with(tmp_path, hostile, run="bad")
    logdir_with(tmp_path, [], run="fine")
    provider = MultiLogdirProvider([("", str(tmp_path))])
    handle = start(provider, host="127.0.0.1", port=0, reload_interval=0.05)
    waiter = threading.Event()
    try:
        handle.reloader.first_load.wait()
        base = handle.url
        assert _total(base, "bad") == len(BEFORE) + len(AFTER)
        assert _total(base, "fine") == len(BEFORE) + len(AFTER)

        with SummaryWriter(str(tmp_path / "bad")) as w:  # good data appended to the bad run
            for step in range(20, 25):
                w.add_scalar("good", float(step), step)
        with SummaryWriter(str(tmp_path / "late")) as w:  # and a run that appears later
            w.add_scalar("good", 1.0, 1)
        for _ in range(_POLLS):
            runs = [r["name"] for r in _get(base, "data/runs")]
            if "late" in runs and _total(base, "bad") == len(BEFORE) + len(AFTER) + 5:
                break
            waiter.wait(0.05)
        assert sorted(runs) == ["bad", "fine", "late"]
        answer = _get(base, "data/plugin/scalars/scalars?tag=good&runs=bad")["bad"]
        assert answer["total"] == 11 and answer["step"][-1] == 24
        assert _total(base, "late") == 1
    finally:
        handle.close()
