"""``SummaryWriter.add_embedding``: the files on disk and the appended config."""

from __future__ import annotations

import io
import math
import os

import numpy as np
import pytest
from PIL import Image

from tbkit import SummaryWriter
from tbkit.plugins.projector import metadata as meta
from tbkit.plugins.projector.files import read_config, write_embedding


def _rows(path: str, dtype: type = np.float32) -> np.ndarray:
    with open(path) as f:
        return np.array([[float(x) for x in line.rstrip("\n").split("\t")] for line in f], dtype=dtype)


def test_files_and_config_are_laid_out_like_torch(tmp_path) -> None:
    rng = np.random.default_rng(3)
    mat = rng.standard_normal((7, 5)).astype(np.float32)
    labels = [f"w{i}" for i in range(7)]
    images = rng.random((7, 3, 6, 4)).astype(np.float32)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(mat, labels, images, global_step=12, tag="emb/one")
    config = read_config(str(tmp_path))
    assert len(config.embeddings) == 1
    info = config.embeddings[0]
    assert info.tensor_name == "emb/one:00012"
    folder = tmp_path / "00012" / "emb%2fone"
    for rel, name in [
        (info.tensor_path, "tensors.tsv"),
        (info.metadata_path, "metadata.tsv"),
        (info.sprite.image_path, "sprite.png"),
    ]:
        assert os.path.samefile(tmp_path / rel, folder / name)
    assert np.array_equal(_rows(str(folder / "tensors.tsv")), mat)
    assert (folder / "metadata.tsv").read_text().splitlines() == labels
    sprite = Image.open(io.BytesIO((folder / "sprite.png").read_bytes()))
    side = math.ceil(math.sqrt(7))
    assert sprite.size == (side * 4, side * 6)
    assert list(info.sprite.single_image_dim) == [4, 6]


def test_without_metadata_or_images_only_the_tensor_is_written(tmp_path) -> None:
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(np.eye(3))
    info = read_config(str(tmp_path)).embeddings[0]
    assert info.tensor_name == "default:00000"
    assert not info.metadata_path and not info.HasField("sprite")
    assert sorted(os.listdir(tmp_path / "00000" / "default")) == ["tensors.tsv"]
    assert np.array_equal(_rows(str(tmp_path / info.tensor_path), np.float64), np.eye(3))


def test_multi_column_metadata_gets_a_header_row(tmp_path) -> None:
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(np.zeros((2, 2)), [["a", 1], ["b", 2]], metadata_header=["name", "n"])
    info = read_config(str(tmp_path)).embeddings[0]
    assert (tmp_path / info.metadata_path).read_text().splitlines() == ["name\tn", "a\t1", "b\t2"]


def test_a_second_embedding_and_a_second_writer_keep_the_first(tmp_path) -> None:
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(np.ones((2, 3)), ["x", "y"], tag="first")
        writer.add_embedding(np.ones((4, 3)), global_step=1, tag="first")
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(np.ones((5, 2)), tag="second")
    names = [e.tensor_name for e in read_config(str(tmp_path)).embeddings]
    assert names == ["first:00000", "first:00001", "second:00000"]
    for info in read_config(str(tmp_path)).embeddings:
        assert (tmp_path / info.tensor_path).is_file()


def test_logging_the_same_tag_and_step_again_warns_and_keeps_one_entry(tmp_path) -> None:
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(np.zeros((2, 2)), tag="t")
        with pytest.warns(UserWarning, match="global_step"):
            writer.add_embedding(np.ones((3, 2)), tag="t")
    config = read_config(str(tmp_path))
    assert [e.tensor_name for e in config.embeddings] == ["t:00000"]
    assert np.array_equal(_rows(str(tmp_path / config.embeddings[0].tensor_path)), np.ones((3, 2)))


@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"mat": np.zeros(4)}, "mat"),
        ({"mat": np.zeros((2, 2, 2))}, "mat"),
        ({"mat": np.zeros((3, 2)), "metadata": ["a", "b"]}, "metadata"),
        ({"mat": np.zeros((2, 2)), "label_img": np.zeros((2, 8, 8))}, "label_img"),
        ({"mat": np.zeros((2, 2)), "label_img": np.zeros((3, 3, 8, 8))}, "label_img"),
        ({"mat": np.zeros((2, 2)), "metadata": [["a"], ["b", "c"]], "metadata_header": ["x"]}, "metadata"),
    ],
)
def test_bad_input_is_refused_by_name_before_anything_is_written(tmp_path, kwargs, argument) -> None:
    with SummaryWriter(str(tmp_path)) as writer, pytest.raises(ValueError, match=argument):
        writer.add_embedding(**kwargs)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("events.")) == []


def test_torch_tensors_are_accepted(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    mat = torch.randn(4, 3, dtype=torch.float32)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_embedding(mat, torch.arange(4), torch.rand(4, 1, 2, 2), global_step=torch.tensor(2))
    info = read_config(str(tmp_path)).embeddings[0]
    assert info.tensor_name == "default:00002"
    assert np.array_equal(_rows(str(tmp_path / info.tensor_path)), mat.numpy())
    assert (tmp_path / info.metadata_path).read_text().split() == ["0", "1", "2", "3"]


def test_embeddings_can_be_written_to_fsspec_storage() -> None:
    pytest.importorskip("fsspec")
    import fsspec

    root = "memory://tbkit-projector-test/run"
    try:
        write_embedding(root, np.eye(2), ["a", "b"], tag="m")
        write_embedding(root, np.eye(2), tag="n")
        names = [e.tensor_name for e in read_config(root).embeddings]
        assert names == ["m:00000", "n:00000"]
        fs = fsspec.filesystem("memory")
        assert fs.cat(f"/tbkit-projector-test/run/00000/m/{meta.METADATA_FILENAME}") == b"a\nb\n"
    finally:
        fsspec.filesystem("memory").rm("/tbkit-projector-test", recursive=True)
