"""Custom-scalars layouts: torch's nested-dict form to a ``Layout`` proto and its summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tbkit._tensors import make_tensor_proto
from tbkit.plugins._metadata import tensor_summary
from tbkit.plugins.custom_scalars.metadata import CONFIG_TAG, create_summary_metadata
from tbkit.proto import plugins_pb2, summary_pb2

LayoutDict = Mapping[str, Mapping[str, Sequence[object]]]


def layout_from_dict(layout: LayoutDict) -> plugins_pb2.Layout:
    """Build a ``Layout`` from ``{category: {chart title: [kind, tags]}}``.

    ``kind`` is ``"Multiline"`` with a list of tag regexes, or ``"Margin"`` with
    ``[value, lower, upper]`` tags (torch's format).

    Example:
        >>> layout_from_dict({"loss": {"all": ["Multiline", ["loss/.*"]]}}).category[0].title
        'loss'
    """
    if not isinstance(layout, Mapping):
        raise TypeError(f"layout must be a dict of categories, got {type(layout).__name__}")
    proto = plugins_pb2.Layout()
    for category_title, charts in layout.items():
        category = proto.category.add(title=str(category_title))
        if not isinstance(charts, Mapping):
            raise TypeError(f"layout[{category_title!r}] must be a dict of charts")
        for chart_title, spec in charts.items():
            if not isinstance(spec, Sequence) or len(spec) != 2:
                raise ValueError(f"layout[{category_title!r}][{chart_title!r}] must be [kind, tags]")
            kind, tags = spec
            chart = category.chart.add(title=str(chart_title))
            if kind == "Multiline":
                chart.multiline.tag.extend([str(t) for t in tags])  # type: ignore[union-attr]
            elif kind == "Margin":
                if len(tags) != 3:  # type: ignore[arg-type]
                    raise ValueError(f"a Margin chart needs [value, lower, upper] tags, got {tags!r}")
                value, lower, upper = (str(t) for t in tags)  # type: ignore[union-attr]
                chart.margin.series.add(value=value, lower=lower, upper=upper)
            else:
                raise ValueError(f"chart kind must be 'Multiline' or 'Margin', got {kind!r}")
    return proto


def layout_pb(layout: plugins_pb2.Layout) -> summary_pb2.Summary:
    """The layout summary (a rank-0 string tensor of the serialized ``Layout``)."""
    data = np.empty((), dtype=object)
    data[()] = layout.SerializeToString()
    return tensor_summary(CONFIG_TAG, make_tensor_proto(data), create_summary_metadata())
