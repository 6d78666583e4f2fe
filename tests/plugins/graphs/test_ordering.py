"""Crossing reduction of the layered layout: the crossing count and the barycenter sweeps."""

from __future__ import annotations

import itertools

import numpy as np

from tbkit.plugins.graphs.ordering import Layered, count_crossings, initial_orders, order_layers


def test_count_crossings_matches_brute_force() -> None:
    rng = np.random.default_rng(1)
    for _ in range(20):
        upper = rng.integers(0, 12, 60)
        lower = rng.integers(0, 12, 60)
        brute = sum(
            1
            for i, j in itertools.combinations(range(60), 2)
            if (upper[i] - upper[j]) * (lower[i] - lower[j]) < 0
        )
        assert count_crossings(upper, lower) == brute


def test_sweeps_find_the_order_without_crossings_and_keep_every_node() -> None:
    # layer 0: nodes 0-3, layer 1: nodes 4-7; i links to 7 - i, a full reversal from the given order
    layer = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    layered = Layered(layer, [(i, 7 - i) for i in range(4)])
    start = [np.array([0, 1, 2, 3]), np.array([4, 5, 6, 7])]
    pos = np.zeros(8, dtype=np.int64)
    for order in start:
        pos[order] = np.arange(len(order))
    assert layered.crossings(pos) == 6
    orders, crossings = order_layers(layered, start)
    assert crossings == 0
    assert [sorted(o.tolist()) for o in orders] == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_initial_orders_start_connected_nodes_side_by_side() -> None:
    # two chains 0 -> 2 and 1 -> 3, discovered depth first: each layer lists its nodes by chain
    layered = Layered(np.array([0, 0, 1, 1]), [(0, 3), (1, 2)])
    assert [o.tolist() for o in initial_orders(layered)] == [[0, 1], [3, 2]]
