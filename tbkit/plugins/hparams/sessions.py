"""The hparams sessions: the hparams kind's queries, computed over any DataProvider's series.

The default :meth:`~tbkit.provider.DataProvider.list_hyperparameters` and
:meth:`~tbkit.provider.DataProvider.read_hyperparameters` call :func:`list_hyperparameters`
and :func:`read_hyperparameters` here: importing the hparams plugin installs this module
(:func:`tbkit.provider.set_hparams_queries`).

What TensorBoard's hparams backend (``backend_context.py``, ``list_session_groups.py``)
derives from the ``hparams`` plugin's summaries and the scalars:

* **sessions** are the runs holding a ``_hparams_/session_start_info`` summary (values,
  group name, start time); ``_hparams_/session_end_info`` gives status and end time;
* the **experiment** comes from ``_hparams_/experiment`` summaries; unlike TensorBoard,
  which takes one arbitrarily, tbkit merges them (torch writes one per session, each
  naming only its own hyperparameters). Hyperparameters seen in sessions but not declared,
  and declared ones without a domain, get a domain inferred from the values (numbers: an
  interval; strings and bools: their distinct values; mixed types: strings). Without any
  declared metric, the metrics are every scalar tag of the session runs and their sub-runs,
  the sub-run's path below the session being the metric's group;
* a session's **metric value** is the last scalar written of the metric's tag in the
  session's run (or its ``<session>/<group>`` sub-run); a group's is the mean over its
  sessions.

Uses only :mod:`tbkit.errors`, :mod:`tbkit.proto`, the provider's value types and the
plugins' metadata.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from tbkit.errors import InvalidArgumentError
from tbkit.plugins.hparams.metadata import (
    EXPERIMENT_TAG,
    PLUGIN_NAME,
    PROTO_VERSION,
    SESSION_END_INFO_TAG,
    SESSION_START_INFO_TAG,
)
from tbkit.plugins.scalars.metadata import PLUGIN_NAME as SCALARS_PLUGIN
from tbkit.proto import hparams_pb2
from tbkit.provider import (
    DataProvider,
    HParamDomainType,
    HParamFilter,
    HParamMetric,
    HParamsExperiment,
    HParamSort,
    HParamsSession,
    HParamsSessionGroup,
    HParamValue,
    Hyperparameter,
    MetricValue,
    RunTagFilter,
    SessionStatus,
)

__all__ = ["list_hyperparameters", "read_hyperparameters", "sessions", "value_of"]

_STATUS = {
    hparams_pb2.STATUS_UNKNOWN: SessionStatus.UNKNOWN,
    hparams_pb2.STATUS_SUCCESS: SessionStatus.SUCCESS,
    hparams_pb2.STATUS_FAILURE: SessionStatus.FAILURE,
    hparams_pb2.STATUS_RUNNING: SessionStatus.RUNNING,
}
_DATASET = {hparams_pb2.DATASET_TRAINING: "training", hparams_pb2.DATASET_VALIDATION: "validation"}
_DISCRETE = {
    hparams_pb2.DATA_TYPE_FLOAT64: HParamDomainType.DISCRETE_FLOAT,
    hparams_pb2.DATA_TYPE_STRING: HParamDomainType.DISCRETE_STRING,
    hparams_pb2.DATA_TYPE_BOOL: HParamDomainType.DISCRETE_BOOL,
}


def value_of(value: Any) -> HParamValue | None:
    """A ``google.protobuf.Value`` as bool, float or str; None for null, lists and structs."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return float(value.number_value)
    if kind == "string_value":
        return str(value.string_value)
    if kind == "bool_value":
        return bool(value.bool_value)
    return None


def _payloads(provider: DataProvider) -> dict[str, dict[str, hparams_pb2.HParamsPluginData]]:
    out: dict[str, dict[str, hparams_pb2.HParamsPluginData]] = {}
    for run, tags in sorted(provider.list_tensors(PLUGIN_NAME).items()):
        for tag, series in tags.items():
            try:
                data = hparams_pb2.HParamsPluginData.FromString(series.plugin_content)
            except DecodeError:
                continue  # recorded as a problem by the reader; not an hparams payload
            if data.version <= PROTO_VERSION:
                out.setdefault(run, {})[tag] = data
    return out


def _parent_session(sessions: Collection[str], run: str) -> str | None:
    """The longest session run that is ``run`` or one of its ancestors (``.`` holds every run)."""
    parts = run.split("/") if run != "." else []
    for i in range(len(parts), 0, -1):
        candidate = "/".join(parts[:i])
        if candidate in sessions:
            return candidate
    return "." if "." in sessions else None


def _group_below(session: str, run: str) -> str:
    if session == ".":
        return "" if run == "." else run
    return run[len(session) + 1 :]


def _inferred_metrics(provider: DataProvider, session_runs: Collection[str]) -> list[HParamMetric]:
    names: set[tuple[str, str]] = set()
    for run, tags in provider.list_scalars(SCALARS_PLUGIN).items():
        session = _parent_session(session_runs, run)
        if session is not None:
            names.update((tag, _group_below(session, run)) for tag in tags)
    return [HParamMetric(tag, group) for tag, group in sorted(names)]


def _text(value: HParamValue) -> str:
    return value if isinstance(value, str) else json.dumps(value)


_Domain = tuple[HParamDomainType | None, tuple[Any, ...] | None]


def _infer(values: Sequence[HParamValue]) -> _Domain:
    kinds = {type(v) for v in values}
    if not kinds:
        return None, None
    if kinds == {float}:
        finite = [v for v in values if not math.isnan(v)]  # type: ignore[arg-type]
        return HParamDomainType.INTERVAL, (min(finite), max(finite)) if finite else None
    if kinds == {bool}:
        return HParamDomainType.DISCRETE_BOOL, tuple(sorted(set(values)))  # type: ignore[type-var]
    return HParamDomainType.DISCRETE_STRING, tuple(sorted({_text(v) for v in values}))


def _declared_domain(info: hparams_pb2.HParamInfo) -> _Domain:
    which = info.WhichOneof("domain")
    if which == "domain_interval":
        return HParamDomainType.INTERVAL, (info.domain_interval.min_value, info.domain_interval.max_value)
    if which == "domain_discrete":
        values = [v for v in (value_of(x) for x in info.domain_discrete.values) if v is not None]
        kind = _DISCRETE.get(info.type)
        if kind is None:
            kind = _infer(values)[0]
            if kind is HParamDomainType.INTERVAL:
                kind = HParamDomainType.DISCRETE_FLOAT
        return kind, tuple(values)
    return None, None


def _distinct(values: Iterable[HParamValue]) -> int:
    return len({(type(v), "nan" if isinstance(v, float) and math.isnan(v) else v) for v in values})


def _experiment(
    provider: DataProvider, payloads: dict[str, dict[str, hparams_pb2.HParamsPluginData]]
) -> HParamsExperiment:
    session_runs = [run for run, tags in payloads.items() if SESSION_START_INFO_TAG in tags]
    seen: dict[str, list[HParamValue]] = {}
    for run in session_runs:
        for name, value in payloads[run][SESSION_START_INFO_TAG].session_start_info.hparams.items():
            converted = value_of(value)
            if converted is not None:
                seen.setdefault(name, []).append(converted)
    declared = [tags[EXPERIMENT_TAG].experiment for tags in payloads.values() if EXPERIMENT_TAG in tags]
    infos: dict[str, hparams_pb2.HParamInfo] = {}
    metrics: dict[tuple[str, str], HParamMetric] = {}
    for experiment in declared:
        for info in experiment.hparam_infos:  # the first declaration with a domain wins
            known = infos.get(info.name)
            if known is None or (known.WhichOneof("domain") is None and info.WhichOneof("domain")):
                infos[info.name] = info
        for m in experiment.metric_infos:
            metric = HParamMetric(m.name.tag, m.name.group.strip("/"), m.display_name, m.description,
                                  _DATASET.get(m.dataset_type, "unknown"))  # fmt: skip
            metrics.setdefault((metric.group, metric.tag), metric)
    hparams = []
    for name in sorted(set(infos) | set(seen)):
        values = seen.get(name, [])
        info = infos.get(name)
        kind, domain = _declared_domain(info) if info is not None else (None, None)
        if kind is None:
            kind, domain = _infer(values)
        texts = (info.display_name, info.description) if info is not None else ("", "")
        hparams.append(Hyperparameter(name, *texts, kind, domain, _distinct(values) > 1))
    metric_list = list(metrics.values()) or _inferred_metrics(provider, session_runs)
    first = declared[0] if declared else hparams_pb2.Experiment()
    return HParamsExperiment(
        tuple(hparams), tuple(metric_list), first.name, first.description, first.user,
        min((e.time_created_secs for e in declared), default=0.0), bool(declared),
    )  # fmt: skip


def list_hyperparameters(provider: DataProvider, *, limit: int | None = None) -> HParamsExperiment:
    """The experiment over ``provider``; hyperparameters sorted with differing ones first, then by name.

    ``limit`` keeps that many hyperparameters (None or 0: all).
    """
    experiment = _experiment(provider, _payloads(provider))
    ordered = sorted(experiment.hyperparameters, key=lambda h: (not h.differs, h.name))
    if limit:
        ordered = ordered[: int(limit)]
    return dataclasses.replace(experiment, hyperparameters=tuple(ordered))


def sessions(provider: DataProvider) -> tuple[HParamsExperiment, list[HParamsSession]]:
    """The experiment and every session (sorted by run), each with its metrics' last values."""
    payloads = _payloads(provider)
    experiment = _experiment(provider, payloads)
    session_runs = sorted(run for run, tags in payloads.items() if SESSION_START_INFO_TAG in tags)
    wanted_runs = {m.run_of(s) for s in session_runs for m in experiment.metrics}
    last = (
        provider.read_last_scalars(
            SCALARS_PLUGIN, run_tag_filter=RunTagFilter(wanted_runs, {m.tag for m in experiment.metrics})
        )
        if wanted_runs
        else {}
    )
    out = []
    for run in session_runs:
        start = payloads[run][SESSION_START_INFO_TAG].session_start_info
        values = {name: value_of(v) for name, v in sorted(start.hparams.items())}
        end = payloads[run].get(SESSION_END_INFO_TAG)
        metric_values = []
        for m in experiment.metrics:
            datum = last.get(m.run_of(run), {}).get(m.tag)
            if datum is not None:
                metric_values.append(MetricValue(m.tag, m.group, datum.value, datum.step, datum.wall_time))
        out.append(HParamsSession(
            run, start.group_name or run, {k: v for k, v in values.items() if v is not None},
            _STATUS.get(end.session_end_info.status, SessionStatus.UNKNOWN) if end else SessionStatus.UNKNOWN,
            start.start_time_secs or None, end.session_end_info.end_time_secs if end else None,
            start.model_uri, start.monitor_url, tuple(metric_values),
        ))  # fmt: skip
    return experiment, out


def _mean_metrics(members: Sequence[HParamsSession]) -> tuple[MetricValue, ...]:
    stats: dict[tuple[str, str], list[MetricValue]] = {}
    for session in members:
        for mv in session.metrics:
            stats.setdefault((mv.group, mv.tag), []).append(mv)
    out = []
    for (group, tag), values in stats.items():
        n = len(values)
        out.append(MetricValue(tag, group, sum(v.value for v in values) / n, sum(v.step for v in values) // n,
                               sum(v.wall_time for v in values) / n))  # fmt: skip
    return tuple(out)


def _finite(value: HParamValue) -> bool:
    return not (isinstance(value, float) and not math.isfinite(value))


def _statuses(statuses: Iterable[SessionStatus | str] | None) -> set[SessionStatus] | None:
    if statuses is None:
        return None
    try:
        return {s if isinstance(s, SessionStatus) else SessionStatus(str(s).lower()) for s in statuses}
    except ValueError as exc:
        raise InvalidArgumentError(f"unknown session status: {exc}") from exc


def _key_value(group: HParamsSessionGroup, name: str) -> Any:
    if name in group.hparams:
        return group.hparams[name]
    for mv in group.metrics:
        if (f"{mv.group}/{mv.tag}" if mv.group else mv.tag) == name:
            return mv.value
    return None


def _sort_key(value: Any) -> tuple[int, Any]:
    if isinstance(value, bool):
        return (1, float(value))
    if isinstance(value, int | float):
        return (1, float(value)) if not math.isnan(value) else (3, 0.0)
    return (2, str(value))


def read_hyperparameters(
    provider: DataProvider,
    *,
    filters: Iterable[HParamFilter] | None = None,
    sort: Sequence[HParamSort] | None = None,
    hparams_to_include: Collection[str] | None = None,
    statuses: Iterable[SessionStatus | str] | None = None,
) -> list[HParamsSessionGroup]:
    """The session groups over ``provider``: filtered, sorted (by name, then ``sort``), trimmed.

    Args:
        provider: Any DataProvider.
        filters: Keep groups passing every filter (on a hyperparameter or a metric).
        sort: Sort keys, the first the primary one; missing values always last.
        hparams_to_include: Keep only these hyperparameters in each group's ``hparams``
            (plus those named by ``filters`` and ``sort``); None keeps all.
        statuses: Keep only sessions of these statuses (groups left empty are dropped).
    """
    filters = list(filters or ())
    sort = list(sort or ())
    allowed = _statuses(statuses)
    _, found = sessions(provider)
    grouped: dict[str, list[HParamsSession]] = {}
    for session in found:
        if allowed is None or session.status in allowed:
            grouped.setdefault(session.group, []).append(session)
    groups = []
    for name, members in grouped.items():
        hparams = {k: v for k, v in members[0].hparams.items() if _finite(v)}
        groups.append(HParamsSessionGroup(name, hparams, tuple(members), _mean_metrics(members)))
    groups = [g for g in groups if all(f.matches(_key_value(g, f.name)) for f in filters)]
    groups.sort(key=lambda g: g.name)
    for key in reversed(sort):
        present = [g for g in groups if _key_value(g, key.name) is not None]
        missing = [g for g in groups if _key_value(g, key.name) is None]
        present.sort(key=lambda g: _sort_key(_key_value(g, key.name)), reverse=key.descending)
        groups = present + missing
    if hparams_to_include is not None:
        keep = set(hparams_to_include) | {f.name for f in filters} | {s.name for s in sort}
        groups = [
            HParamsSessionGroup(
                g.name, {k: v for k, v in g.hparams.items() if k in keep}, g.sessions, g.metrics
            )
            for g in groups
        ]
    return groups
