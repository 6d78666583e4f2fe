"""Fixtures of the command-line tests (the report's browser test is tests/browser/test_report.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.cli._logdirs import write_rich_logdir

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reader"))
import corpus

INTEROP = Path(__file__).resolve().parents[1] / "interop" / "fixtures"


@pytest.fixture(scope="module")
def rich_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logdir of many kinds from ``_logdirs.write_rich_logdir``, written once per module."""
    return write_rich_logdir(tmp_path_factory.mktemp("rich"))


@pytest.fixture(scope="module")
def corpus_cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, corpus.Case]:
    """tests/reader/corpus.py's damaged logdirs, by name."""
    return {case.name: case for case in corpus.make_corpus(tmp_path_factory.mktemp("corpus"))}


@pytest.fixture
def peer_fixtures() -> Path:
    """tests/interop/fixtures: logdirs written by torch, tensorboardX, TensorFlow and Keras."""
    return INTEROP
