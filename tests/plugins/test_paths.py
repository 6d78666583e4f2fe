"""The plugin file policy (issue 14): files a run names are read only inside the logdir's real
tree or the run's own real directory, unless ``allow_outside_files``.

Before, a projector tensor file or a profile trace that was a symlink to a file outside the
log directory was listed and served.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import tbkit
from tbkit.errors import NotFoundError
from tbkit.plugins._paths import inside_roots, is_allowed
from tbkit.plugins.profile.write import write_trace
from tbkit.reader.multi import MultiLogdirProvider

SECRET = "1\t2\n3\t4\n"


def _run(run_dir: Path) -> None:
    with tbkit.SummaryWriter(str(run_dir)) as w:
        w.add_scalar("loss", 1.0, 0)


def _projector(run_dir: Path, tensor_path: str) -> None:
    _run(run_dir)
    body = f'embeddings {{ tensor_name: "e" tensor_path: "{tensor_path}" }}'
    (run_dir / "projector_config.pbtxt").write_text(body)


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """``logs/`` with a run whose tensor file and trace are symlinks to outside files, and a run
    directory linked in from outside (holding real files of its own)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.tsv").write_text(SECRET)
    (outside / "trace.pt.trace.json").write_text('{"traceEvents": []}')
    logs = tmp_path / "logs"
    _projector(logs / "linked_file", "tensors.tsv")
    os.symlink(outside / "secret.tsv", logs / "linked_file" / "tensors.tsv")
    os.symlink(outside / "trace.pt.trace.json", logs / "linked_file" / "host_1.1.pt.trace.json")
    elsewhere = tmp_path / "elsewhere_run"
    _projector(elsewhere, "tensors.tsv")
    (elsewhere / "tensors.tsv").write_text("5\t6\n")
    write_trace(str(elsewhere), {"traceEvents": []}, session="s1", worker="w")
    os.symlink(elsewhere, logs / "linked_run")
    return {"logs": logs, "outside": outside, "elsewhere": elsewhere}


def _provider(logs: Path, allow: bool = False) -> MultiLogdirProvider:
    provider = MultiLogdirProvider([("", str(logs))], allow_outside_files=allow)
    provider.reload()
    return provider


def _listed(provider: MultiLogdirProvider, plugin: str) -> dict[str, list[str]]:
    return {run: sorted(f.path for f in files) for run, files in provider.list_plugin_files(plugin).items()}


def test_a_symlink_to_an_outside_file_is_neither_listed_nor_read(layout: dict[str, Path]) -> None:
    provider = _provider(layout["logs"])
    assert _listed(provider, "projector")["linked_file"] == ["projector_config.pbtxt"]
    assert "linked_file" not in _listed(provider, "profile")
    with pytest.raises(NotFoundError, match="outside the log directory"):
        provider.read_plugin_file("projector", run="linked_file", path="tensors.tsv")
    with pytest.raises(NotFoundError, match="outside the log directory"):
        provider.read_plugin_file("profile", run="linked_file", path="host_1.1.pt.trace.json")


def test_a_run_directory_linked_in_is_followed(layout: dict[str, Path]) -> None:
    provider = _provider(layout["logs"])
    listed = _listed(provider, "projector")["linked_run"]
    assert listed == ["projector_config.pbtxt", "tensors.tsv"]
    assert provider.read_plugin_file("projector", run="linked_run", path="tensors.tsv") == b"5\t6\n"
    assert _listed(provider, "profile")["linked_run"] == ["plugins/profile/s1/w.pt.trace.json.gz"]


@pytest.mark.parametrize("name", ["ABSOLUTE", "../../outside/secret.tsv", "../linked_file/tensors.tsv"])
def test_absolute_and_dotdot_paths_are_not_read(layout: dict[str, Path], name: str) -> None:
    path = str(layout["outside"] / "secret.tsv") if name == "ABSOLUTE" else name
    provider = _provider(layout["logs"])
    with pytest.raises(NotFoundError):
        provider.read_plugin_file("projector", run="linked_run", path=path)


def test_allow_outside_files_reads_them(layout: dict[str, Path]) -> None:
    provider = _provider(layout["logs"], allow=True)
    assert "tensors.tsv" in _listed(provider, "projector")["linked_file"]
    assert provider.read_plugin_file("projector", run="linked_file", path="tensors.tsv") == SECRET.encode()
    assert _listed(provider, "profile")["linked_file"] == ["host_1.1.pt.trace.json"]


def test_the_embeddings_frame_refuses_a_symlink_to_outside(layout: dict[str, Path]) -> None:
    ld = tbkit.read(str(layout["logs"]))
    frame = ld.embeddings()
    assert frame["run"].tolist() == ["linked_run"]
    assert np.asarray(frame["tensor"].iloc[0]).tolist() == [[5.0, 6.0]]
    reasons = ld.problems().query("run == 'linked_file'")["reason"].tolist()
    assert len(reasons) == 1 and "outside the log directory" in reasons[0]  # not "no such file"
    assert "--allow_outside_files" in reasons[0]


def test_the_policy_function(tmp_path: Path) -> None:
    (tmp_path / "logs" / "run").mkdir(parents=True)
    (tmp_path / "out.txt").write_text("x")
    os.symlink(tmp_path / "out.txt", tmp_path / "logs" / "run" / "link.txt")
    logs, run = str(tmp_path / "logs"), str(tmp_path / "logs" / "run")
    assert not is_allowed(f"{run}/link.txt", logdir=logs, run_dir=run)
    assert is_allowed(f"{run}/link.txt", logdir=logs, run_dir=run, allow_outside=True)
    assert not is_allowed(f"{run}/../../out.txt", logdir=logs, run_dir=run)
    assert is_allowed(f"{run}/sub/../fine.txt", logdir=logs, run_dir=run)
    assert not inside_roots(f"{logs}-other/x", [logs])  # a sibling sharing the prefix is outside
    assert not inside_roots("s3://bucket/logs/../secret", ["s3://bucket/logs"], local=False)
    assert inside_roots("s3://bucket/logs/run/a", ["s3://bucket/logs"], local=False)


def test_read_allow_outside_files_reads_them(layout: dict[str, Path]) -> None:
    ld = tbkit.read(str(layout["logs"]), allow_outside_files=True)
    frame = ld.embeddings().set_index("run")
    assert sorted(frame.index) == ["linked_file", "linked_run"]
    assert ld.problems().query("run == 'linked_file'").empty
    assert ld.reload().embeddings()["run"].tolist() == frame.index.tolist()  # kept after a reload
