"""The suite passes on the pure-Python path too; the main run uses the compiled core.

One subprocess runs the suite again with ``TBKIT_NATIVE=0``: every test but the real-browser
ones and those marked ``slow`` (which start external servers or frameworks and exercise the
record layer only through the same reader and server the fast tests cover). The tests compare
what the reader, writer and server give (records, values, problems and their byte offsets,
served answers) with what the files hold, so both paths must give the same results to pass
both runs; ``tests/record/test_native*.py`` also compares the two paths directly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tbkit.record import native

ROOT = Path(__file__).resolve().parents[1]
SELF = "tests/test_both_paths.py::test_the_suite_passes_on_the_pure_python_path"


@pytest.mark.slow
def test_the_suite_passes_on_the_pure_python_path() -> None:
    if os.environ.get("TBKIT_NATIVE") == "0":
        pytest.skip("already on the pure-Python path (this is the inner run)")
    assert native.selected() == "native", f"the main run should use the compiled core: {native.why_absent()}"
    env = {**os.environ, "TBKIT_NATIVE": "0"}
    cmd = [sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:cacheprovider"]
    cmd += ["-m", "not slow and not browser", "--ignore", "tests/browser", "--deselect", SELF]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
    assert proc.returncode == 0, tail
    assert " passed" in tail and "NativeFallbackWarning" not in tail, tail
