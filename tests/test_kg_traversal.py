"""Traversal on small hand-made graphs: push PPR agrees with power iteration, k-hop and paths behave."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from kgrag.kg.traversal import khop_scores, personalized_pagerank, ppr_push, row_normalised, shortest_paths

# 0 - 1 - 2 - 3, and 1 - 4 (weight 3); 5 has no edges
_EDGES = [(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0), (1, 4, 3.0)]
N = 6


def _matrices() -> tuple[sp.csr_matrix, sp.csr_matrix]:
    rows = np.array([a for a, b, _ in _EDGES] + [b for a, b, _ in _EDGES])
    cols = np.array([b for a, b, _ in _EDGES] + [a for a, b, _ in _EDGES])
    w = np.array([x for *_, x in _EDGES] * 2)
    return sp.csr_matrix((w, (rows, cols)), shape=(N, N)), row_normalised(N, rows, cols, w)


def test_push_matches_power_iteration_and_stays_a_distribution() -> None:
    _, transition = _matrices()
    seeds = np.zeros(N)
    seeds[0] = 1.0
    exact = personalized_pagerank(transition.T.tocsr(), seeds, damping=0.5, tol=1e-12, max_iter=500)
    reached, scores = ppr_push(transition, np.array([0]), np.array([1.0]), damping=0.5, epsilon=1e-9,
                               max_rounds=500)
    pushed = np.zeros(N)
    pushed[reached] = scores
    assert np.allclose(pushed, exact, atol=1e-6)
    assert abs(exact.sum() - 1.0) < 1e-9
    assert pushed[4] > pushed[2] > pushed[3] > 0  # the heavier edge carries more
    assert pushed[5] == 0.0 and 5 not in reached  # unreachable from the seed


def test_dangling_seed_keeps_its_mass() -> None:
    _, transition = _matrices()
    reached, scores = ppr_push(transition, np.array([5]), np.array([1.0]), damping=0.5)
    assert reached.tolist() == [5] and np.allclose(scores, [1.0], atol=1e-4)


def test_khop_halves_per_hop_and_stops_at_the_limit() -> None:
    adjacency, _ = _matrices()
    seeds = np.zeros(N)
    seeds[0] = 1.0
    scores = khop_scores(adjacency, seeds, hops=2)
    assert scores.tolist() == [1.0, 0.5, 0.25, 0.0, 0.25, 0.0]


def test_shortest_paths_give_the_entity_chain() -> None:
    adjacency, _ = _matrices()
    paths = shortest_paths(adjacency, np.array([0]), {3, 4, 5})
    assert paths[3] == [0, 1, 2, 3] and paths[4] == [0, 1, 4] and 5 not in paths
