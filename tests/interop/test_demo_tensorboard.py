"""TensorBoard's own custom-scalars backend over tbkit's demo logdir: every margin chart of the
layout gets, for every run, value, lower and upper series with the same steps, which is what
TensorBoard's margin card requires before it draws ("The steps for value, lower, and upper tags
do not match" otherwise)."""

from __future__ import annotations

import json
import re

import _peers  # noqa: F401 - imported before TensorBoard: keeps TensorFlow out of this process
import pytest
from tensorboard.backend import application
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
from tensorboard.plugins import base_plugin
from tensorboard.plugins.custom_scalar import custom_scalars_plugin
from tensorboard.plugins.scalar import scalars_plugin
from werkzeug.test import Client
from werkzeug.wrappers import Response

from tbkit.demo import RUNS, write_demo_logdir

pytestmark = [pytest.mark.interop]


@pytest.fixture(scope="module")
def client(tmp_path_factory) -> Client:
    logdir = str(tmp_path_factory.mktemp("demo"))
    write_demo_logdir(logdir)  # the size `tbkit demo` writes
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, logdir)
    instances: dict[str, base_plugin.TBPlugin] = {}
    context = base_plugin.TBContext(
        logdir=logdir, multiplexer=multiplexer, data_provider=provider, plugin_name_to_instance=instances
    )
    plugins = [scalars_plugin.ScalarsPlugin(context), custom_scalars_plugin.CustomScalarsPlugin(context)]
    instances.update((p.plugin_name, p) for p in plugins)
    return Client(application.TensorBoardWSGI(plugins), Response)


def _get(client: Client, route: str, **query: str) -> dict:
    response = client.get(route, query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def test_margin_charts_have_matching_steps_in_tensorboard(client) -> None:
    layout = _get(client, "/data/plugin/custom_scalars/layout")
    series = [
        s
        for c in layout["category"]
        for chart in c["chart"]
        for s in chart.get("margin", {}).get("series", [])
    ]
    assert series, layout
    for s in series:
        tags = (s["value"], s["lower"], s["upper"])
        # The regex TensorBoard's margin card asks for: each tag escaped, in a group, joined by |.
        tag_filter = "|".join(f"({re.escape(t)})" for t in tags)
        for run, _ in RUNS:
            answer = _get(client, "/data/plugin/custom_scalars/scalars", run=run, tag=tag_filter)
            assert answer["regex_valid"], tag_filter
            events = answer["tag_to_events"]
            assert set(tags) <= set(events), (run, sorted(events))  # no "missing tags"
            value, lower, upper = ([e[1] for e in events[t]] for t in tags)
            assert value and lower == value and upper == value, run
            for (_, _, v), (_, _, lo), (_, _, hi) in zip(*(events[t] for t in tags), strict=True):
                assert lo < v < hi, run
