"""Where the hparams kind plugs its session queries into every provider (the provider imports no kind).

The hparams kind calls :func:`set_hparams_queries` with its ``sessions`` module when its
package is imported; :class:`~tbkit.provider.DataProvider`'s default hparams methods ask
:func:`hparams_queries` for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from tbkit.provider._hparam_types import (
    HParamFilter,
    HParamsExperiment,
    HParamSort,
    HParamsSessionGroup,
    SessionStatus,
)

if TYPE_CHECKING:
    from tbkit.provider._interface import DataProvider

__all__ = ["HParamsQueries", "hparams_queries", "set_hparams_queries"]


class HParamsQueries(Protocol):
    """How the hparams queries are answered over any provider's series (the hparams kind's module)."""

    def list_hyperparameters(self, provider: DataProvider, *, limit: int | None = None) -> HParamsExperiment:
        """See :meth:`DataProvider.list_hyperparameters`."""
        ...

    def read_hyperparameters(
        self,
        provider: DataProvider,
        *,
        filters: Iterable[HParamFilter] | None = None,
        sort: Sequence[HParamSort] | None = None,
        hparams_to_include: Collection[str] | None = None,
        statuses: Iterable[SessionStatus | str] | None = None,
    ) -> list[HParamsSessionGroup]:
        """See :meth:`DataProvider.read_hyperparameters`."""
        ...


_hparams_queries: HParamsQueries | None = None


def set_hparams_queries(queries: HParamsQueries | None) -> None:
    """Make ``queries`` answer every provider's default hparams queries (None: answer none).

    The hparams kind calls this with its ``sessions`` module when its package is imported
    (the reader imports it to decode hparams summaries, the writer to write them), so the
    provider computes hparams without importing a kind. Until then the defaults answer an
    empty experiment and no session groups, which is what they would compute: no hparams
    summary can have been decoded.
    """
    global _hparams_queries
    _hparams_queries = queries


def hparams_queries() -> HParamsQueries | None:
    """The queries :func:`set_hparams_queries` installed, or None."""
    return _hparams_queries
