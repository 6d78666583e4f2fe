"""hparams, PR curves, custom scalars, mesh and video written by tbkit, read by TensorBoard's plugins.

Each plugin backend is TensorBoard's own, served through its WSGI app over a multiplexer of the
logdir; torch.utils.tensorboard writes the same hparams session beside tbkit for comparison.
"""

from __future__ import annotations

import io
import json
import os

import _peers  # noqa: F401 - imported before TensorBoard: keeps TensorFlow out of this process
import numpy as np
import pytest
from PIL import Image
from tensorboard.backend import application
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer
from tensorboard.plugins import base_plugin
from tensorboard.plugins.custom_scalar import custom_scalars_plugin
from tensorboard.plugins.hparams import hparams_plugin
from tensorboard.plugins.image import images_plugin
from tensorboard.plugins.mesh import mesh_plugin
from tensorboard.plugins.pr_curve import pr_curves_plugin
from werkzeug.test import Client
from werkzeug.wrappers import Response

import tbkit
from tbkit.plugins.mesh.metadata import ContentType
from tbkit.plugins.pr_curves.summary import compute_curve

ROWS = ("true_positives", "false_positives", "true_negatives", "false_negatives", "precision", "recall")

pytestmark = [pytest.mark.interop]

HPARAMS = {"lr": 0.01, "optimizer": "adam", "batchnorm": True, "layers": 3}
_rng = np.random.default_rng(7)
LABELS = _rng.integers(0, 2, 200)
PREDICTIONS = _rng.random(200)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> str:
    root = tmp_path_factory.mktemp("rich")
    rng = np.random.default_rng(0)
    with tbkit.SummaryWriter(str(root / "tbkit")) as w:
        w.add_scalar("accuracy", 0.25, 5)
        w.add_hparams(HPARAMS, {"accuracy": 0.75}, global_step=10)
        w.add_pr_curve("pr", LABELS, PREDICTIONS, 1, num_thresholds=21)
        w.add_custom_scalars(
            {"Metrics": {"acc": ["Multiline", ["accuracy"]], "band": ["Margin", ["a", "b", "c"]]}}
        )
        w.add_mesh("cloud", rng.random((1, 20, 3)), colors=rng.integers(0, 255, (1, 20, 3)), global_step=2)
        w.add_video("video", rng.random((1, 4, 3, 8, 10)), 3, fps=2)
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with TorchWriter(str(root / "torch")) as w:
        w.add_hparams(HPARAMS, {"accuracy": 0.75}, run_name="session", global_step=10)
    return str(root)


@pytest.fixture(scope="module")
def client(logdir) -> Client:
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, logdir)
    context = base_plugin.TBContext(logdir=logdir, multiplexer=multiplexer, data_provider=provider)
    plugins = [
        hparams_plugin.HParamsPlugin(context),
        pr_curves_plugin.PrCurvesPlugin(context),
        custom_scalars_plugin.CustomScalarsPlugin(context),
        mesh_plugin.MeshPlugin(context),
        images_plugin.ImagesPlugin(context),
    ]
    return Client(application.TensorBoardWSGI(plugins), Response)


def _post(client: Client, route: str, body: dict) -> dict:
    response = client.post(
        route, data=json.dumps(body), headers={"X-XSRF-Protected": "1"}, content_type="application/json"
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def _get(client: Client, route: str) -> object:
    response = client.get(route)
    assert response.status_code == 200, response.get_data(as_text=True)
    return json.loads(response.get_data(as_text=True))


def test_hparams_sessions_match_torch(client) -> None:
    experiment = _post(client, "/data/plugin/hparams/experiment", {"experimentName": ""})
    assert {h["name"] for h in experiment["hparamInfos"]} == set(HPARAMS)
    groups = _post(
        client,
        "/data/plugin/hparams/session_groups",
        {
            "experimentName": "",
            "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
            "colParams": [{"metric": {"tag": "accuracy"}}] + [{"hparam": name} for name in HPARAMS],
            "startIndex": 0,
            "sliceSize": 10,
        },
    )["sessionGroups"]
    sessions = {s["name"]: (g["hparams"], s) for g in groups for s in g["sessions"]}
    ours, theirs = sessions["tbkit"], sessions[os.path.join("torch", "session")]
    assert ours[0] == theirs[0] == {"lr": 0.01, "optimizer": "adam", "batchnorm": True, "layers": 3}
    metric = {m["name"]["tag"]: m for m in ours[1]["metricValues"]}["accuracy"]
    assert (metric["value"], metric["trainingStep"]) == (pytest.approx(0.75), 10)
    assert ours[1]["status"] == "STATUS_SUCCESS"


def test_pr_curve_served(client) -> None:
    (entry,) = _get(client, "/data/plugin/pr_curves/pr_curves?run=tbkit&tag=pr")["tbkit"]
    assert entry["step"] == 1
    expected = dict(zip(ROWS, compute_curve(LABELS, PREDICTIONS, 21), strict=True))
    served = len(entry["precision"])  # TensorBoard leaves out trailing thresholds with no positives
    assert 0 < served <= 21
    for row in ROWS:
        np.testing.assert_allclose(entry[row], expected[row][:served], rtol=1e-6)


def test_custom_scalars_layout_served(client) -> None:
    layout = _get(client, "/data/plugin/custom_scalars/layout")
    (category,) = layout["category"]
    assert category["title"] == "Metrics"
    assert category["chart"][0]["multiline"]["tag"] == ["accuracy"]
    assert category["chart"][1]["margin"]["series"][0] == {"value": "a", "lower": "b", "upper": "c"}


def test_mesh_served(client) -> None:
    tags = _get(client, "/data/plugin/mesh/tags")
    assert tags["tbkit"] == {"cloud": {"samples": 1}}
    meta = _get(client, "/data/plugin/mesh/meshes?run=tbkit&tag=cloud&sample=0")
    kinds = {m["content_type"] for m in meta}
    assert kinds == {ContentType.VERTEX, ContentType.COLOR}
    assert all(m["step"] == 2 for m in meta)


def test_video_served_as_animated_gif(client) -> None:
    (entry,) = _get(client, "/data/plugin/images/images?run=tbkit&tag=video&sample=0")
    assert entry["step"] == 3
    response = client.get("/data/plugin/images/" + entry["query"].join(["individualImage?", ""]))
    assert response.status_code == 200
    image = Image.open(io.BytesIO(response.get_data()))
    assert (image.format, image.n_frames) == ("GIF", 4)
    assert image.size == (10, 8)
