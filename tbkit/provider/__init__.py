"""The DataProvider: the one door between stored data and its consumers (frames, server).

A low layer: the package imports nothing of tbkit but :mod:`tbkit.errors` (no reader,
server or writer, and no kind), so plugin routes and the server can depend on the
interface without importing the reader. Its modules, each importing only those before it:

* :mod:`._types` and :mod:`._hparam_types`: the value types (frozen dataclasses), with
  :class:`RunTagFilter`, :class:`Series` and :class:`SeriesInfo` (a series without its
  points, for listings);
* :mod:`._sampling`: :func:`downsample_indices`, the deterministic sampling every provider
  uses;
* :mod:`._interface`: :class:`DataProvider`, the abstract interface (TensorBoard's method
  set, with the plugin name as the one positional argument and everything else
  keyword-only, and defaults for what tbkit adds), and :func:`set_hparams_queries`, through
  which the hparams kind answers the hparams queries;
* :mod:`._series`: :class:`SeriesProvider`, the whole interface implemented over a flat
  list of :class:`Series` (downsampling, filtering, blob keys), which concrete providers fill;
* :mod:`._memory`: :class:`InMemoryProvider`, a provider built from a dict, the test double.

Example:
    >>> p = InMemoryProvider({"train": {"loss": {"plugin": "scalars", "points": [(0, 1.0, 0.5)]}}})
    >>> p.read_scalars("scalars")["train"]["loss"][0].value
    0.5
"""

from tbkit.provider._hparam_types import (
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
    SessionStatus,
)
from tbkit.provider._hparams_hook import HParamsQueries, set_hparams_queries
from tbkit.provider._interface import DataProvider
from tbkit.provider._memory import InMemoryProvider, set_kind_defaults
from tbkit.provider._sampling import downsample_indices
from tbkit.provider._series import SeriesProvider
from tbkit.provider._types import (
    BlobColumns,
    BlobReference,
    BlobSequenceDatum,
    BlobSequenceTimeSeries,
    DataClass,
    Keep,
    PluginFile,
    Run,
    RunTagFilter,
    ScalarColumns,
    ScalarDatum,
    ScalarTimeSeries,
    Series,
    SeriesInfo,
    TensorColumns,
    TensorDatum,
    TensorTimeSeries,
)

__all__ = [
    "BlobColumns",
    "BlobReference",
    "BlobSequenceDatum",
    "BlobSequenceTimeSeries",
    "DataClass",
    "DataProvider",
    "HParamDomainType",
    "HParamFilter",
    "HParamMetric",
    "HParamSort",
    "HParamValue",
    "HParamsExperiment",
    "HParamsQueries",
    "HParamsSession",
    "HParamsSessionGroup",
    "Hyperparameter",
    "InMemoryProvider",
    "Keep",
    "MetricValue",
    "PluginFile",
    "Run",
    "RunTagFilter",
    "ScalarColumns",
    "ScalarDatum",
    "ScalarTimeSeries",
    "Series",
    "SeriesInfo",
    "SeriesProvider",
    "SessionStatus",
    "TensorColumns",
    "TensorDatum",
    "TensorTimeSeries",
    "downsample_indices",
    "set_hparams_queries",
    "set_kind_defaults",
]
