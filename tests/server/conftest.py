"""Fixtures for the server tests: fixture logdirs and Flask test clients over them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import tbkit
from tbkit.server.app import create_app
from tests.server._logdirs import write_tbkit_logdir, write_torch_logdir


@pytest.fixture(scope="session")
def tbkit_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tbkit_logdir(tmp_path_factory.mktemp("tbkit_logdir"))


@pytest.fixture(scope="session")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_torch_logdir(tmp_path_factory.mktemp("torch_logdir"))


@pytest.fixture
def make_client() -> Callable[..., Any]:
    """``make_client(logdir, **create_app_options)``: a Flask test client over ``tbkit.read(logdir)``."""

    def make(logdir: Path, **options: Any) -> Any:
        return create_app(tbkit.read(str(logdir)).provider, **options).test_client()

    return make


@pytest.fixture
def client(tbkit_logdir: Path, make_client: Callable[..., Any]) -> Any:
    return make_client(tbkit_logdir)
