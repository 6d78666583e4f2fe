"""Embeddings written by tbkit, served by TensorBoard's own projector plugin and set beside torch's.

The plugin is TensorBoard's real ``ProjectorPlugin`` over a real ``MultiplexerDataProvider``;
its WSGI routes are called through werkzeug's test client (TensorBoard's TF stub, no TensorFlow).
"""

from __future__ import annotations

import io
import json
import sys
import types
from pathlib import Path

# TensorBoard's switch to its own TF stub (its ``no_tensorflow`` build): TensorFlow is installed
# here and would otherwise be imported by the projector plugin, costing seconds.
sys.modules.setdefault("tensorboard.compat.notf", types.ModuleType("tensorboard.compat.notf"))

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from PIL import Image  # noqa: E402
from tensorboard.backend.event_processing import data_provider, plugin_event_multiplexer  # noqa: E402
from tensorboard.plugins import base_plugin  # noqa: E402
from tensorboard.plugins.projector import projector_config_pb2, projector_plugin  # noqa: E402
from werkzeug import test as werkzeug_test  # noqa: E402
from werkzeug import wrappers  # noqa: E402

from tbkit import SummaryWriter  # noqa: E402

pytestmark = pytest.mark.interop

RNG = np.random.default_rng(11)
MAT = RNG.standard_normal((9, 6)).astype(np.float32)
LABELS = [[f"word{i}", i % 3] for i in range(9)]
HEADER = ["word", "group"]
IMAGES = (RNG.integers(0, 256, (9, 3, 5, 5)) / 255.0).astype(np.float32)


def _write(writer, *, torch_values: bool = False) -> None:
    mat, images = MAT, IMAGES
    if torch_values:
        import torch

        mat, images = torch.from_numpy(MAT), torch.from_numpy(IMAGES)
    writer.add_embedding(mat, LABELS, images, global_step=4, tag="words", metadata_header=HEADER)
    writer.add_embedding(mat * 2, [row[0] for row in LABELS], global_step=5, tag="words/x2")


class _Projector:
    def __init__(self, logdir: Path) -> None:
        multiplexer = plugin_event_multiplexer.EventMultiplexer()
        multiplexer.AddRunsFromDirectory(str(logdir))
        multiplexer.Reload()
        provider = data_provider.MultiplexerDataProvider(multiplexer, str(logdir))
        context = base_plugin.TBContext(logdir=str(logdir), data_provider=provider, multiplexer=multiplexer)
        self.apps = projector_plugin.ProjectorPlugin(context).get_plugin_apps()

    def get(self, route: str, **query: str) -> wrappers.Response:
        response = werkzeug_test.Client(self.apps[route], wrappers.Response).get(route, query_string=query)
        assert response.status_code == 200, response.get_data(as_text=True)
        return response


def test_tensorboard_projector_lists_and_serves_tbkit_embeddings(tmp_path: Path) -> None:
    with SummaryWriter(str(tmp_path / "run")) as writer:
        _write(writer)
    projector = _Projector(tmp_path)
    assert json.loads(projector.get("/runs").get_data()) == ["run"]
    info = json.loads(projector.get("/info", run="run").get_data())
    names = [e["tensorName"] for e in info["embeddings"]]
    assert names == ["words:00004", "words/x2:00005"]
    assert info["embeddings"][0]["tensorShape"] == [9, 6]

    served = np.frombuffer(projector.get("/tensor", run="run", name="words:00004").get_data(), np.float32)
    assert np.array_equal(served.reshape(MAT.shape), MAT)
    served2 = np.frombuffer(projector.get("/tensor", run="run", name="words/x2:00005").get_data(), np.float32)
    assert np.array_equal(served2.reshape(MAT.shape), MAT * 2)

    lines = projector.get("/metadata", run="run", name="words:00004").get_data(as_text=True).splitlines()
    assert lines == ["\t".join(HEADER)] + [f"{w}\t{g}" for w, g in LABELS]
    single = projector.get("/metadata", run="run", name="words/x2:00005").get_data(as_text=True)
    assert single.splitlines() == [row[0] for row in LABELS]

    sprite = projector.get("/sprite_image", run="run", name="words:00004")
    assert sprite.mimetype == "image/png"
    pixels = np.asarray(Image.open(io.BytesIO(sprite.get_data())))
    assert pixels.shape == (3 * 5, 3 * 5, 3)
    first = np.round(IMAGES[0].transpose(1, 2, 0) * 255)
    assert np.abs(pixels[:5, :5].astype(int) - first).max() <= 1


def test_same_files_and_config_as_torch_for_the_same_calls(tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with SummaryWriter(str(tmp_path / "tbkit")) as writer:
        _write(writer)
    torch_writer = TorchWriter(str(tmp_path / "torch"))
    _write(torch_writer, torch_values=True)
    torch_writer.close()

    configs = {}
    for side in ("tbkit", "torch"):
        text = (tmp_path / side / "projector_config.pbtxt").read_text()
        configs[side] = text_format.Parse(text, projector_config_pb2.ProjectorConfig())
    assert configs["tbkit"] == configs["torch"]
    assert len(configs["tbkit"].embeddings) == 2

    for info in configs["torch"].embeddings:
        ours, theirs = tmp_path / "tbkit", tmp_path / "torch"
        tensors = [projector_plugin._read_tensor_tsv_file(str(d / info.tensor_path)) for d in (ours, theirs)]
        assert np.array_equal(tensors[0], tensors[1])
        assert (ours / info.metadata_path).read_text() == (theirs / info.metadata_path).read_text()
        if info.sprite.image_path:
            a, b = (np.asarray(Image.open(d / info.sprite.image_path)) for d in (ours, theirs))
            assert a.shape == b.shape
            assert np.abs(a.astype(int) - b).max() <= 1
