"""The public surface, and that importing tbkit stays light."""

from __future__ import annotations

import json
import subprocess
import sys

import tbkit


def test_all_is_sorted_and_complete() -> None:
    """A fresh ``import tbkit`` exposes exactly ``__all__`` (plus the subpackages it loads)."""
    assert tbkit.__all__ == sorted(tbkit.__all__)
    code = "import tbkit, json; print(json.dumps(sorted(n for n in dir(tbkit) if not n.startswith('_'))))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    public = set(json.loads(out))
    # Subpackages that ``import tbkit`` itself loads become attributes; they are not API.
    internal = {"plugins", "proto", "record", "writer", "reader", "provider"}
    assert public - internal == {n for n in tbkit.__all__ if not n.startswith("_")}
    for name in tbkit.__all__:
        assert getattr(tbkit, name) is not None


def test_import_pulls_in_no_server_dataframe_or_framework() -> None:
    code = "import sys, tbkit, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    loaded = set(json.loads(out))
    heavy = {
        "flask",
        "pandas",
        "torch",
        "tensorflow",
        "jax",
        "keras",
        "werkzeug",
        "waitress",
        "matplotlib",
        "PIL",
    }
    assert not (loaded & heavy), sorted(loaded & heavy)


def test_errors_all_is_sorted_and_lists_every_error_class() -> None:
    from tbkit import errors

    assert errors.__all__ == sorted(errors.__all__)
    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type)
        and issubclass(value, BaseException)
        and value.__module__ == errors.__name__
    }
    assert set(errors.__all__) == classes
    assert "PathNotFoundError" in classes
