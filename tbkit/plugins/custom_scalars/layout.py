"""The custom-scalars layout the dashboard shows: every run's layout merged, as JSON.

Runs are taken in name order and each run's latest layout is used. A category whose title
was seen before gets the new run's charts appended (an equal chart only once); a new title
adds a category. This is the rule TensorBoard's custom scalars plugin applies.

Example:
    >>> from tbkit.plugins.custom_scalars.summary import layout_from_dict
    >>> a = layout_from_dict({"c": {"x": ["Multiline", ["a.*"]]}})
    >>> b = layout_from_dict({"c": {"y": ["Margin", ["v", "lo", "hi"]]}, "d": {}})
    >>> [c["title"] for c in layout_json(merge_layouts([a, b]))["categories"]]
    ['c', 'd']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tbkit.plugins.custom_scalars.decode import CONFIG_TAG, PLUGIN_NAME, parse
from tbkit.proto import plugins_pb2
from tbkit.provider import DataProvider, RunTagFilter

__all__ = ["layout_json", "merge_layouts", "provider_layout"]


def merge_layouts(layouts: Iterable[plugins_pb2.Layout]) -> plugins_pb2.Layout:
    """One ``Layout`` from several: same-titled categories merged, their charts deduplicated."""
    merged = plugins_pb2.Layout()
    by_title: dict[str, plugins_pb2.Category] = {}
    for layout in layouts:
        for category in layout.category:
            target = by_title.get(category.title)
            if target is None:
                target = merged.category.add()
                target.CopyFrom(category)
                by_title[category.title] = target
                continue
            for chart in category.chart:
                if chart not in target.chart:
                    target.chart.add().CopyFrom(chart)
    return merged


def _chart_json(chart: plugins_pb2.Chart) -> dict[str, Any]:
    if chart.WhichOneof("content") == "margin":
        series = [{"value": s.value, "lower": s.lower, "upper": s.upper} for s in chart.margin.series]
        return {"title": chart.title, "kind": "margin", "series": series}
    return {"title": chart.title, "kind": "multiline", "tags": list(chart.multiline.tag)}


def layout_json(layout: plugins_pb2.Layout) -> dict[str, Any]:
    """``{"categories": [{"title", "closed", "charts": [chart]}]}``; a chart is
    ``{"title", "kind": "multiline", "tags": [regex]}`` or
    ``{"title", "kind": "margin", "series": [{"value", "lower", "upper"}]}``."""
    return {
        "categories": [
            {"title": c.title, "closed": bool(c.closed), "charts": [_chart_json(ch) for ch in c.chart]}
            for c in layout.category
        ]
    }


def provider_layout(provider: DataProvider) -> tuple[plugins_pb2.Layout, list[str]]:
    """The merged layout of every run's latest layout, and the runs whose layout could not be read."""
    data = provider.read_tensors(PLUGIN_NAME, run_tag_filter=RunTagFilter(tags=[CONFIG_TAG]))
    layouts = []
    unreadable = []
    for run in sorted(data):
        points = data[run].get(CONFIG_TAG) or []
        if not points:
            continue
        latest = max(reversed(points), key=lambda p: p.step)  # the last one written at the latest step
        try:
            layouts.append(parse(latest.numpy))
        except ValueError:
            unreadable.append(run)
    return merge_layouts(layouts), unreadable
