"""The public surface, and that importing tbkit stays light."""

from __future__ import annotations

import json
import subprocess
import sys

import tbkit


def test_all_is_sorted_and_complete() -> None:
    assert tbkit.__all__ == sorted(tbkit.__all__)
    public = {n for n in dir(tbkit) if not n.startswith("_")} - {"errors"}
    # Every public attribute is in __all__ (submodules imported as a side effect aside).
    submodules = {
        *("demo", "plugins", "proto", "record", "writer", "reader", "provider", "cli", "hparams", "profiler"),
        *("integrations", "torch", "keras"),  # framework integrations, imported only on request
        "server",  # imported by the server tests
    }
    assert public - submodules <= set(tbkit.__all__)


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
