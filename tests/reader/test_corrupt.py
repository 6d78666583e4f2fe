"""Damaged files are read without exception; each damage is recorded as a problem."""

from __future__ import annotations

import warnings

import pytest

import tbkit
from tbkit.errors import CorruptRecordError
from tests.reader._events import FILE_NAME, header, records, simple

EVENTS = [header()] + [simple("loss", s, float(s)) for s in range(1, 21)]  # all records of one size
STEPS = list(range(1, 21))
RECORD = len(records([simple("loss", 5, 5.0)]))  # every loss record here has this size
FIRST = len(records([header()]))


def _read(tmp_path, data: bytes):
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    (run / FILE_NAME).write_bytes(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ld = tbkit.read(str(tmp_path))
        df = ld.scalars()
        problems = ld.problems()
    return df, problems, caught


def _steps(df):
    return df["step"].tolist()


def test_intact_file_has_no_problem(tmp_path):
    df, problems, caught = _read(tmp_path, records(EVENTS))
    assert _steps(df) == STEPS and problems.empty and not caught


@pytest.mark.parametrize("cut", [3, 11, 12 + 4, RECORD - 1])
def test_truncated_last_record_is_pending_not_fatal(tmp_path, cut):
    data = records(EVENTS)
    df, problems, caught = _read(tmp_path, data[: len(data) - RECORD + cut])
    assert _steps(df) == STEPS[:-1]
    assert problems["reason"].str.startswith("incomplete last record").tolist() == [True]
    assert problems["offset"].tolist() == [len(data) - RECORD]
    assert not caught  # a file being written is normal: no warning


def test_bad_data_checksum_skips_one_record(tmp_path):
    data = bytearray(records(EVENTS))
    at = FIRST + 3 * RECORD
    data[at + RECORD - 1] ^= 0xFF  # the data CRC of step 3
    df, problems, caught = _read(tmp_path, bytes(data))
    assert _steps(df) == [s for s in STEPS if s != 4]
    assert problems[["offset", "reason"]].values.tolist() == [[at, "corrupt record: bad data checksum"]]
    assert len(caught) == 1 and str(at) in str(caught[0].message)


def test_flipped_payload_byte_skips_one_record(tmp_path):
    data = bytearray(records(EVENTS))
    at = FIRST + 7 * RECORD
    data[at + 20] ^= 0x01
    df, problems, _ = _read(tmp_path, bytes(data))
    assert _steps(df) == [s for s in STEPS if s != 8]
    assert problems["offset"].tolist() == [at]


@pytest.mark.parametrize("byte", [0, 5, 9])
def test_bad_length_header_resynchronises_on_next_record(tmp_path, byte):
    data = bytearray(records(EVENTS))
    at = FIRST + 4 * RECORD
    data[at + byte] ^= 0x40  # length or its CRC
    df, problems, caught = _read(tmp_path, bytes(data))
    assert _steps(df) == [s for s in STEPS if s != 5]
    assert problems[["offset", "reason"]].values.tolist() == [[at, "corrupt record: bad length checksum"]]
    assert len(caught) == 1


def test_absurd_length_with_garbage_never_allocates_and_resyncs(tmp_path):
    data = bytearray(records(EVENTS))
    at = FIRST + 2 * RECORD
    data[at : at + 8] = (2**62).to_bytes(8, "little")  # absurd length, CRC now wrong
    df, problems, _ = _read(tmp_path, bytes(data))
    assert _steps(df) == [s for s in STEPS if s != 3] and len(problems) == 1


def test_garbage_between_records(tmp_path):
    data = records(EVENTS[:6]) + b"\x00garbage!" * 7 + records(EVENTS[6:])
    df, problems, _ = _read(tmp_path, data)
    assert _steps(df) == STEPS and len(problems) == 1


@pytest.mark.parametrize(
    ("data", "reasons"),
    [
        (b"", []),
        (b"\x01\x02\x03", ["incomplete"]),  # a short file is a pending tail
        (b"not an event file at all, just some text\n" * 5, ["corrupt record: bad length checksum"]),
    ],
)
def test_empty_short_and_foreign_files(tmp_path, data, reasons):
    df, problems, _ = _read(tmp_path, data)
    assert df.empty
    assert [r[: len(p)] for r, p in zip(problems["reason"], reasons, strict=True)] == reasons


def test_header_only_file(tmp_path):
    df, problems, _ = _read(tmp_path, records([header(5.0)]))
    ld = tbkit.read(str(tmp_path))
    assert df.empty and problems.empty and ld.runs()["start_time"].tolist() == [5.0]


def test_record_that_is_not_an_event(tmp_path):
    from tbkit.record.framing import encode_record

    data = records(EVENTS[:3]) + encode_record(b"\xff\xff\xff") + records(EVENTS[3:])
    df, problems, _ = _read(tmp_path, data)
    assert _steps(df) == STEPS
    assert problems["reason"].str.startswith("undecodable event").tolist() == [True]


def test_summary_iterator_is_strict(tmp_path):
    data = bytearray(records(EVENTS))
    at = FIRST + 3 * RECORD
    data[at + RECORD - 1] ^= 0xFF
    path = tmp_path / FILE_NAME
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptRecordError) as info:
        list(tbkit.summary_iterator(str(path)))
    assert info.value.offset == at and info.value.path == str(path)
    path.write_bytes(records(EVENTS)[:-5])  # a partial last record ends iteration quietly
    assert len(list(tbkit.summary_iterator(str(path)))) == len(EVENTS) - 1
