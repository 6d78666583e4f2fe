"""The projector's pure file builders: TSV tensors, TSV metadata, sprites."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from tbkit.plugins.projector import summary


def _parse_tsv(data: bytes, dtype: type) -> np.ndarray:
    # The way TensorBoard's projector reads tensors.tsv: float() per cell.
    rows = [[float(x) for x in line.split("\t")] for line in data.decode("ascii").splitlines() if line]
    return np.array(rows, dtype=dtype)


def test_float32_values_round_trip_exactly() -> None:
    rng = np.random.default_rng(1)
    scale = 10.0 ** rng.integers(-30, 30, (64, 33))
    mat = (rng.standard_normal((64, 33)) * scale).astype(np.float32)
    special = np.array(
        [0.0, -0.0, 1e-45, -1e-45, 3.4028235e38, np.inf, -np.inf, np.nan, 0.1], dtype=np.float32
    )
    mat[0, : special.size] = special
    back = _parse_tsv(summary.tensors_tsv(mat), np.float32)
    assert back.shape == mat.shape
    assert np.array_equal(back.view(np.uint32), mat.view(np.uint32))


def test_float64_values_round_trip_exactly() -> None:
    mat = np.random.default_rng(2).standard_normal((20, 7)) / 3.0
    back = _parse_tsv(summary.tensors_tsv(mat), np.float64)
    assert np.array_equal(back, mat)


def test_integer_and_bool_matrices_are_written_as_numbers() -> None:
    mat = np.arange(12, dtype=np.int64).reshape(3, 4) * 1_000_003
    assert np.array_equal(_parse_tsv(summary.tensors_tsv(mat), np.float64), mat)
    flags = np.array([[True, False]])
    assert np.array_equal(_parse_tsv(summary.tensors_tsv(flags), np.float32), flags.astype(np.float32))


@pytest.mark.parametrize("shape", [(5,), (2, 3, 4), (0, 3), (3, 0)])
def test_mat_of_the_wrong_shape_is_refused_by_name(shape: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="mat"):
        summary.check_mat(np.zeros(shape))


def test_mat_of_complex_or_text_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="mat"):
        summary.check_mat(np.zeros((2, 2), dtype=np.complex64))
    with pytest.raises(TypeError, match="mat"):
        summary.check_mat(np.array([["a", "b"]]))


def test_single_column_metadata_has_no_header_row() -> None:
    assert summary.metadata_tsv(["cat", "dog", 3], 3).decode().splitlines() == ["cat", "dog", "3"]


def test_multi_column_metadata_starts_with_its_header() -> None:
    data = summary.metadata_tsv([("cat", 1), ["dog", 2]], 2, ["animal", "id"])
    assert data.decode().splitlines() == ["animal\tid", "cat\t1", "dog\t2"]


def test_a_one_column_header_is_left_out_because_tensorboard_would_read_it_as_data() -> None:
    data = summary.metadata_tsv([["cat"], "dog"], 2, ["animal"])
    assert data.decode().splitlines() == ["cat", "dog"]


def test_tabs_and_line_breaks_inside_labels_cannot_shift_rows_or_columns() -> None:
    lines = summary.metadata_tsv(["a\tb", "c\nd", "e\r\nf"], 3).decode().splitlines()
    assert lines == ["a b", "c d", "e f"]


def test_array_and_tensor_metadata_are_written_as_their_values() -> None:
    torch = pytest.importorskip("torch")
    assert summary.metadata_tsv(np.array([1, 2]), 2).decode().split() == ["1", "2"]
    assert summary.metadata_tsv(torch.tensor([7, 8]), 2).decode().split() == ["7", "8"]
    assert summary.metadata_tsv(np.array([["a", "b"]]), 1, ["x", "y"]).decode().split() == [
        "x",
        "y",
        "a",
        "b",
    ]


def test_metadata_of_the_wrong_length_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="metadata has 2 labels but mat has 3 rows"):
        summary.metadata_tsv(["a", "b"], 3)


def test_rows_that_do_not_match_the_header_are_refused() -> None:
    with pytest.raises(ValueError, match=r"metadata\[1\] has 3 values but metadata_header has 2"):
        summary.metadata_tsv([("a", 1), ("b", 2, 3)], 2, ["x", "y"])
    with pytest.raises(ValueError, match=r"metadata\[0\]"):
        summary.metadata_tsv(["ab", "cd"], 2, ["x", "y"])


def test_metadata_that_is_not_a_sequence_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="metadata"):
        summary.metadata_tsv("abc", 3)


def _decode(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


def test_sprite_is_a_square_grid_filled_row_by_row() -> None:
    n, h, w = 10, 4, 6
    images = np.zeros((n, h, w, 3), dtype=np.uint8)
    images[:, :, :, 0] = np.arange(1, n + 1, dtype=np.uint8)[:, None, None] * 20
    png, dim = summary.sprite_png(images)
    sprite = _decode(png)
    assert dim == (w, h)
    assert sprite.shape == (4 * h, 4 * w, 3)  # ceil(sqrt(10)) = 4 images a side
    for i in range(16):
        r, c = divmod(i, 4)
        cell = sprite[r * h : (r + 1) * h, c * w : (c + 1) * w, 0]
        assert np.all(cell == (images[i, 0, 0, 0] if i < n else 0))


def test_label_images_are_converted_like_torch() -> None:
    gray = np.linspace(0.0, 1.0, 2 * 1 * 3 * 3, dtype=np.float32).reshape(2, 1, 3, 3)
    images = summary.sprite_images(gray, 2)
    assert images.shape == (2, 3, 3, 3)
    assert images.dtype == np.uint8
    expected = (gray[:, 0] * 255).astype(np.uint8)
    for channel in range(3):
        assert np.array_equal(images[..., channel], expected)
    raw = np.full((1, 3, 2, 2), 200, dtype=np.uint8)
    assert np.all(summary.sprite_images(raw, 1) == 200)


@pytest.mark.parametrize(
    ("shape", "message"),
    [
        ((4, 3, 3), "shape"),
        ((3, 3, 4, 4), "3 images but mat has 4"),
        ((4, 2, 3, 3), "channels"),
        ((4, 3, 0, 2), "empty"),
    ],
)
def test_label_img_of_the_wrong_shape_is_refused_by_name(shape: tuple[int, ...], message: str) -> None:
    with pytest.raises(ValueError, match="label_img") as info:
        summary.sprite_images(np.zeros(shape, dtype=np.float32), 4)
    assert message in str(info.value)
