"""The step1 run metadata torch writes beside a traced graph: the same bytes as TensorBoard's protos."""

from __future__ import annotations

import pytest

from tbkit.plugins.graphs.summary import torch_run_metadata_event


@pytest.mark.interop
def test_step1_run_metadata_is_torchs() -> None:
    config_pb2 = pytest.importorskip("tensorboard.compat.proto.config_pb2")
    from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats

    expected = config_pb2.RunMetadata(
        step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")])
    )
    event = torch_run_metadata_event(12.5)
    assert event.tagged_run_metadata.tag == "step1"
    assert event.tagged_run_metadata.run_metadata == expected.SerializeToString()
    assert event.wall_time == 12.5
