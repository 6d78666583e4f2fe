"""A corpus of damaged and unusual event files, generated at test time (a helper module, not a test).

Every case is a small logdir with the scalar rows a tolerant reader must return, the bad spots
(path, byte offset) it must report, and what a strict ``summary_iterator`` must do on each file.
The files are framed here with ``google_crc32c`` and TensorBoard's own protos, so the corpus
depends on nothing in tbkit.

Kinds of damage and oddity: truncated mid-header and mid-payload, bad length CRC, bad data CRC,
flipped payload bytes, valid framing around bytes that are not an ``Event``, empty files,
header-only files, non-event files named ``*tfevents*``, an absurd length, unicode run and tag
names, NaN and ±inf, out-of-order steps, extreme steps (±2**63), several values per event, a
float64 scalar, and damage in one of several files of a run.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from collections.abc import Iterable
from pathlib import Path

import google_crc32c
import numpy as np
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2

FILE = "events.out.tfevents.1700000000.corpus"
WALL0 = 1_700_000_000.0
STEP_MAX = 2**63 - 1
STEP_MIN = -(2**63)

Row = tuple[str, str, int, object]  # run, tag, step, value (NaN as the string "nan", see key())


def key(run: str, tag: str, step: int, value: float) -> Row:
    """A hashable row where NaN equals NaN."""
    return (run, tag, int(step), "nan" if math.isnan(value) else float(value))


def masked_crc(data: bytes) -> int:
    """TFRecord's masked CRC-32C."""
    crc = google_crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def frame(data: bytes) -> bytes:
    """One TFRecord: length, masked CRC of the length, data, masked CRC of the data."""
    header = struct.pack("<Q", len(data))
    return header + struct.pack("<I", masked_crc(header)) + data + struct.pack("<I", masked_crc(data))


def header_event() -> event_pb2.Event:
    """The first event of an event file."""
    return event_pb2.Event(wall_time=WALL0, file_version="brain.Event:2")


def _scalar_metadata() -> summary_pb2.SummaryMetadata:
    return summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars"),
        data_class=summary_pb2.DATA_CLASS_SCALAR,
    )


def scalar_value(
    tag: str, value: float, *, form: str = "f32", first: bool = True
) -> summary_pb2.Summary.Value:
    """A scalar ``Summary.Value``: ``form`` is ``f32``/``f64`` (rank-0 tensor) or ``simple`` (TF1)."""
    if form == "simple":
        return summary_pb2.Summary.Value(tag=tag, simple_value=value)
    if form == "f32":
        tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[value])
    elif form == "f64":
        tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[value])
    else:
        raise ValueError(form)
    metadata = _scalar_metadata() if first else None
    return summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)


def stored(value: float, form: str) -> float:
    """The value a reader gets back for ``value`` written as ``form``."""
    return value if form == "f64" else float(np.float32(value))


@dataclasses.dataclass
class CorpusFile:
    """One file being built: its bytes, and what a reader must make of them."""

    path: Path
    run: str
    buf: bytearray = dataclasses.field(default_factory=bytearray)
    rows: list[Row] = dataclasses.field(default_factory=list)  # must come back
    optional_rows: list[Row] = dataclasses.field(default_factory=list)  # may come back (after lost framing)
    problems: list[int] = dataclasses.field(default_factory=list)  # offsets that must be reported
    may_problems: list[int] = dataclasses.field(default_factory=list)  # offsets that may be reported
    strict_events: int = 0  # events a strict iterator yields before it stops or raises
    strict_error: int | None = None  # offset of the DataError a strict iterator raises, if any
    _strict_open: bool = True
    _seen_tags: set[str] = dataclasses.field(default_factory=set)

    def add(self, data: bytes) -> int:
        """Append raw bytes; returns their offset."""
        offset = len(self.buf)
        self.buf += data
        return offset

    def event(self, event: event_pb2.Event, *, optional: bool = False) -> int:
        """Append a good record holding ``event``; its scalar rows must (or may) come back."""
        offset = self.add(frame(event.SerializeToString()))
        rows = list(_rows(self.run, event))
        (self.optional_rows if optional else self.rows).extend(rows)
        if self._strict_open:
            self.strict_events += 1
        return offset

    def scalars(self, tag: str, steps: Iterable[int], values: Iterable[float], *, form: str = "f32") -> None:
        """Append one event per (step, value); metadata rides on the tag's first value."""
        for step, value in zip(steps, values, strict=True):
            first = tag not in self._seen_tags
            self._seen_tags.add(tag)
            summary = summary_pb2.Summary(value=[scalar_value(tag, value, form=form, first=first)])
            self.event(event_pb2.Event(wall_time=WALL0 + 1, step=step, summary=summary))

    def bad(self, data: bytes, *, must_report: bool = True, strict_raises: bool = True) -> int:
        """Append a damaged record; a tolerant reader must report its offset."""
        offset = self.add(data)
        (self.problems if must_report else self.may_problems).append(offset)
        if self._strict_open:
            if strict_raises:
                self.strict_error = offset
            self._strict_open = False
        return offset

    def write(self) -> Path:
        """Write the bytes to disk."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_bytes(bytes(self.buf))
        return self.path


def _rows(run: str, event: event_pb2.Event) -> Iterable[Row]:
    for value in event.summary.value:
        if value.HasField("simple_value"):
            yield key(run, value.tag, event.step, float(np.float32(value.simple_value)))
        elif value.HasField("tensor") and value.tensor.dtype == types_pb2.DT_FLOAT:
            yield key(run, value.tag, event.step, float(np.float32(value.tensor.float_val[0])))
        elif value.HasField("tensor") and value.tensor.dtype == types_pb2.DT_DOUBLE:
            yield key(run, value.tag, event.step, value.tensor.double_val[0])


@dataclasses.dataclass(frozen=True)
class Case:
    """One logdir of the corpus and what a reader must make of it."""

    name: str
    logdir: Path
    files: tuple[CorpusFile, ...]

    @property
    def rows(self) -> list[Row]:
        """Scalar rows that must come back (a row written twice is listed twice)."""
        return [r for f in self.files for r in f.rows]

    @property
    def optional_rows(self) -> set[Row]:
        """Scalar rows that may come back (behind damage that loses the framing)."""
        return {r for f in self.files for r in f.optional_rows}

    @property
    def problems(self) -> set[tuple[str, int]]:
        """(path, offset) of each bad spot that must be reported."""
        return {(str(f.path), o) for f in self.files for o in f.problems}

    @property
    def may_problems(self) -> set[tuple[str, int]]:
        """(path, offset) of spots that may be reported (a truncated tail looks like a file being written)."""
        return {(str(f.path), o) for f in self.files for o in f.may_problems}

    @property
    def runs(self) -> set[str]:
        """Runs that hold at least one event file."""
        return {f.run for f in self.files}


# -- damage ----------------------------------------------------------------------------------------


def _record(step: int, tag: str = "loss", value: float = 1.5) -> bytes:
    summary = summary_pb2.Summary(value=[scalar_value(tag, value, first=False)])
    return frame(event_pb2.Event(wall_time=WALL0 + 2, step=step, summary=summary).SerializeToString())


def bad_length_crc(record: bytes) -> bytes:
    """The record with its length checksum broken."""
    out = bytearray(record)
    out[8] ^= 0xFF
    return bytes(out)


def bad_data_crc(record: bytes) -> bytes:
    """The record with its data checksum broken."""
    out = bytearray(record)
    out[-1] ^= 0x5A
    return bytes(out)


def flipped_payload(record: bytes) -> bytes:
    """The record with two payload bytes flipped (its data checksum no longer matches)."""
    out = bytearray(record)
    out[12] ^= 0x01
    out[-6] ^= 0x80
    return bytes(out)


def not_an_event() -> bytes:
    """Valid framing around bytes that do not parse as an ``Event``."""
    return frame(b"\xff\xff\xff\xff not a protobuf \x0f")


# -- the cases -------------------------------------------------------------------------------------


def _new(root: Path, name: str, run: str = ".", filename: str = FILE) -> CorpusFile:
    run_dir = root / name if run == "." else root / name / run
    f = CorpusFile(path=run_dir / filename, run=run)
    f.event(header_event())
    return f


def _steps(f: CorpusFile, steps: Iterable[int], tag: str = "loss") -> None:
    steps = list(steps)
    f.scalars(tag, steps, [0.5 + 0.25 * s for s in steps])


def make_corpus(root: Path) -> list[Case]:
    """Write every corpus logdir under ``root`` and describe what a reader must make of it."""
    cases: list[tuple[str, list[CorpusFile]]] = []

    def case(name: str, *files: CorpusFile) -> None:
        cases.append((name, list(files)))

    f = _new(root, "truncated_mid_header")
    _steps(f, range(3))
    f.bad(_record(3)[:7], must_report=False, strict_raises=False)
    case("truncated_mid_header", f)

    f = _new(root, "truncated_mid_payload")
    _steps(f, range(3))
    f.bad(_record(3)[:20], must_report=False, strict_raises=False)
    case("truncated_mid_payload", f)

    f = _new(root, "bad_length_crc")
    _steps(f, range(2))
    f.bad(bad_length_crc(_record(2)))
    f.optional_rows.append(key(".", "loss", 3, 0.5 + 0.25 * 3))
    f.add(frame(_event_bytes(3, 0.5 + 0.25 * 3)))
    case("bad_length_crc", f)

    f = _new(root, "bad_data_crc")
    _steps(f, range(2))
    f.bad(bad_data_crc(_record(2)))
    _steps(f, range(3, 5))
    case("bad_data_crc", f)

    f = _new(root, "flipped_payload")
    _steps(f, range(2))
    f.bad(flipped_payload(_record(2)))
    _steps(f, range(3, 5))
    f.bad(flipped_payload(_record(5)))
    _steps(f, [6])
    case("flipped_payload", f)

    f = _new(root, "not_an_event_payload")
    _steps(f, range(2))
    f.bad(not_an_event())
    _steps(f, range(2, 4))
    case("not_an_event_payload", f)

    f = CorpusFile(path=root / "empty" / FILE, run=".")
    case("empty", f)

    case("header_only", _new(root, "header_only"))

    f = CorpusFile(path=root / "text_named_tfevents" / FILE, run=".")
    f.bad(b"This is a plain text file that only pretends to be an event file.\n" * 4)
    case("text_named_tfevents", f)

    f = CorpusFile(path=root / "png_named_tfevents" / FILE, run=".")
    f.bad(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 2)
    case("png_named_tfevents", f)

    f = _new(root, "absurd_length")
    _steps(f, range(2))
    huge = struct.pack("<Q", 2**62)
    f.bad(huge + struct.pack("<I", masked_crc(huge)) + b"\x00" * 40, must_report=False, strict_raises=False)
    case("absurd_length", f)

    f = _new(root, "unicode", run="ünïcödé 运行 ✓/ŝub")
    f.scalars("損失/ñ ✓", [0, 1], [0.25, 0.5])
    f.scalars("emoji 🚀", [0], [1.0], form="simple")
    case("unicode", f)

    f = _new(root, "nonfinite")
    f.scalars("nan", [0, 1], [math.nan, 1.0])
    f.scalars("inf", [0, 1, 2], [math.inf, -math.inf, 2.0])
    f.scalars("simple_nan", [0, 1], [math.nan, math.inf], form="simple")
    f.scalars("f64_nonfinite", [0, 1], [-math.inf, math.nan], form="f64")
    case("nonfinite", f)

    f = _new(root, "out_of_order")
    _steps(f, [5, 3, 9, 1, 9])
    case("out_of_order", f)

    f = _new(root, "extreme_steps")
    f.scalars("edge", [STEP_MAX, 0, STEP_MIN, -1], [1.0, 2.0, 3.0, 4.0])
    case("extreme_steps", f)

    f = _new(root, "several_values")
    for step in range(3):
        values = [scalar_value(t, step + i / 4, first=step == 0) for i, t in enumerate(("a", "b", "c/d"))]
        values.append(scalar_value("legacy", step * 2.0, form="simple"))
        f.event(event_pb2.Event(wall_time=WALL0 + step, step=step, summary=summary_pb2.Summary(value=values)))
    case("several_values", f)

    f = _new(root, "float64_scalar")
    f.scalars("third", [0, 1], [1 / 3, 2 / 3], form="f64")
    case("float64_scalar", f)

    first = _new(root, "damage_in_second_file", filename=FILE + ".1")
    _steps(first, range(3))
    second = _new(root, "damage_in_second_file", filename=FILE + ".2")
    _steps(second, range(3, 5))
    second.bad(bad_data_crc(_record(5)))
    _steps(second, range(6, 8))
    other = _new(root, "damage_in_second_file", run="other")
    _steps(other, range(2))
    case("damage_in_second_file", first, second, other)

    f = _new(root, "no_header")
    f.buf.clear()
    f.rows.clear()
    f.strict_events = 0
    _steps(f, range(3))
    case("no_header", f)

    out = []
    for name, files in cases:
        for cf in files:
            cf.write()
        out.append(Case(name=name, logdir=root / name, files=tuple(files)))
    return out


def _event_bytes(step: int, value: float) -> bytes:
    summary = summary_pb2.Summary(value=[scalar_value("loss", value, first=False)])
    return event_pb2.Event(wall_time=WALL0 + 3, step=step, summary=summary).SerializeToString()
