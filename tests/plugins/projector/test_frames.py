"""The embeddings frame, built on the provider's plugin files: what it reads and what it refuses."""

from __future__ import annotations

import numpy as np

import tbkit

RNG = np.random.default_rng(5)


def _config(run_dir, body: str) -> None:
    """A run (an event file: the projector looks in runs) with ``body`` as its projector config."""
    with tbkit.SummaryWriter(str(run_dir)) as w:
        w.add_scalar("loss", 1.0, 0)
    (run_dir / "projector_config.pbtxt").write_text(body)


def test_a_file_outside_the_run_directory_is_a_problem_not_read(tmp_path):
    outside = tmp_path / "elsewhere.tsv"
    outside.write_text("1\t2\n3\t4\n")
    logdir = tmp_path / "logs"
    _config(logdir / "abs", f'embeddings {{ tensor_name: "a" tensor_path: "{outside}" }}')
    _config(logdir / "up", 'embeddings { tensor_name: "u" tensor_path: "../../elsewhere.tsv" }')
    with tbkit.SummaryWriter(str(logdir / "fine")) as w:
        w.add_embedding(RNG.normal(size=(3, 2)), tag="c")
    ld = tbkit.read(str(logdir))
    frame = ld.embeddings()
    assert frame["run"].tolist() == ["fine"]  # the file outside the logdir is never opened
    problems = ld.problems().set_index("run")
    assert sorted(problems.index) == ["abs", "up"]
    assert problems.loc["abs", "path"] == str(outside)
    assert "outside the run directory" in problems.loc["abs", "reason"]
    assert "outside the run directory" in problems.loc["up", "reason"]


def test_a_missing_tensor_file_is_a_problem_naming_it(tmp_path):
    _config(
        tmp_path / "run", 'embeddings { tensor_name: "t" tensor_path: "gone/t.tsv" metadata_path: "m.tsv" }'
    )
    ld = tbkit.read(str(tmp_path))
    assert ld.embeddings().empty
    problem = ld.problems().iloc[0]
    assert (
        problem["run"] == "run"
        and problem["path"].endswith("gone/t.tsv")
        and "no projector file 'gone/t.tsv'" in problem["reason"]
    )


def test_problems_are_replaced_when_the_frame_is_read_again(tmp_path):
    _config(tmp_path / "run", 'embeddings { tensor_name: "t" tensor_path: "t.tsv" }')
    ld = tbkit.read(str(tmp_path))
    ld.embeddings()
    assert len(ld.problems()) == 1
    (tmp_path / "run" / "t.tsv").write_text("0.5\t1\n")
    frame = ld.reload().embeddings()
    assert frame["shape"].tolist() == [(1, 2)] and ld.reload().problems().empty


def test_an_embedding_without_a_step_in_its_name_reads_with_a_missing_step(tmp_path):
    _config(tmp_path / "run", 'embeddings { tensor_name: "words" tensor_path: "t.tsv" }')
    (tmp_path / "run" / "t.tsv").write_text("1\t2\n")
    frame = tbkit.read(str(tmp_path)).embeddings()
    assert (
        frame["tag"].tolist() == ["words"]
        and frame["step"].isna().all()
        and str(frame["step"].dtype) == "Int64"
    )
