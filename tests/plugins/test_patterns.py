"""Client-supplied regular expressions: RE2, linear time, a clear 400 for what it refuses."""

from __future__ import annotations

import re

import pytest

from tbkit.errors import InvalidArgumentError
from tbkit.plugins.patterns import MAX_LENGTH, compile_client


def test_search_match_fullmatch_and_groups_as_re_has_them() -> None:
    pattern = compile_client(r"(?P<name>[a-z]+)_seed(\d+)", "group_by")
    assert pattern.groups == 2 and pattern.pattern == r"(?P<name>[a-z]+)_seed(\d+)"
    found = pattern.search("runs/lr_seed3/x")
    assert found is not None and found.group(1) == "lr" and found.group("name") == "lr"
    assert pattern.match("runs/lr_seed3") is None  # match is anchored at the start, as in re
    assert pattern.fullmatch("lr_seed3") is not None and pattern.fullmatch("lr_seed3/x") is None
    optional = compile_client(r"(x)?y", "group_by").search("y")
    assert optional is not None and optional.group(1) is None


def test_case_sensitive_unless_asked() -> None:
    assert compile_client("LOSS", "tags").search("train/loss") is None
    assert compile_client("LOSS", "regex", ignore_case=True).search("train/loss") is not None
    assert compile_client("(?i)LOSS", "tags").search("train/loss") is not None


def test_catastrophic_backtracking_pattern_answers_correctly() -> None:
    # Python's re takes about 2**n steps for (a+)+$ on n a's and a '!'; RE2 is linear.
    text = "a" * 100_000 + "!"
    assert compile_client(r"(a+)+$", "runs").search(text) is None
    assert compile_client(r"(a|aa)+!", "runs").search(text) is not None
    assert compile_client(r"(.*a){20}!", "runs").search(text) is not None


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a)\1", "invalid escape"),  # a backreference: re accepts it, RE2 cannot
        (r"(?=a)a", "invalid perl operator"),  # lookahead
        (r"(?<!a)b", "invalid perl operator"),  # lookbehind
        ("(", "missing"),
        (r"\pL{1000}\pL{1000}\pL{1000}", "too costly"),  # a compiled program over max_mem
        ("a" * (MAX_LENGTH + 1), "characters"),
    ],
)
def test_refused_patterns_say_why(pattern: str, reason: str) -> None:
    with pytest.raises(InvalidArgumentError, match=re.escape(reason)) as info:
        compile_client(pattern, "tags")
    assert info.value.http_code == 400 and "'tags'" in str(info.value)


@pytest.mark.parametrize("value", [3, None, ["a"], "\ud800"])
def test_not_a_pattern_is_a_400(value: object) -> None:
    with pytest.raises(InvalidArgumentError):
        compile_client(value, "tags")  # type: ignore[arg-type]


def test_a_name_that_is_not_utf8_is_still_matched() -> None:
    name = "run\udcff/loss"  # a run directory's name decoded with surrogate escapes
    found = compile_client(r"run./(\w+)", "runs").search(name)
    assert found is not None and found.group(1) == "loss"
    assert compile_client("nothing", "runs").search(name) is None
