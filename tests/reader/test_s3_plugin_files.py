"""The file-based plugins' listing on S3 answers from the reload's listing: no LIST, no HEAD.

The logdir: 100 runs with checkpoint folders (as tests/reader/test_s3_polling.py's), a few
of which hold profiler traces (both layouts) and projector embeddings, written locally and
copied to the loopback S3 server. After a reload, the page's listing calls
(``/data/plugins_listing``, the profile and projector listings) ask the server nothing but
the projector configs' contents, and they list the same files as the local copy.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbkit
from tbkit.reader.discovery import Discovered, discover
from tbkit.reader.index import LogdirIndex, LogdirProvider
from tbkit.reader.multi import MultiLogdirProvider
from tbkit.server.app import create_app
from tests._s3 import S3Server, s3  # noqa: F401  (the fixture)

URL = "s3://tbkit-test/logs"
RUNS = 100
SHARDS = 10
TRACE = gzip.compress(json.dumps({"traceEvents": [{"ph": "X", "name": "op", "ts": 0, "dur": 5}]}).encode())


def _layout(root: Path) -> None:
    """The logdir, on disk: 100 runs, checkpoints, traces in runs 000-002, embeddings in 003-004."""
    for r in range(RUNS):
        run = root / f"run{r:03d}"
        with tbkit.SummaryWriter(str(run)) as writer:
            writer.add_scalar("loss", 1.0, 0)
            if r in (3, 4):
                writer.add_embedding(np.arange(12.0).reshape(4, 3), metadata=list("abcd"), tag=f"emb{r}")
        for c in range(SHARDS):
            (run / "checkpoints").mkdir(exist_ok=True)
            (run / "checkpoints" / f"shard-{c:05d}.pt").write_bytes(b"w" * 64)
    for r in range(3):
        session = root / f"run{r:03d}" / "plugins" / "profile" / "2024_01_01_00_00_00"
        session.mkdir(parents=True)
        (session / "host.trace.json.gz").write_bytes(TRACE)
    (root / "run002" / "worker0.1700000000.pt.trace.json").write_bytes(gzip.decompress(TRACE))
    (root / "run001" / ".hidden" / "plugins" / "profile" / "s").mkdir(parents=True)  # never listed
    (root / "run001" / ".hidden" / "plugins" / "profile" / "s" / "h.trace.json.gz").write_bytes(TRACE)


@pytest.fixture
def logdirs(s3: S3Server, tmp_path: Path) -> Path:  # noqa: F811
    """The local logdir, also copied to ``URL``; returns the local one."""
    import s3fs

    local = tmp_path / "logs"
    _layout(local)
    client = s3fs.S3FileSystem(skip_instance_cache=True)
    client.pipe(
        {
            f"tbkit-test/logs/{p.relative_to(local).as_posix()}": p.read_bytes()
            for p in local.rglob("*")
            if p.is_file()
        }
    )
    s3.clear()
    return local


def _listings(client: Any) -> dict[str, Any]:
    """What the page asks for its tabs and the two file-based dashboards."""
    tabs = client.get("/data/plugins_listing").json
    traces = client.get("/data/plugin/profile/traces").json
    embeddings = client.get("/data/plugin/projector/embeddings").json
    return {
        "tabs": {name: tab["enabled"] for name, tab in tabs.items()},
        "traces": traces,
        "embeddings": embeddings,
    }


def _files(provider: Any) -> dict[str, dict[str, list[tuple[str, int]]]]:
    return {
        plugin: {
            run: [(f.path, f.size) for f in files]
            for run, files in provider.list_plugin_files(plugin).items()
        }
        for plugin in ("profile", "projector")
    }


@pytest.mark.parametrize("kind", ["serve", "read"])
def test_the_pages_listing_calls_cost_no_list_or_head_after_a_reload_and_match_the_local_copy(
    s3: S3Server,  # noqa: F811
    logdirs: Path,
    kind: str,
) -> None:
    def provider(logdir: str) -> Any:
        if kind == "serve":
            return MultiLogdirProvider([("", logdir)])
        return tbkit.read(logdir).provider

    remote, local = provider(URL), provider(str(logdirs))
    remote.reload()
    local.reload()
    mark = s3.mark()
    client = create_app(remote).test_client()
    found = _listings(client)
    asked = [(r.kind, r.path.rsplit("/", 2)[-2:]) for r in s3.requests[mark:]]
    config = ["projector_config.pbtxt"]
    # the two projector configs: read once by the listing, once by the embeddings' route, nothing else
    assert sorted(asked) == [
        ("RANGED_GET", [run, *config]) for run in ("run003", "run003", "run004", "run004")
    ]
    assert found == _listings(create_app(local).test_client())
    assert found["tabs"]["profile"] and found["tabs"]["projector"]
    assert sorted(found["traces"]) == ["run000", "run001", "run002"]
    assert len(found["traces"]["run002"]) == 2
    assert _files(remote) == _files(local)
    assert sorted(_files(remote)["projector"]) == ["run003", "run004"]

    mark = s3.mark()
    assert _listings(client) == found  # asked again before the next reload: the listing asks nothing
    assert s3.counts(mark) == {"RANGED_GET": 2}  # the embeddings' route reading the two configs

    (logdirs / "run007" / "plugins" / "profile" / "s").mkdir(
        parents=True
    )  # a new trace: the next reload sees it
    import s3fs

    s3fs.S3FileSystem(skip_instance_cache=True).pipe_file(
        "tbkit-test/logs/run007/plugins/profile/s/host.trace.json.gz", TRACE
    )
    remote.reload()
    mark = s3.mark()
    assert "run007" in _listings(client)["traces"]
    assert s3.counts(mark)["LIST"] == 0 and s3.counts(mark)["HEAD"] == 0


def test_a_run_handed_its_part_of_the_listing_lists_only_its_own_tree() -> None:
    tree = {"a/x.pt.trace.json": 1, "a/b/y": 2, "ab/z": 3, "a0/w": 4, "top": 5}
    found = Discovered({"a": ["s3://b/l/a/e"], "ab": []}, {"s3://b/l/a/e": 9}, tree)
    assert found.of_run("a").tree == {"x.pt.trace.json": 1, "b/y": 2}
    assert found.of_run("ab").tree == {"z": 3}
    assert Discovered({"a": []}).of_run("a").tree is None


def test_a_first_read_lists_once(s3: S3Server, logdirs: Path) -> None:  # noqa: F811
    mark = s3.mark()
    discover(URL)
    pages = s3.counts(mark)["LIST"]
    assert pages == 2  # over 1,100 keys: two pages of at most 1,000
    mark = s3.mark()
    logdir = tbkit.read(URL)
    assert s3.counts(mark) == {"LIST": pages}  # the open's discovery, which also tells the logdir is there
    mark = s3.mark()
    assert len(logdir.scalars()) == RUNS
    assert s3.counts(mark)["LIST"] == 0 and s3.counts(mark)["HEAD"] == 0  # the first frame reuses the open's
    mark = s3.mark()
    logdir.reload()
    assert s3.counts(mark) == {"LIST": pages}  # a reload lists again, of course
    index = LogdirIndex(URL)
    index.discover()
    mark = s3.mark()
    LogdirProvider(index).list_runs()
    assert s3.counts(mark)["LIST"] == 0
