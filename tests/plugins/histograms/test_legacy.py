"""torch's HistogramProto, byte for byte but the sum of squares: tbkit's bucketing against torch's own."""

from __future__ import annotations

import numpy as np
import pytest

from tbkit.plugins.histograms.legacy import default_edges, histogram_proto_pb

_RNG = np.random.default_rng(0)
CASES = [
    (_RNG.normal(size=1000), "tensorflow", None),
    (_RNG.normal(size=1000) * 1e-3, "tensorflow", None),
    (_RNG.normal(size=1000), "tensorflow", 64),
    (_RNG.uniform(0, 10, 500), 5, None),
    (_RNG.uniform(0, 10, 500), np.arange(11.0), None),
    (_RNG.normal(size=1000), "auto", None),
    (np.arange(100.0), 50, 7),
    (np.array([3.0, 3.0]), "tensorflow", None),
    (np.array([-2.5, 0.0, 7.0]), "tensorflow", None),
]


@pytest.mark.interop
@pytest.mark.parametrize(("values", "bins", "max_bins"), CASES)
def test_same_proto_as_torch(tmp_path, values, bins, max_bins) -> None:
    pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter
    from torch.utils.tensorboard import summary as torch_summary

    torch_writer = TorchWriter(str(tmp_path))
    torch_writer.close()
    torch_bins = torch_writer.default_bins if isinstance(bins, str) and bins == "tensorflow" else bins
    theirs = torch_summary.histogram("h", values, torch_bins, max_bins=max_bins)
    ours = histogram_proto_pb("h", values, bins, max_bins)
    # Byte for byte but for the sum of squares, which torch takes from a BLAS dot product (its
    # last bits depend on BLAS's thread count); tbkit's is NumPy's own, equal to rounding.
    ours_sq, theirs_sq = ours.value[0].histo.sum_squares, theirs.value[0].histo.sum_squares
    assert ours_sq == pytest.approx(theirs_sq, rel=1e-12, abs=1e-300)
    ours.value[0].histo.sum_squares = theirs.value[0].histo.sum_squares = 0.0
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert default_edges().tolist() == list(torch_writer.default_bins)


def test_empty_and_non_finite_values() -> None:
    empty = histogram_proto_pb("h", np.zeros(0)).value[0].histo
    assert (empty.num, list(empty.bucket)) == (0.0, [])
    histo = histogram_proto_pb("h", np.array([1.0, np.nan, np.inf, 2.0]), bins=2).value[0].histo
    assert (histo.num, histo.min, histo.max, list(histo.bucket)) == (2.0, 1.0, 2.0, [0.0, 1.0, 1.0])


@pytest.mark.parametrize("bins", [0, True, [1.0], [2.0, 1.0], "nonsense"])
def test_bad_bins(bins) -> None:
    with pytest.raises(ValueError, match="bins"):
        histogram_proto_pb("h", np.arange(5.0), bins)
