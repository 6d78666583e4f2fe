"""The HParams dashboard's routes (``/data/plugin/hparams/``).

``experiment`` describes the hyperparameters (with their domains) and the metrics;
``sessions`` lists every session (one per run holding a session start summary) with its
hyperparameter values, status and, per metric, the last value and the minimum and maximum
over the metric's full scalar series (in the session's run, or its ``<run>/<group>``
sub-run). Filtering, sorting and brushing happen in the browser over these answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flask import Blueprint, Response

from tbkit.errors import InvalidArgumentError
from tbkit.plugins import web
from tbkit.plugins.hparams.metadata import PLUGIN_NAME
from tbkit.provider import DataProvider, HParamMetric, HParamsExperiment, HParamsSession, RunTagFilter

__all__ = ["TABS", "blueprint", "experiment_json", "sessions_json"]

TABS = (web.Tab("hparams", "HParams", (PLUGIN_NAME,)),)
SCALARS_PLUGIN = "scalars"
STATUSES = ("unknown", "success", "failure", "running")

blueprint = Blueprint("hparams", __name__)


def experiment_json(experiment: HParamsExperiment) -> dict[str, Any]:
    """The experiment as the ``experiment`` route answers it."""
    return {
        "name": experiment.name,
        "description": experiment.description,
        "user": experiment.user,
        "time_created_secs": experiment.time_created_secs,
        "declared": experiment.declared,
        "hparams": [
            {
                "name": h.name,
                "display_name": h.display_name,
                "description": h.description,
                "type": h.domain_type.value if h.domain_type is not None else None,
                "domain": list(h.domain) if h.domain is not None else None,
                "differs": h.differs,
            }
            for h in experiment.hyperparameters
        ],
        "metrics": [
            {
                "name": m.name,
                "tag": m.tag,
                "group": m.group,
                "display_name": m.display_name,
                "description": m.description,
                "dataset_type": m.dataset_type,
            }
            for m in experiment.metrics
        ],
    }


def sessions_json(
    provider: DataProvider, metrics: Iterable[HParamMetric], sessions: Iterable[HParamsSession]
) -> list[dict[str, Any]]:
    """Each session as the ``sessions`` route answers it; ``metrics`` are the experiment's.

    A metric's ``last`` is the last point written; its ``min`` and ``max`` are taken over the
    full series' finite values (never a downsampled read), ``count`` is its number of points.
    """
    metric_list = list(metrics)
    session_list = list(sessions)
    wanted = {m.run_of(s.run) for s in session_list for m in metric_list}
    extremes: Mapping[str, Mapping[str, tuple[float | None, float | None, int]]] = {}
    if wanted:
        tags = {m.tag for m in metric_list}
        extremes = provider.read_scalar_extremes(SCALARS_PLUGIN, run_tag_filter=RunTagFilter(wanted, tags))
    out = []
    for s in session_list:
        lasts = {(mv.group, mv.tag): mv for mv in s.metrics}
        entries = {}
        for m in metric_list:
            last = lasts.get((m.group, m.tag))
            if last is None:
                continue
            low, high, count = extremes.get(m.run_of(s.run), {}).get(m.tag, (None, None, 0))
            entries[m.name] = {
                "run": m.run_of(s.run),
                "tag": m.tag,
                "last": last.value,
                "step": last.step,
                "wall_time": last.wall_time,
                "min": low,
                "max": high,
                "count": count,
            }
        out.append(
            {
                "name": s.run,
                "run": s.run,
                "group": s.group,
                "status": s.status.value,
                "start_time": s.start_time_secs,
                "end_time": s.end_time_secs,
                "model_uri": s.model_uri,
                "monitor_url": s.monitor_url,
                "hparams": dict(s.hparams),
                "metrics": entries,
            }
        )
    return out


def _statuses(args: Mapping[str, Any]) -> list[str] | None:
    raw = args.get("status")
    if raw is None or raw == "":
        return None
    names = raw if isinstance(raw, list) else web.str_param(args, "status").split(",")
    for name in names:
        if name not in STATUSES:
            raise InvalidArgumentError(f"parameter 'status' must name statuses of {STATUSES}, got {name!r}")
    return list(names)


@blueprint.get("/experiment")
def experiment() -> Response:
    return web.json_response(experiment_json(web.provider().list_hyperparameters()))


@blueprint.get("/sessions")
def sessions() -> Response:
    args = web.params()
    statuses = _statuses(args)
    provider = web.provider()
    found = provider.list_hyperparameters()
    groups = provider.read_hyperparameters(statuses=statuses)
    members = sorted((s for g in groups for s in g.sessions), key=lambda s: s.run)
    return web.json_response(sessions_json(provider, found.metrics, members))
