"""Legacy-histogram events decoded in bulk by the compiled core, without protobuf.

torch's ``add_histogram`` writes one event per histogram: a summary with one value holding a
tag and a legacy ``HistogramProto``. The core's ``histogram_events`` recognises that layout
among a window's records (every byte checked) and migrates each such histogram straight from
the record's bytes, as :func:`tbkit.plugins.histograms.decode.migrate` does on the parsed
value, into one float32 block per call: no ``Event`` parse, no re-serialisation. Every other
record (another layout, a histogram the core's migration declines) is left to the caller's
protobuf path, so both give the same series, problems and offsets.

The bulk path is taken only when the built-in histograms plugin migrates ``histo`` values
unchanged (a plugin or test replacing its ``migrate`` gets every value, as before) and the
compiled core is selected (``TBKIT_NATIVE=0``: never).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from tbkit.plugins import registry
from tbkit.plugins.guarded import GuardedDecoder
from tbkit.plugins.histograms import decode as _histograms
from tbkit.record import native

__all__ = ["HistogramRecords", "decode_histograms"]

_MIGRATE = _histograms.migrate  # the built-in migration the core's matches
_GUARD = GuardedDecoder._late.__qualname__  # the guard's own per-record functions


class HistogramRecords(NamedTuple):
    """What :func:`decode_histograms` found among the records given (one entry per record).

    Attributes:
        tags: The tags of the decoded records.
        ids: Each record's tag in ``tags``, or -1 for a record left to protobuf.
        steps: Each decoded record's step.
        walls: Each decoded record's wall time.
        ends: Record ``i``'s rows are ``rows[ends[i - 1]:ends[i]]`` (``ends[-1]`` is 0).
        rows: The ``[total, 3]`` float32 migrated rows of every decoded record.
    """

    tags: list[str]
    ids: list[int]
    steps: list[int]
    walls: list[float]
    ends: list[int]
    rows: np.ndarray

    def rows_of(self, i: int) -> np.ndarray:
        """The ``[k, 3]`` rows of record ``i`` (a view into :attr:`rows`)."""
        return self.rows[self.ends[i - 1] if i else 0 : self.ends[i]]


def _builtin_migration() -> bool:
    """Whether ``histo`` values go to the built-in migration, untouched."""
    legacy = registry.legacy_decoder("histo")
    return (
        isinstance(legacy, GuardedDecoder)
        and legacy.module is _histograms
        and _histograms.migrate is _MIGRATE
        and getattr(legacy.__dict__.get("migrate"), "__qualname__", "").startswith(_GUARD)
    )


def decode_histograms(
    buf: bytes | bytearray | memoryview, starts: np.ndarray, lengths: np.ndarray
) -> HistogramRecords | None:
    """The single legacy-histogram events among the records ``buf[starts[i]:starts[i] + lengths[i]]``.

    Returns None when the bulk path does not apply (no compiled core, or ``histo`` values
    migrated by other code): the caller then parses every record itself.

    Example:
        >>> found = decode_histograms(b"", np.zeros(0, np.int64), np.zeros(0, np.int64))
        >>> found is None or found.ids == []
        True
    """
    core = native.core()
    if core is None or not hasattr(core, "histogram_events") or not _builtin_migration():
        return None
    tags, ids, steps, walls, ends, rows = core.histogram_events(
        buf, np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64)
    )
    return HistogramRecords(
        tags,
        np.frombuffer(ids, dtype=np.int32).tolist(),
        np.frombuffer(steps, dtype=np.int64).tolist(),
        np.frombuffer(walls, dtype=np.float64).tolist(),
        np.frombuffer(ends, dtype=np.int64).tolist(),
        np.frombuffer(rows, dtype=np.float32).reshape(-1, 3),
    )
