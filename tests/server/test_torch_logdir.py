"""Every dashboard route over a logdir written by torch.utils.tensorboard."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

import tbkit

pytestmark = [pytest.mark.interop, pytest.mark.slow]  # torch's writer imports TensorFlow when present


def test_routes_over_a_torch_logdir(torch_logdir: Path, make_client: Any) -> None:
    client = make_client(torch_logdir)
    assert [r["name"] for r in client.get("/data/runs").json] == ["torch_run"]
    listing = client.get("/data/plugins_listing").json
    for name in ["scalars", "histograms", "distributions", "images", "audio", "text"]:
        assert listing[name]["enabled"], name

    answer = client.get("/data/plugin/scalars/scalars?tag=torch/loss&points=50&smoothing=0.6").json[
        "torch_run"
    ]
    assert answer["total"] == 300 and answer["shown"] <= 50
    assert answer["step"][0] == 0 and answer["step"][-1] == 299
    assert answer["value"][0] == 1.0

    rows = list(
        csv.DictReader(
            io.StringIO(
                client.get("/data/plugin/scalars/download?run=torch_run&tag=torch/loss").get_data(
                    as_text=True
                )
            )
        )
    )
    frame = tbkit.read(str(torch_logdir)).scalars()
    assert [float(r["value"]) for r in rows] == frame[frame.tag == "torch/loss"].value.tolist()

    hist = client.get("/data/plugin/histograms/histograms?run=torch_run&tag=torch/hist").json
    assert [h["step"] for h in hist] == [0, 1, 2]
    assert sum(b[2] for b in hist[0]["buckets"]) == 1000
    dist = client.get("/data/plugin/histograms/distributions?run=torch_run&tag=torch/hist").json
    assert -1.5 < dist[0]["values"][4] < 1.5  # the median of a standard normal sample

    images = client.get("/data/plugin/images/images?run=torch_run&tag=torch/image").json
    assert [(i["width"], i["height"], i["format"]) for i in images] == [(12, 10, "png")] * 3
    image = client.get(
        "/data/plugin/images/individualImage", query_string={"blob_key": images[0]["blob_key"]}
    )
    assert image.mimetype == "image/png"

    clips = client.get("/data/plugin/audio/audio?run=torch_run&tag=torch/audio").json
    assert [c["sample_rate"] for c in clips] == [16000] * 3
    clip = client.get("/data/plugin/audio/individualAudio", query_string={"blob_key": clips[0]["blob_key"]})
    assert clip.mimetype == "audio/wav" and clip.data[:4] == b"RIFF"

    texts = client.get(
        "/data/plugin/text/text?run=torch_run&tag=torch/text/text_summary"
    ).json  # torch's tag name
    assert len(texts) == 3
    assert "<em>text</em>" in texts[0]["html"] and "<script" not in texts[0]["html"]

    cards = client.get("/data/plugin/timeseries/tags").json
    assert cards["scalars"] == {"torch/loss": ["torch_run"]}
    assert cards["images"]["torch/image"]["samples"] == 1
