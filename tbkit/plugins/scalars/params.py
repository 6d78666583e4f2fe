"""The request parameters of a scalar chart, shared by every route that draws one.

``points`` (the points per series: :data:`DEFAULT_POINTS` by default, at most
:data:`MAX_POINTS`), ``smoothing`` in ``[0, 1)``, and the step range ``min_step`` ..
``max_step``; each checked, with a clear 400 when it is not valid.

``--samples_per_plugin scalars=N`` makes ``N`` both the default and the most a request gets
(a larger ``points`` is cut to ``N``); ``scalars=all`` makes every point the default
(``points`` None: no downsampling), and any ``points`` may be asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tbkit.errors import InvalidArgumentError
from tbkit.plugins import web
from tbkit.plugins.scalars.metadata import PLUGIN_NAME

__all__ = ["DEFAULT_POINTS", "MAX_POINTS", "chart_options"]

DEFAULT_POINTS = 1000
MAX_POINTS = 10000


def _points(args: Mapping[str, Any]) -> int | None:
    """The points per series to serve (None: all), after ``--samples_per_plugin scalars``."""
    table = web.state().samples_per_plugin
    if PLUGIN_NAME not in table:
        return web.int_param(args, "points", default=DEFAULT_POINTS, low=1, high=MAX_POINTS)
    limit = table[PLUGIN_NAME]
    asked = web.int_param(args, "points", default=None, low=1, high=None)
    if asked is None:
        return limit
    return asked if limit is None else min(asked, limit)


def chart_options(args: Mapping[str, Any]) -> dict[str, Any]:
    """``{"points", "smoothing", "min_step", "max_step"}`` of a request, checked.

    ``points`` is None when every point is to be sent (``--samples_per_plugin scalars=all``).

    Raises:
        InvalidArgumentError: A parameter is malformed or out of range, or
            ``min_step`` is larger than ``max_step``.
    """
    points = _points(args)
    smoothing = web.float_param(args, "smoothing", default=0.0, low=0.0, high=1.0, high_open=True)
    min_step = web.int_param(args, "min_step", default=None)
    max_step = web.int_param(args, "max_step", default=None)
    if min_step is not None and max_step is not None and min_step > max_step:
        raise InvalidArgumentError(f"min_step ({min_step}) is larger than max_step ({max_step})")
    return {"points": points, "smoothing": smoothing, "min_step": min_step, "max_step": max_step}
