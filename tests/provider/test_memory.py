"""The in-memory provider: a dict of series, every kind, blob keys."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tbkit.errors import NotFoundError
from tbkit.provider import InMemoryProvider, RunTagFilter, ScalarDatum


def test_in_memory_provider_kinds_and_blobs():
    png = b"\x89PNG..."
    provider = InMemoryProvider(
        {
            "train": {
                "loss": {"points": [(1, 10.0, 0.5), (2, 11.0, 0.25)], "display_name": "Loss"},
                "img": {"plugin": "images", "points": [(1, 10.0, [b"2", b"1", png])]},
                "h": {"plugin": "histograms", "points": [(3, 12.0, np.zeros((2, 3)))]},
            }
        },
        start_times={"train": 9.0, "empty": 1.0},
    )
    assert [r.run_name for r in provider.list_runs()] == ["empty", "train"]
    assert provider.list_plugins() == ["histograms", "images", "scalars"]
    series = provider.list_scalars("scalars")["train"]["loss"]
    assert (series.max_step, series.last_value, series.display_name) == (2, 0.25, "Loss")
    assert provider.read_last_scalars("scalars")["train"]["loss"] == ScalarDatum(2, 11.0, 0.25)
    assert provider.read_tensors("histograms")["train"]["h"][0].numpy.shape == (2, 3)
    assert provider.list_blob_sequences("images")["train"]["img"].max_length == 3
    (datum,) = provider.read_blob_sequences("images")["train"]["img"]
    keys = [ref.blob_key for ref in datum.values]
    assert all(re.fullmatch(r"[A-Za-z0-9._~-]+", k) for k in keys)
    assert provider.read_blob(keys[2]) == png
    with pytest.raises(NotFoundError):
        provider.read_blob("nonsense")
    assert provider.read_scalars("scalars", run_tag_filter=RunTagFilter(tags=["nope"])) == {}


def test_in_memory_data_never_change():
    provider = InMemoryProvider({"r": {"t": {"points": [(0, 0.0, 1.0)]}}})
    assert provider.generation == 0
    assert provider.reload(progress=lambda: None) == 0 and provider.generation == 0


def test_in_memory_defaults_come_from_the_installed_lookup() -> None:
    """The provider names no kind: what a spec leaves out comes from set_kind_defaults."""
    from tbkit.plugins import registry
    from tbkit.provider import DataClass, set_kind_defaults

    spec = {"r": {"t": {"points": [(0, 0.0, 1.0)]}, "g": {"plugin": "graphs", "points": [(0, 0.0, [b"x"])]}}}
    by_registry = InMemoryProvider(spec).series()
    assert {(s.tag, s.plugin_name, s.data_class) for s in by_registry} == {
        ("t", "scalars", DataClass.SCALAR),
        ("g", "graphs", DataClass.BLOB_SEQUENCE),
    }
    try:
        set_kind_defaults(lambda plugin: None, "other")
        assert {(s.plugin_name, s.data_class) for s in InMemoryProvider(spec).series()} == {
            ("other", DataClass.TENSOR),
            ("graphs", DataClass.TENSOR),
        }
    finally:
        registry.install_provider_defaults()
    assert InMemoryProvider(spec).file_based_plugins() == ()
