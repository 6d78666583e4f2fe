"""Which frames a Logdir gives by name, and which of them its own methods build."""

from __future__ import annotations

import tbkit
from tbkit.reader.frame_kinds import frame_kinds, has_own_method


def test_every_named_frame_is_a_method_or_a_plugins_builder() -> None:
    kinds = frame_kinds()
    assert kinds[:1] == ("scalars",) and kinds[-3:] == ("runs", "tags", "problems")
    assert len(set(kinds)) == len(kinds)
    for kind in kinds:
        assert has_own_method(kind) or tbkit.plugins.registry.frame_builder(kind) is not None, kind


def test_own_methods_and_dispatched_ones_are_told_apart() -> None:
    assert has_own_method("scalars") and has_own_method("runs")
    assert not has_own_method("hparams")  # a one-line self.frame("hparams"): its plugin builds it
    assert not has_own_method("no such kind")
