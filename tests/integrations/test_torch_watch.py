"""tbkit.torch: watch() hooks, log_graph and log_learning_rates on a real PyTorch training loop."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from _readers import tensorboard_runs, tensorboard_tensors  # noqa: E402

import tbkit  # noqa: E402
import tbkit.torch as tbtorch  # noqa: E402
from tbkit.plugins.histograms.summary import equal_width_buckets  # noqa: E402

pytestmark = pytest.mark.interop


def _mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))


def _train(model, steps: int, record: dict | None = None, eval_every: int = 0) -> None:
    """``steps`` SGD steps on fixed data; ``record[step]`` = (weights before, gradients) per step."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
    for step in range(steps):
        weights = {n: p.detach().clone() for n, p in model.named_parameters()}
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        if record is not None:
            record[step] = (
                weights,
                {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None},
            )
        opt.step()
        if eval_every and step % eval_every == 0:
            model.eval()
            with torch.no_grad():
                model(x)
            model.train()


def _hist_steps(logdir) -> dict[str, list[int]]:
    h = tbkit.read(str(logdir)).histograms()
    return {tag: sorted(g.step.tolist()) for tag, g in h.groupby("tag", observed=True)}


def test_watch_all_logs_weights_gradients_and_norms_at_every_log_freq_step(tmp_path) -> None:
    model, record = _mlp(), {}
    names = [n for n, _ in model.named_parameters()]
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        handle = tbtorch.watch(model, writer, log="all", log_freq=3)
        _train(model, 7, record, eval_every=2)  # evaluation forwards are not steps
        handle.remove()
    assert handle.step == 6
    expected_hist = {f"{kind}/{n}" for kind in ("parameters", "gradients") for n in names}
    assert _hist_steps(tmp_path) == {tag: [0, 3, 6] for tag in expected_hist}

    ld = tbkit.read(str(tmp_path))
    hist = ld.histograms()
    for step in (0, 3, 6):
        weights, grads = record[step]
        for kind, arrays in (("parameters", weights), ("gradients", grads)):
            for name, array in arrays.items():
                row = hist[(hist.tag == f"{kind}/{name}") & (hist.step == step)].iloc[0]
                want = equal_width_buckets(array.numpy())
                np.testing.assert_array_equal(row.edges, np.append(want[:, 0], want[-1, 1]))
                assert row.counts.sum() == array.numel()
                # float32 bucketing: a value within rounding of an edge may move by one bucket
                assert np.abs(row.counts - want[:, 2]).sum() <= 2

    scalars = ld.scalars()
    norms = {(r.tag, r.step): r.value for r in scalars.itertuples()}
    for step in (0, 3, 6):
        weights, grads = record[step]
        for name in names:
            assert norms[(f"parameter_norms/{name}", step)] == pytest.approx(
                float(weights[name].norm()), rel=1e-5
            )
            assert norms[(f"gradient_norms/{name}", step)] == pytest.approx(
                float(grads[name].norm()), rel=1e-5
            )
        total = math.sqrt(sum(float(g.norm()) ** 2 for g in grads.values()))
        assert norms[("gradient_norms/total", step)] == pytest.approx(total, rel=1e-5)
    assert sorted({t for t, _ in norms}) == sorted(
        [f"parameter_norms/{n}" for n in names]
        + [f"gradient_norms/{n}" for n in names]
        + ["gradient_norms/total"]
    )

    # TensorBoard's own reader sees the same series, and the same buckets.
    seen = tensorboard_runs(tmp_path)["."]
    assert seen["histograms"] == sorted(expected_hist)
    assert set(seen["scalars"]) == {t for t, _ in norms}
    tb_steps = tensorboard_tensors(tmp_path, "gradients/0.weight")
    assert [s for s, _ in tb_steps] == [0, 3, 6]
    last = hist[(hist.tag == "gradients/0.weight") & (hist.step == 6)].iloc[0]
    np.testing.assert_array_equal(tb_steps[-1][1][:, 2], last.counts)


@pytest.mark.parametrize("log", ["gradients", "parameters"])
def test_watch_logs_only_what_was_asked(tmp_path, log) -> None:
    model = _mlp()
    with (
        tbkit.SummaryWriter(str(tmp_path)) as writer,
        tbtorch.watch(model, writer, log=log, log_freq=2, prefix="net/"),
    ):
        _train(model, 5)
    kinds = {tag.split("/")[1] for tag in _hist_steps(tmp_path)}
    assert kinds == {log}
    assert all(v == [0, 2, 4] for v in _hist_steps(tmp_path).values())
    norm_kinds = {t.split("/")[1] for t in tbkit.read(str(tmp_path)).scalars().tag.unique()}
    assert norm_kinds == {"gradient_norms" if log == "gradients" else "parameter_norms"}


def test_frozen_and_unused_parameters(tmp_path) -> None:
    torch.manual_seed(0)
    model = torch.nn.ModuleDict({"used": torch.nn.Linear(4, 3), "unused": torch.nn.Linear(4, 3)})
    model.used.bias.requires_grad_(False)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = model

        def forward(self, x):
            return self.layers["used"](x)

    net = Net()
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        handle = tbtorch.watch(net, writer, log="all", log_freq=1)
        opt = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            net(torch.randn(5, 4)).sum().backward()
            opt.step()
        handle.remove()
    steps = _hist_steps(tmp_path)
    # Weights of every parameter; gradients only where the backward put one.
    assert set(steps) == {
        "parameters/layers.used.weight",
        "parameters/layers.used.bias",
        "parameters/layers.unused.weight",
        "parameters/layers.unused.bias",
        "gradients/layers.used.weight",
    }
    assert all(v == [0, 1, 2] for v in steps.values())


def test_remove_stops_logging_and_null_writer_gets_no_hooks(tmp_path) -> None:
    model = _mlp()
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        handle = tbtorch.watch(model, writer, log="all", log_freq=1)
        _train(model, 2)
        handle.remove()
        handle.remove()
        assert not model._forward_pre_hooks
        _train(model, 3)
    assert all(v == [0, 1] for v in _hist_steps(tmp_path).values())

    null = tbkit.SummaryWriter(str(tmp_path / "other"), rank=1)
    handle = tbtorch.watch(model, null, log="all", log_freq=1)
    assert not model._forward_pre_hooks
    _train(model, 2)
    handle.remove()
    assert not (tmp_path / "other").exists()


def test_watch_refuses_bad_arguments(tmp_path) -> None:
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(TypeError, match=r"torch\.nn\.Module"):
            tbtorch.watch("model", writer)
        with pytest.raises(ValueError, match="log must be"):
            tbtorch.watch(_mlp(), writer, log="weights")
        for bad in (0, -1, 1.5, True):
            with pytest.raises(ValueError, match="log_freq"):
                tbtorch.watch(_mlp(), writer, log_freq=bad)


def test_log_learning_rates_per_group_and_log_graph(tmp_path) -> None:
    model = _mlp()
    opt = torch.optim.SGD(
        [{"params": model[0].parameters(), "name": "body"}, {"params": model[2].parameters(), "lr": 0.5}],
        lr=0.1,
    )
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    single = torch.optim.Adam(model.parameters(), lr=0.01)
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        for step in range(3):
            tbtorch.log_learning_rates(opt, writer, step)
            tbtorch.log_learning_rates(single, writer, step, prefix="adam_lr")
            opt.step()
            sched.step()
        model.train()
        tbtorch.log_graph(model, writer, torch.zeros(2, 4))
        assert model.training
    ld = tbkit.read(str(tmp_path))
    got = {(r.tag, r.step): r.value for r in ld.scalars().itertuples()}
    for step in range(3):
        assert got[("learning_rate/body", step)] == pytest.approx(0.1 * 0.5**step)
        assert got[("learning_rate/group1", step)] == pytest.approx(0.5 * 0.5**step)
        assert got[("adam_lr", step)] == pytest.approx(0.01)
    ops = set(ld.graph_nodes().op)
    assert any("linear" in op.lower() for op in ops), ops
    with pytest.raises(TypeError, match="param_groups"):
        tbtorch.log_learning_rates(object(), tbkit.SummaryWriter(str(tmp_path / "x"), rank=1), 0)


class _Output:
    """A forward result that is no tensor, list or dict: no output hook can be put on it."""

    def __init__(self, logits) -> None:
        self.logits = logits


def test_gradients_of_a_model_returning_an_object_and_of_each_backward(tmp_path) -> None:
    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = _mlp()

        def forward(self, x):
            return _Output(self.inner(x))

    torch.manual_seed(1)
    net, x = Net(), torch.randn(6, 4)
    grads = {}
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        handle = tbtorch.watch(net, writer, log="gradients", log_freq=2)
        for step in range(4):
            net.zero_grad()
            net(x).logits.square().sum().backward()
            grads[step] = net.inner[0].weight.grad.clone()
            # A second backward of another forward before the next logged step: the logged
            # gradient is the one after the logged forward's backward.
            net.inner(x).sum().backward()
        handle.remove()
    hist = tbkit.read(str(tmp_path)).histograms()
    assert _hist_steps(tmp_path)["gradients/inner.0.weight"] == [0, 2]
    for step in (0, 2):
        row = hist[(hist.tag == "gradients/inner.0.weight") & (hist.step == step)].iloc[0]
        want = equal_width_buckets(grads[step].numpy())
        np.testing.assert_array_equal(row.edges, np.append(want[:, 0], want[-1, 1]))


def test_a_writer_subclass_gets_every_value_through_its_methods(tmp_path) -> None:
    calls = []

    class Counting(tbkit.SummaryWriter):
        def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, **kwargs):
            calls.append((tag, global_step))
            super().add_scalar(tag, scalar_value, global_step, walltime, **kwargs)

    model = _mlp()
    with Counting(str(tmp_path)) as writer:
        tbtorch.watch(model, writer, log="all", log_freq=2)
        _train(model, 5)
    names = [n for n, _ in model.named_parameters()]
    want = {f"{k}/{n}" for k in ("parameter_norms", "gradient_norms") for n in names}
    want.add("gradient_norms/total")
    assert sorted(calls) == sorted((tag, step) for tag in want for step in (0, 2, 4))
    assert all(v == [0, 2, 4] for v in _hist_steps(tmp_path).values())


def test_deferred_steps_keep_file_order_and_a_failing_job_is_reported(tmp_path) -> None:
    from tbkit.proto import event_pb2
    from tbkit.record.framing import iter_records

    model = _mlp()
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        handle = tbtorch.watch(model, writer, log="gradients", log_freq=1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(8, 4), torch.randint(0, 3, (8,))
        for step in range(4):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            writer.add_scalar("loss_after_backward", float(step), step)
            opt.step()
        handle.remove()
    events = tbkit.read(str(tmp_path))
    scalars = events.scalars()
    # Steps 1-3 were bucketed on the writer's thread: same series as step 0, which was not.
    total = scalars[scalars.tag == "gradient_norms/total"]
    assert total.step.tolist() == [0, 1, 2, 3] and (total.value > 0).all()
    assert _hist_steps(tmp_path)["gradients/0.weight"] == [0, 1, 2, 3]

    # In the file, each step's watch events come before the value logged after its backward.
    order = []
    (path,) = list(tmp_path.glob("events.out.tfevents.*"))
    for _, record in iter_records(path.read_bytes(), path=str(path)):
        event = event_pb2.Event.FromString(record)
        for value in event.summary.value:
            if value.tag in ("gradients/0.weight", "loss_after_backward"):
                order.append((event.step, value.tag))
    assert order == [(s, t) for s in range(4) for t in ("gradients/0.weight", "loss_after_backward")]

    writer = tbkit.SummaryWriter(str(tmp_path / "failing"))

    def job() -> list[bytes]:
        raise RuntimeError("boom")

    writer._writer.add_serialized_events(job, size=1)
    with pytest.raises(tbkit.errors.WriterError, match="boom"):
        writer.flush()
    with pytest.raises(tbkit.errors.WriterError):
        writer.close()


def test_gradients_still_logged_after_the_model_changes_dtype(tmp_path) -> None:
    model = _mlp()
    x = torch.randn(5, 4, dtype=torch.float64)
    norms = {}
    with tbkit.SummaryWriter(str(tmp_path)) as writer:
        handle = tbtorch.watch(model, writer, log="gradients", log_freq=1)
        model.double()  # each parameter gets a new AccumulateGrad node
        for step in range(2):
            model.zero_grad()
            model(x).square().sum().backward()
            norms[step] = float(model[2].weight.grad.norm())
        handle.remove()
    assert _hist_steps(tmp_path)["gradients/2.weight"] == [0, 1]
    got = {(r.tag, r.step): r.value for r in tbkit.read(str(tmp_path)).scalars().itertuples()}
    for step in (0, 1):
        assert got[("gradient_norms/2.weight", step)] == pytest.approx(norms[step], rel=1e-5)
