"""``tbkit.profiler``: the public import path of the profile kind's write side."""

from __future__ import annotations


def test_profiler_re_exports_the_profile_write_side() -> None:
    # imported here, not at collection: see tests/plugins/profile/test_write.py
    import tbkit.profiler as public
    from tbkit.plugins.profile import write

    for name in [*public.__all__, "PROFILE_DIR", "TRACE_SUFFIX", "default_worker", "session_name"]:
        assert getattr(public, name) is getattr(write, name)
    assert public.__all__ == write.__all__
