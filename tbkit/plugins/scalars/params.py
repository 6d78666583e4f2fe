"""The request parameters of a scalar chart, shared by every route that draws one.

``points`` (at most :data:`MAX_POINTS`; default ``--samples_per_plugin scalars=N`` or
:data:`DEFAULT_POINTS`), ``smoothing`` in ``[0, 1)``, and the step range ``min_step`` ..
``max_step``; each checked, with a clear 400 when it is not valid.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tbkit.errors import InvalidArgumentError
from tbkit.plugins import _web
from tbkit.plugins.scalars.metadata import PLUGIN_NAME

__all__ = ["DEFAULT_POINTS", "MAX_POINTS", "chart_options"]

DEFAULT_POINTS = 1000
MAX_POINTS = 10000


def chart_options(args: Mapping[str, Any]) -> dict[str, Any]:
    """``{"points", "smoothing", "min_step", "max_step"}`` of a request, checked.

    Raises:
        InvalidArgumentError: A parameter is malformed or out of range, or
            ``min_step`` is larger than ``max_step``.
    """
    default = _web.samples(PLUGIN_NAME, DEFAULT_POINTS) or MAX_POINTS
    points = _web.int_param(args, "points", default=min(default, MAX_POINTS), low=1, high=MAX_POINTS)
    smoothing = _web.float_param(args, "smoothing", default=0.0, low=0.0, high=1.0, high_open=True)
    min_step = _web.int_param(args, "min_step", default=None)
    max_step = _web.int_param(args, "max_step", default=None)
    if min_step is not None and max_step is not None and min_step > max_step:
        raise InvalidArgumentError(f"min_step ({min_step}) is larger than max_step ({max_step})")
    points = int(points or DEFAULT_POINTS)
    return {"points": points, "smoothing": smoothing, "min_step": min_step, "max_step": max_step}
