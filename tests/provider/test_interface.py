"""The DataProvider interface: its conventions, its defaults over the abstract methods, its package."""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path
from typing import Any

import numpy as np

import tbkit.provider
from tbkit.provider import DataClass, DataProvider, InMemoryProvider, SeriesProvider
from tests.provider._plain import Plain

DATA = {
    "a": {
        "loss": {"points": [(0, 1.0, 3.0), (2, 2.0, math.nan), (1, 3.0, -1.0)], "display_name": "Loss"},
        "acc": {"points": [(0, 1.0, 0.5)]},
        "none": {"points": []},
        "img": {"plugin": "images", "points": [(1, 1.0, [b"2", b"1", b"png"]), (2, 2.0, [b"x"])]},
        "h": {"plugin": "histograms", "points": [(3, 4.0, np.zeros((2, 3)))]},
    },
    "b": {"loss": {"points": [(5, 6.0, 2.0)]}},
}


def test_every_method_has_at_most_one_positional_argument():
    for name, fn in inspect.getmembers(DataProvider, inspect.isfunction):
        if name.startswith("_"):
            continue
        params = list(inspect.signature(fn).parameters.values())[1:]
        positional = [p for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
        assert len(positional) <= 1, name


def test_scalar_columns_default_equals_the_series_path():
    fast, plain = InMemoryProvider(DATA), Plain(InMemoryProvider(DATA))
    for keep in [None, lambda run, tag: tag == "loss", lambda run, tag: False]:
        a = fast.read_scalar_columns("scalars", keep=keep)
        b = plain.read_scalar_columns("scalars", keep=keep)
        assert {r: list(t) for r, t in a.items()} == {r: list(t) for r, t in b.items()}
        for run in a:
            for tag in a[run]:
                for x, y in zip(a[run][tag], b[run][tag], strict=True):
                    assert x.dtype == y.dtype
                    np.testing.assert_array_equal(x, y)
    steps, walls, values = fast.read_scalar_columns("scalars")["a"]["loss"]
    assert steps.tolist() == [0, 2, 1] and walls.tolist() == [1.0, 2.0, 3.0]  # in the order written
    assert values[0] == 3.0 and math.isnan(values[1]) and values[2] == -1.0
    assert "none" not in fast.read_scalar_columns("scalars")["a"]  # empty series are left out


def test_series_info_default_equals_the_series_path():
    fast, plain = InMemoryProvider(DATA), Plain(InMemoryProvider(DATA))

    def comparable(infos: list[Any]) -> list[Any]:
        return [(i.run, i.tag, i.plugin_name, i.data_class, i.count, i.max_step, i.max_wall_time,
                 repr(i.last), i.max_length, i.plugin_content, i.display_name, i.description)
                for i in infos]  # fmt: skip

    keep = lambda run, tag: run == "a"  # noqa: E731
    for data_class in [None, *DataClass]:
        for kwargs in [{}, {"plugin_name": "scalars"}, {"plugin_name": "images", "keep": keep}]:
            ours, default = fast.series_info(data_class, **kwargs), plain.series_info(data_class, **kwargs)
            assert comparable(default) == comparable(ours), (data_class, kwargs)
    (loss,) = plain.series_info(DataClass.SCALAR, keep=lambda run, tag: (run, tag) == ("a", "loss"))
    assert (loss.count, loss.max_step, loss.last, loss.display_name) == (3, 2, (1, 3.0, -1.0), "Loss")
    (img,) = plain.series_info(DataClass.BLOB_SEQUENCE)
    assert (img.max_length, img.last[2]) == (3, [b"x"])


def test_providers_whose_data_never_change_reload_as_a_no_op():
    plain = Plain(InMemoryProvider(DATA))
    calls: list[int] = []
    assert plain.generation == 0 and plain.reload(lambda: calls.append(1)) == 0 and calls == []


def test_hparams_queries_reach_the_kind_over_any_provider():
    empty = Plain(InMemoryProvider({}))
    assert empty.list_hyperparameters().hyperparameters == () and empty.read_hyperparameters() == []


# -- the package ---------------------------------------------------------------------------------

PACKAGE = Path(tbkit.provider.__file__).parent


def _module_imports(path: Path) -> list[str]:
    """The tbkit modules ``path`` imports at module level (what runs on import)."""
    out = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
    return [name for name in out if name.split(".")[0] == "tbkit"]


def test_the_package_imports_only_errors_and_itself_without_cycles():
    order = ["_types", "_hparam_types", "_sampling", "_hparams_hook", "_defaults", "_interface"]
    order += ["_series", "_memory", "__init__"]
    assert sorted(p.stem for p in PACKAGE.glob("*.py")) == sorted(order)
    for i, stem in enumerate(order):
        for name in _module_imports(PACKAGE / f"{stem}.py"):
            assert name == "tbkit.errors" or name.startswith("tbkit.provider."), (stem, name)
            if name.startswith("tbkit.provider."):  # only modules before it: no cycle
                assert name.rsplit(".", 1)[1] in order[:i], (stem, name)


def test_all_is_sorted_and_is_the_public_surface():
    names = tbkit.provider.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n))
    public = {n for n in vars(tbkit.provider) if not n.startswith("_")}
    assert public == set(names)
    assert issubclass(SeriesProvider, DataProvider) and issubclass(InMemoryProvider, SeriesProvider)


def test_plugin_file_batch_read_and_problem_report_defaults():
    from tbkit.errors import NotFoundError

    class Files(InMemoryProvider):
        def read_plugin_file(self, plugin_name: str, *, run: str, path: str) -> bytes:
            if path == "missing":
                raise NotFoundError(f"no {plugin_name} file {path!r} in run {run!r}")
            return f"{run}/{path}".encode()

    provider = Files(DATA)
    read = provider.read_plugin_files("p", files=[("a", "x"), ("b", "missing"), ("b", "y")])
    assert read[0] == b"a/x" and isinstance(read[1], NotFoundError) and read[2] == b"b/y"
    assert provider.report_plugin_file_problems("p", problems=[("a", "x", "bad")]) is None  # dropped


def test_tensor_columns_default_equals_the_series_path():
    fast, plain = InMemoryProvider(DATA), Plain(InMemoryProvider(DATA))
    for provider in (fast, plain):
        columns = provider.read_tensor_columns("histograms")
        content, steps, walls, values = columns["a"]["h"]
        assert steps.dtype == np.int64 and steps.tolist() == [3] and walls.tolist() == [4.0]
        assert len(values) == 1 and np.array_equal(values[0], np.zeros((2, 3)))
        assert content == fast.list_tensors("histograms")["a"]["h"].plugin_content
    keep = plain.read_tensor_columns("histograms", keep=lambda run, tag: run != "a")
    assert keep == {}


def test_blob_columns_default_equals_the_series_path():
    fast, plain = InMemoryProvider(DATA), Plain(InMemoryProvider(DATA))
    for provider in (fast, plain):
        content, steps, walls, blobs, labels = provider.read_blob_columns("images")["a"]["img"]
        assert steps.dtype == np.int64 and steps.tolist() == [1, 2] and walls.tolist() == [1.0, 2.0]
        assert blobs == [[b"2", b"1", b"png"], [b"x"]] and labels is None
        assert content == fast.list_blob_sequences("images")["a"]["img"].plugin_content
    assert plain.read_blob_columns("images", keep=lambda run, tag: tag != "img") == {}
    assert plain.read_blob_columns("scalars") == {}
