"""The whole reader and record suite passes on the pure-Python path too (the main run uses the compiled one).

One subprocess runs ``pytest tests/reader tests/record`` with ``TBKIT_NATIVE=0``; the suite's
own tests compare what the reader returns (records, values, problems and their offsets)
with what the files hold, so both paths must give identical results to pass both runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_reader_suite_passes_on_the_pure_python_path():
    if os.environ.get("TBKIT_NATIVE") == "0":
        pytest.skip("already on the pure-Python path (this is the inner run)")
    env = {**os.environ, "TBKIT_NATIVE": "0"}
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "tests/reader",
        "tests/record",
        "-q",
        "-p",
        "no:cacheprovider",
        "--deselect",
        "tests/record/test_both_paths.py::test_reader_suite_passes_on_the_pure_python_path",
    ]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-25:])
    assert proc.returncode == 0, tail
    assert " passed" in tail and "NativeFallbackWarning" not in tail, tail
