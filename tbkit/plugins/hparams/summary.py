"""HParams summaries: the experiment, a session's start (its values) and its end (its status)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

from tbkit.plugins.hparams.api import Discrete, HParam, Interval, Metric, Status
from tbkit.plugins.hparams.metadata import (
    EXPERIMENT_TAG,
    SESSION_END_INFO_TAG,
    SESSION_START_INFO_TAG,
    create_summary_metadata,
)
from tbkit.proto import hparams_pb2, summary_pb2

HParamValue = bool | int | float | str | None


def _summary(tag: str, plugin_data: hparams_pb2.HParamsPluginData) -> summary_pb2.Summary:
    # The payload is in the metadata and the value carries nothing else, as torch writes it.
    value = summary_pb2.Summary.Value(tag=tag, metadata=create_summary_metadata(plugin_data))
    return summary_pb2.Summary(value=[value])


def _data_type(value: HParamValue) -> int:
    if isinstance(value, bool):
        return hparams_pb2.DATA_TYPE_BOOL
    if isinstance(value, int | float):
        return hparams_pb2.DATA_TYPE_FLOAT64
    if isinstance(value, str):
        return hparams_pb2.DATA_TYPE_STRING
    return hparams_pb2.DATA_TYPE_UNSET


def experiment_pb(
    hparams: Sequence[HParam],
    metrics: Sequence[Metric],
    *,
    values: Mapping[str, HParamValue] | None = None,
    time_created_secs: float = 0.0,
) -> summary_pb2.Summary:
    """The experiment summary: declared hyperparameters (with domains) and metrics.

    ``values`` (one session's values) give each hyperparameter's data type when its domain
    does not.
    """
    experiment = hparams_pb2.Experiment(time_created_secs=time_created_secs)
    for hp in hparams:
        if hp.domain is None and values is not None and values.get(hp.name) is None:
            continue  # a None value with no declared domain: TensorBoard has no type for it
        info = experiment.hparam_infos.add(
            name=hp.name, display_name=hp.display_name, description=hp.description
        )
        if isinstance(hp.domain, Interval):
            info.type = hparams_pb2.DATA_TYPE_FLOAT64
            info.domain_interval.min_value = hp.domain.min_value
            info.domain_interval.max_value = hp.domain.max_value
        elif isinstance(hp.domain, Discrete):
            info.type = _data_type(hp.domain.values[0])
            info.domain_discrete.extend(list(hp.domain.values))
        elif values is not None:
            info.type = _data_type(values.get(hp.name))
    for metric in metrics:
        experiment.metric_infos.add(
            name=hparams_pb2.MetricName(group=metric.group, tag=metric.tag),
            display_name=metric.display_name,
            description=metric.description,
            dataset_type=metric.dataset_type.value,
        )
    return _summary(EXPERIMENT_TAG, hparams_pb2.HParamsPluginData(experiment=experiment))


def group_name(values: Mapping[str, HParamValue]) -> str:
    """A stable name for the session group of these values (sessions with equal values share it)."""
    canonical = json.dumps({k: values[k] for k in sorted(values)}, sort_keys=True, allow_nan=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def session_start_pb(
    values: Mapping[str, HParamValue], *, start_time_secs: float, group: str | None = None
) -> summary_pb2.Summary:
    """A session's hyperparameter values. ``None`` values are left out (TensorBoard has no null)."""
    info = hparams_pb2.SessionStartInfo(
        start_time_secs=start_time_secs, group_name=group or group_name(values)
    )
    for name in sorted(values):
        value = values[name]
        if value is None:
            continue
        if isinstance(value, bool):
            info.hparams[name].bool_value = value
        elif isinstance(value, int | float):
            info.hparams[name].number_value = value
        elif isinstance(value, str):
            info.hparams[name].string_value = value
        else:
            raise TypeError(
                f"hparam {name!r} must be bool, int, float, str or None, got {type(value).__name__}"
            )
    return _summary(SESSION_START_INFO_TAG, hparams_pb2.HParamsPluginData(session_start_info=info))


def session_end_pb(status: Status, *, end_time_secs: float) -> summary_pb2.Summary:
    """A session's end: its status and time."""
    info = hparams_pb2.SessionEndInfo(status=status.value, end_time_secs=end_time_secs)
    return _summary(SESSION_END_INFO_TAG, hparams_pb2.HParamsPluginData(session_end_info=info))
