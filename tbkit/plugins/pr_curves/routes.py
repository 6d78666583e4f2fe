"""The PR curves dashboard's routes (``/data/plugin/pr_curves/``).

A PR curve series is a tensor series of ``[6, num_thresholds]`` rows (TP, FP, TN, FN,
precision, recall); :func:`tbkit.plugins.pr_curves.decode.rows` names them and adds the
thresholds. Thresholds at the high end where nothing is predicted positive (TP + FP = 0,
precision undefined) are left out of the answer, as TensorBoard does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from flask import Blueprint, Response

from tbkit.errors import NotFoundError
from tbkit.plugins import web
from tbkit.plugins.pr_curves.decode import rows
from tbkit.plugins.pr_curves.metadata import PLUGIN_NAME
from tbkit.provider import RunTagFilter, TensorDatum

__all__ = ["TABS", "blueprint"]

TABS = (web.Tab("pr_curves", "PR Curves", (PLUGIN_NAME,)),)
DEFAULT_STEPS = 100
DECIMALS = 6  # precision, recall and thresholds lie in [0, 1]: float32 has about 7 digits

blueprint = Blueprint("pr_curves", __name__)


@blueprint.get("/tags")
def tags() -> Response:
    return web.tensor_tags(PLUGIN_NAME)


def _read(run: str, tag: str, steps: int | None) -> list[TensorDatum]:
    data = web.provider().read_tensors(
        PLUGIN_NAME, downsample=steps, run_tag_filter=RunTagFilter(runs=[run], tags=[tag])
    )
    found = data.get(run, {}).get(tag)
    if found is None:
        raise NotFoundError(f"run {run!r} has no PR curve tag {tag!r}")
    return found


def _counts(values: np.ndarray) -> list[Any]:
    """Counts as integers when they are whole (the usual case), else rounded floats."""
    if np.all(np.isfinite(values)) and np.array_equal(values, np.round(values)):
        return values.astype(np.int64).tolist()
    return np.round(values, DECIMALS).tolist()


def curve(datum: TensorDatum) -> dict[str, Any]:
    """One step's curve: ``thresholds``, ``precision``, ``recall``, ``tp``, ``fp``, ``tn``, ``fn``.

    Trailing thresholds with TP + FP = 0 are dropped (``trimmed`` says how many).
    """
    (row,) = rows(np.asarray(datum.numpy, dtype=np.float64))
    predicted = row["tp"] + row["fp"]
    nonzero = np.flatnonzero(predicted > 0)
    end = int(nonzero[-1]) + 1 if nonzero.size else 0
    total = len(row["thresholds"])
    out: dict[str, Any] = {"step": datum.step, "wall_time": datum.wall_time, "trimmed": total - end}
    for name in ("thresholds", "precision", "recall"):
        out[name] = np.round(row[name][:end], DECIMALS).tolist()
    for name in ("tp", "fp", "tn", "fn"):
        out[name] = _counts(row[name][:end])
    return out


@blueprint.get("/pr_curves")
def pr_curves() -> Response:
    """The curves of one run and tag, one per step (at most ``steps``, the latest kept)."""
    args = web.params()
    run = web.str_param(args, "run")
    tag = web.str_param(args, "tag")
    web.known_runs([run])
    steps = web.int_param(args, "steps", default=web.samples(PLUGIN_NAME, DEFAULT_STEPS), low=1, high=None)
    return web.json_response([curve(d) for d in _read(run, tag, steps)])
