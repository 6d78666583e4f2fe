"""What reading and polling an S3 logdir costs in requests, counted by a loopback S3 server.

The logdir of the issue's targets: 100 runs, each with one event file and a checkpoint
folder of 10 shards beside it (1,000 checkpoint files, 1,100 objects). Discovery lists the
prefix once, recursively (two LIST pages of at most 1,000 keys); the listing gives the
sizes, so an idle reload costs those two LISTs and nothing else, and a run that grew costs
one ranged GET of its new bytes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import tbkit
from tbkit.provider import SeriesProvider
from tbkit.reader.discovery import discover, discover_runs
from tbkit.reader.index import LogdirIndex, LogdirProvider
from tbkit.reader.multi import MultiLogdirProvider
from tests._s3 import S3Server, s3  # noqa: F401  (the fixture)

URL = "s3://tbkit-test/logs"
RUNS = 100
SHARDS = 10  # per run: 1,000 checkpoint files in all


def _events(tmp_path: Path, steps: range) -> bytes:
    """The bytes of one event file with a scalar per step in ``steps``."""
    directory = tmp_path / f"proto{steps.start}-{steps.stop}"
    with tbkit.SummaryWriter(str(directory)) as writer:
        for step in steps:
            writer.add_scalar("loss", 1.0 / (step + 1), step)
    (path,) = directory.iterdir()
    return path.read_bytes()


def _client():  # type: ignore[no-untyped-def]
    """Another process's S3 client (its own instance: nothing shared with the reader's)."""
    import s3fs

    return s3fs.S3FileSystem(skip_instance_cache=True)


NAME = "events.out.tfevents.1700000000.host.1.0"


@pytest.fixture
def bucket(s3: S3Server, tmp_path: Path) -> bytes:  # noqa: F811
    """The 100-run logdir at ``URL``; returns the event file bytes each run holds."""
    data = _events(tmp_path, range(20))
    objects = {}
    for r in range(RUNS):
        objects[f"tbkit-test/logs/run{r:03d}/{NAME}"] = data
        for c in range(SHARDS):
            objects[f"tbkit-test/logs/run{r:03d}/checkpoints/shard-{c:05d}-of-{SHARDS:05d}.pt"] = b"w" * 64
    _client().pipe(objects)
    s3.clear()
    return data


def _gets(s3: S3Server, since: int) -> list[str | None]:  # noqa: F811
    return [r.range for r in s3.requests[since:] if r.kind in ("GET", "RANGED_GET")]


def test_discovery_lists_the_prefix_once_and_reads_the_sizes_from_the_listing(
    s3: S3Server,  # noqa: F811
    bucket: bytes,
) -> None:
    found = discover(URL)
    assert len(found.runs) == RUNS and all(len(paths) == 1 for paths in found.runs.values())
    assert set(found.sizes.values()) == {len(bucket)}
    assert s3.counts() == {"LIST": 2}  # 1,100 keys: two pages, whatever the depth; no HEAD


@pytest.mark.parametrize("provider", ["index", "serve"])
def test_an_idle_reload_costs_two_lists_and_a_grown_run_one_ranged_get(
    s3: S3Server,  # noqa: F811
    bucket: bytes,
    tmp_path: Path,
    provider: str,
) -> None:
    reader = LogdirIndex(URL) if provider == "index" else MultiLogdirProvider([("", URL)])
    reader.reload()
    first = s3.counts()
    assert first["LIST"] == 2 and first["HEAD"] == 0
    assert first["RANGED_GET"] + first["GET"] == RUNS  # one GET per event file, nothing per checkpoint

    mark = s3.mark()
    before = reader.generation
    reader.reload()
    assert s3.counts(mark) == {"LIST": 2}  # idle: no HEAD, no GET
    assert reader.generation == before

    grown = _events(tmp_path, range(20, 30))[len(_events(tmp_path, range(0))) :]  # records, no header
    _client().pipe_file(f"tbkit-test/logs/run005/{NAME}", bucket + grown)  # the object was replaced, longer
    mark = s3.mark()
    reader.reload()
    assert s3.counts(mark) == {"LIST": 2, "RANGED_GET": 1}
    assert _gets(s3, mark) == [f"bytes={len(bucket)}-{len(bucket) + len(grown) - 1}"]  # the new bytes only
    points = _provider(reader).read_scalars("scalars", downsample=1000)
    assert len(points["run005"]["loss"]) == 30 and len(points["run006"]["loss"]) == 20


def _provider(reader: LogdirIndex | MultiLogdirProvider) -> SeriesProvider:
    return LogdirProvider(reader) if isinstance(reader, LogdirIndex) else reader


def test_a_rolled_object_costs_one_get_and_nothing_after(
    s3: S3Server,  # noqa: F811
    bucket: bytes,
    tmp_path: Path,
) -> None:
    """A writer to S3 rolls to a new object per flush: the new object is read once, whole."""
    logdir = tbkit.read(URL)
    assert len(logdir.scalars()) == RUNS * 20
    rolled = _events(tmp_path, range(20, 25))
    _client().pipe_file(f"tbkit-test/logs/run007/{NAME[:-1]}1", rolled)
    mark = s3.mark()
    frame = logdir.reload().scalars()
    assert s3.counts(mark) == {"LIST": 2, "RANGED_GET": 1}
    assert frame[frame["run"] == "run007"]["step"].tolist() == list(range(25))
    mark = s3.mark()
    logdir.reload().scalars()
    assert s3.counts(mark) == {"LIST": 2}


def test_a_pending_incomplete_record_is_not_fetched_again_until_the_object_changes(
    s3: S3Server,  # noqa: F811
    tmp_path: Path,
) -> None:
    data = _events(tmp_path, range(10))
    cut = len(data) - 7  # the last record lacks its last 7 bytes
    _client().pipe_file(f"tbkit-test/logs/a/{NAME}", data[:cut])
    logdir = tbkit.read(URL)
    assert len(logdir.scalars()) == 9
    assert logdir.problems()["reason"].str.startswith("incomplete").tolist() == [True]
    mark = s3.mark()
    logdir.reload()
    assert s3.counts(mark) == {"LIST": 1}  # the object did not change: its tail is not asked for again
    assert logdir.problems()["reason"].str.startswith("incomplete").tolist() == [True]  # still pending
    _client().pipe_file(f"tbkit-test/logs/a/{NAME}", data)
    mark = s3.mark()
    assert len(logdir.reload().scalars()) == 10
    assert _gets(s3, mark) == [
        f"bytes={len(data) - _last_record(data)}-{len(data) - 1}"
    ]  # from the record cut
    assert logdir.problems().empty


def _last_record(data: bytes) -> int:
    """The length of the last record of ``data``, framing included."""
    from tbkit.record.scan import scan_records

    scan = scan_records(data)
    return len(data) - (int(scan.starts[-1]) - 12)


def test_listing_discovery_finds_what_the_local_walk_finds(tmp_path: Path) -> None:
    """Hidden directories, nested runs, a root run, checkpoints and profiler sessions, on disk
    (walked) and in memory:// (one listing): the same runs and files."""
    import fsspec

    layout = {
        NAME: b"",
        f"a/{NAME}": b"",
        f"a/{NAME}.2": b"",
        f"a/b/{NAME}": b"",
        f"a/.hidden/{NAME}": b"",
        "a/ckpt/shard-1.pt": b"x",
        "a/ckpt/deeper/shard-2.pt": b"x",
        "p/plugins/profile/2024_01_01/host.trace.json.gz": b"x",
        "t/worker0.123.pt.trace.json": b"x",
        "q/plugins/profile/s/host.trace.json.gz": b"x",
        f"q/{NAME}": b"",
        "notes/readme.txt": b"x",
    }
    memory = fsspec.filesystem("memory")
    for relative, data in layout.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(data)
        memory.pipe_file(f"/polling-layout/{relative}", data)
    try:
        local = discover_runs(str(tmp_path))
        listed = discover_runs("memory://polling-layout")
    finally:
        memory.rm("/polling-layout", recursive=True)

    def relative(runs: dict[str, list[str]], root: str) -> dict[str, list[str]]:
        return {run: [p.replace("\\", "/")[len(root) + 1 :] for p in paths] for run, paths in runs.items()}

    assert relative(local, str(tmp_path).replace("\\", "/")) == relative(listed, "memory://polling-layout")
    assert sorted(listed) == [".", "a", "a/b", "p", "q", "t"]
