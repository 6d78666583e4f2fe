"""Helpers for the graph tests: read graph events back and check a GraphDef is well formed."""

from __future__ import annotations

from pathlib import Path

from tbkit.proto import event_pb2, graph_pb2
from tbkit.record.framing import iter_records


def events(logdir: Path) -> list[event_pb2.Event]:
    """Every event of the one event file in ``logdir``, header included."""
    files = sorted(logdir.glob("events.out.tfevents.*"))
    assert len(files) == 1, files
    data = files[0].read_bytes()
    return [event_pb2.Event.FromString(record) for _, record in iter_records(data, path=str(files[0]))]


def written_graphs(logdir: Path) -> list[graph_pb2.GraphDef]:
    """The ``GraphDef`` of every ``graph_def`` event in ``logdir``."""
    return [graph_pb2.GraphDef.FromString(e.graph_def) for e in events(logdir) if e.HasField("graph_def")]


def shapes(node: graph_pb2.NodeDef) -> list[tuple[int, ...] | None]:
    """A node's ``_output_shapes`` as tuples (None for an unknown rank)."""
    return [
        None if s.unknown_rank else tuple(d.size for d in s.dim)
        for s in node.attr["_output_shapes"].list.shape
    ]


def by_name(graph: graph_pb2.GraphDef) -> dict[str, graph_pb2.NodeDef]:
    return {node.name: node for node in graph.node}


def check_well_formed(graph: graph_pb2.GraphDef) -> None:
    """Unique names, no name also used as a scope, every input naming an existing node output."""
    nodes = by_name(graph)
    assert len(nodes) == len(graph.node), "duplicate node names"
    scopes = {name.rsplit("/", i)[0] for name in nodes for i in range(1, name.count("/") + 1)}
    assert not scopes & set(nodes), f"names also used as scopes: {scopes & set(nodes)}"
    for node in graph.node:
        assert node.op, node.name
        for ref in node.input:
            source, _, index = ref.partition(":")
            assert source in nodes, f"{node.name} reads missing {ref}"
            assert int(index or 0) < max(1, len(shapes(nodes[source]))), f"{node.name} reads {ref}"


def write_torch_graph(run_dir: Path) -> None:
    """A two-layer module ``Net`` traced by ``torch.utils.tensorboard``'s ``add_graph`` into ``run_dir``."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = torch.nn.Linear(4, 8)
            self.fc2 = torch.nn.Linear(8, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.fc2(torch.relu(self.fc1(x)))

    with SummaryWriter(str(run_dir)) as writer:
        writer.add_graph(Net(), torch.zeros(1, 4))
