"""A Keras model summary of an odd shape: the graph routes answer 404 with the reason, never 500."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tbkit
from tbkit import SummaryWriter
from tbkit.plugins.graphs.summary import keras_model_pb
from tbkit.server.app import create_app

ODD = {
    "config_is_a_number": {"class_name": "Sequential", "config": 5},
    "layers_not_objects": {"class_name": "Functional", "config": {"layers": [1, "x", None]}},
}


@pytest.mark.parametrize("name", sorted(ODD))
@pytest.mark.parametrize("route", ["layout", "search?q=a", "node?name=x"])
def test_an_odd_keras_config_is_not_a_500(tmp_path: Path, name: str, route: str) -> None:
    # Before ("config_is_a_number"): 500, AttributeError from the Keras decoder, raised at the route.
    with SummaryWriter(str(tmp_path / "run")) as w:
        w.file_writer.add_summary(keras_model_pb("keras", json.dumps(ODD[name])), 0)
    client = create_app(tbkit.read(str(tmp_path)).provider).test_client()
    sep = "&" if "?" in route else "?"
    response = client.get(f"/data/plugin/graphs/{route}{sep}run=run&tag=keras")
    assert response.status_code in (200, 404)
    if response.status_code == 404:
        assert "error" in response.json
