"""Distributed training: two real processes started by ``torchrun`` (gloo, CPU).

By default only rank 0 writes (the others get a ``NullSummaryWriter``); with
``per_rank=True`` each rank writes ``<log_dir>/rank<k>``. The rank comes from ``RANK`` (set by
torchrun) or, once a process group is up, from ``torch.distributed`` itself.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from _readers import tensorboard_runs  # noqa: E402

import tbkit  # noqa: E402

pytestmark = [pytest.mark.interop, pytest.mark.slow]

_SCRIPT = textwrap.dedent(
    """
    import os, sys
    import torch, torch.distributed as dist
    import tbkit, tbkit.torch
    from tbkit.writer.summary_writer import NullSummaryWriter

    out = sys.argv[1]
    rank = int(os.environ["RANK"])
    # 1. Before any process group: the launcher's RANK decides.
    shared = tbkit.SummaryWriter(os.path.join(out, "shared"))
    assert isinstance(shared, NullSummaryWriter) == (rank != 0), (rank, type(shared))
    own = tbkit.SummaryWriter(os.path.join(out, "per_rank"), per_rank=True)
    dist.init_process_group("gloo")
    # 2. With the group up and the launcher's variables gone, torch.distributed decides.
    for name in ("RANK", "LOCAL_RANK"):
        os.environ.pop(name)
    late = tbkit.SummaryWriter(os.path.join(out, "late"))
    assert isinstance(late, NullSummaryWriter) == (rank != 0)
    model = torch.nn.Linear(3, 1)
    handle = tbkit.torch.watch(model, shared, log="all", log_freq=1)
    for step in range(3):
        loss = model(torch.ones(2, 3)).sum()
        loss.backward()
        for w in (shared, own, late):
            w.add_scalar("rank", float(rank), step)
            w.add_histogram("values", torch.full((4,), float(rank)), step)
    handle.remove()
    for w in (shared, own, late):
        w.close()
    dist.barrier()
    dist.destroy_process_group()
    """
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_torchrun_two_ranks(tmp_path) -> None:
    script = tmp_path / "train.py"
    script.write_text(_SCRIPT)
    out = tmp_path / "logs"
    command = [
        *(sys.executable, "-m", "torch.distributed.run", "--nnodes=1", "--nproc-per-node=2"),
        *("--master-addr=127.0.0.1", f"--master-port={_free_port()}", str(script), str(out)),
    ]
    env = {k: v for k, v in os.environ.items() if k not in ("RANK", "LOCAL_RANK", "WORLD_SIZE")}
    done = subprocess.run(
        command, env={**env, "OMP_NUM_THREADS": "1"}, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]

    ld = tbkit.read(str(out))
    runs = sorted(ld.runs().run)
    assert runs == ["late", "per_rank/rank0", "per_rank/rank1", "shared"]
    s = ld.scalars()
    values = {run: sorted(set(g[g.tag == "rank"].value)) for run, g in s.groupby("run", observed=True)}
    assert values == {"late": [0.0], "per_rank/rank0": [0.0], "per_rank/rank1": [1.0], "shared": [0.0]}
    # rank 0's watch() wrote into "shared"; rank 1's had a null writer and wrote nothing anywhere
    assert {"parameters/weight", "gradients/weight"} <= set(s[s.run == "shared"].tag) | set(
        ld.histograms().query("run == 'shared'").tag
    )
    assert len(ld.histograms().query("run == 'shared' and tag == 'values'")) == 3
    seen = tensorboard_runs(out)
    assert sorted(seen) == runs
    assert seen["per_rank/rank1"]["scalars"] == ["rank"]
