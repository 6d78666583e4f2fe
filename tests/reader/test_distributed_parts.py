"""A read_dask partition's task is named by a digest of its runs' files, not by Dask hashing them."""

from __future__ import annotations

import pytest

from tbkit.reader.discovery import Discovered
from tbkit.reader.distributed import Part

tokenize = pytest.importorskip("dask.base").tokenize


def _part(size: int = 10, name: str = "a") -> Part:
    return Part(
        "s3://b/logs",
        {"a": name},
        Discovered({"a": ["s3://b/logs/a/e1", "s3://b/logs/a/e2"]}, {"s3://b/logs/a/e1": size}),
    )


def test_a_part_unpacks_as_logdir_names_and_listing() -> None:
    logdir, names, listing = _part()
    assert (logdir, names, listing.runs["a"]) == (
        "s3://b/logs",
        {"a": "a"},
        ["s3://b/logs/a/e1", "s3://b/logs/a/e2"],
    )


def test_equal_parts_have_one_token_and_any_difference_another() -> None:
    assert tokenize(_part()) == tokenize(_part())
    assert len({tokenize(_part()), tokenize(_part(11)), tokenize(_part(name="x/a"))}) == 3
