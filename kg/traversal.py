"""Spreading relevance over the entity graph: personalized PageRank (HippoRAG-style) or k-hop.

Everything here works on precomputed scipy sparse matrices, a handful of sparse mat-vecs per
query, so the graph stage stays in milliseconds where networkx.pagerank over the whole graph
would take seconds.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

PPR_TOLERANCE = 1e-6
PPR_MAX_ITER = 50


def row_normalised(n: int, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray) -> sp.csr_matrix:
    """Transition matrix: row i spreads i's mass over its neighbours in proportion to edge weight."""
    m = sp.csr_matrix((weights, (rows, cols)), shape=(n, n), dtype=np.float64)
    out = np.asarray(m.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros_like(out), where=out > 0)
    return sp.csr_matrix(sp.diags(inv) @ m)


def personalized_pagerank(transition_t: sp.csr_matrix, seeds: np.ndarray, *, damping: float,
                          tol: float = PPR_TOLERANCE, max_iter: int = PPR_MAX_ITER) -> np.ndarray:
    """Power iteration p ← (1-d)·s + d·(Pᵀp + dangling mass back to s).

    ``transition_t`` is the transposed row-normalised matrix (so each step is one CSR mat-vec);
    ``seeds`` sums to 1. Mass that reaches an entity with no edges returns to the seeds, which
    keeps the vector a distribution without a global teleport to unrelated entities.
    """
    p = seeds.copy()
    for _ in range(max_iter):
        spread = transition_t @ p
        lost = p.sum() - spread.sum()
        nxt = (1.0 - damping) * seeds + damping * (spread + lost * seeds)
        if np.abs(nxt - p).sum() < tol:
            return nxt
        p = nxt
    return p


PUSH_EPSILON = 1e-5
"""Residual below which an entity's mass is not pushed further: bounds the work, not the ranking."""


def ppr_push(transition: sp.csr_matrix, seed_ids: np.ndarray, seed_values: np.ndarray, *, damping: float,
             degree: np.ndarray | None = None, epsilon: float = PUSH_EPSILON,
             max_rounds: int = PPR_MAX_ITER, hidden: np.ndarray | None = None,
             keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Personalized PageRank by forward push (Andersen, Chung & Lang 2006), a frontier at a time.

    An entity pushes its residual on only while it holds more than ``epsilon`` per edge, and only
    entities the mass has reached are ever scanned, so a query costs the seeds' neighbourhood, not
    the graph (power iteration pays for every edge every round). ``transition`` is the row-normalised
    matrix; ``degree`` its per-row edge count, at least 1 (precomputed by the loaded graph).
    Mass pushed from an entity with no edges returns to the seeds.

    The seeds come as distinct ids and their masses (summing to 1), and the result is sparse too: the
    entities reached, in the order they were reached, and each one's score. Nothing here is the size of
    the graph: at a million chunks (two million nodes) each dense vector cost a query 3-4 ms to allocate
    and zero, and the traversal made five of them.

    ``hidden`` (per node, kg.liveness) takes nodes out as if they had never been built: no mass enters
    them, and each row spreads over the neighbours left, divided by ``keep`` (its transition share to
    them), as the row of a graph built without them would; a row with none left is dangling. Pass the
    degree of the nodes left, too. The seeds must not be hidden.
    """
    indptr, indices, data = transition.indptr, transition.indices, transition.data
    if degree is None:
        degree = np.maximum(np.diff(indptr), 1)
    touched = np.asarray(seed_ids, dtype=np.int64)
    seed_values = np.asarray(seed_values, dtype=np.float64)
    seeds_local = np.arange(touched.size)  # the seeds are the first entities reached
    p = np.zeros(touched.size, dtype=np.float64)
    r = seed_values.copy()
    order = np.argsort(touched, kind="stable")
    for _ in range(max_rounds):
        active = np.flatnonzero(r > epsilon * degree[touched])
        if active.size == 0:
            break
        mass = r[active]
        r[active] = 0.0
        p[active] += (1.0 - damping) * mass
        rows = touched[active]
        owners, edge = _edge_slots(indptr, rows)
        if hidden is not None and keep is not None:
            shown = ~hidden[indices[edge]]
            owners, edge = owners[shown], edge[shown]
            weights = data[edge] / keep[rows][owners]
        else:
            weights = data[edge]
        if edge.size:
            targets = indices[edge]
            local, absent = _local_ids(touched, order, targets)
            if absent.any():
                fresh = np.unique(targets[absent])  # appended in id order, so each one's position is known
                local[absent] = touched.size + np.searchsorted(fresh, targets[absent])
                touched = np.concatenate((touched, fresh))
                p = np.concatenate((p, np.zeros(fresh.size)))
                r = np.concatenate((r, np.zeros(fresh.size)))
                order = np.argsort(touched, kind="stable")
            np.add.at(r, local, weights * (damping * mass)[owners])
        ends = indptr[rows + 1] == indptr[rows] if keep is None else keep[rows] <= 0.0
        dangling = float(mass[ends].sum())
        if dangling:
            r[seeds_local] += damping * dangling * seed_values
    return touched, p


def _local_ids(touched: np.ndarray, order: np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each id's position in ``touched`` (-1 where absent), and the mask of the absent ones."""
    sorted_touched = touched[order]
    pos = np.minimum(np.searchsorted(sorted_touched, ids), sorted_touched.size - 1)
    found = sorted_touched[pos] == ids
    return np.where(found, order[pos], -1), ~found


def _edge_slots(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the given CSR rows: each edge's position in ``rows`` and its index into indices/data."""
    starts = indptr[rows]
    counts = indptr[rows + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    owners = np.repeat(np.arange(rows.size), counts)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return owners, np.arange(total) + offsets


def spread_to_columns(matrix: sp.csr_matrix, rows: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``matrix.T @ v`` for a ``v`` that is zero outside ``rows``, as (columns, sums): only the columns
    those rows reach, so the cost follows the rows' entries and not the matrix's width."""
    owners, edge = _edge_slots(matrix.indptr, rows)
    columns, slot = np.unique(matrix.indices[edge], return_inverse=True)
    return columns, np.bincount(slot, weights=matrix.data[edge] * values[owners], minlength=columns.size)


def global_pagerank(n: int, rows: np.ndarray, cols: np.ndarray, weights: np.ndarray,
                    *, damping: float = 0.85) -> np.ndarray:
    """Plain PageRank (uniform teleport): an entity's importance in the whole corpus."""
    uniform = np.full(n, 1.0 / n)
    if rows.size == 0:
        return uniform
    pt = row_normalised(n, rows, cols, weights).T.tocsr()
    return personalized_pagerank(pt, uniform, damping=damping, tol=1e-10, max_iter=200)


def khop_scores(adjacency: sp.csr_matrix, seeds: np.ndarray, *, hops: int,
                blocked: np.ndarray | None = None) -> np.ndarray:
    """Each entity within ``hops`` of a seed gets its strongest seed's weight, halved per hop; a ``blocked``
    node (kg.liveness) is never reached."""
    scores = seeds.copy()
    reached = seeds > 0
    level = seeds.copy()
    for _ in range(hops):
        owners, nbrs = _expand(adjacency, np.flatnonzero(level))
        nxt = np.zeros_like(level)
        np.maximum.at(nxt, nbrs, level[owners] * 0.5)
        nxt[reached] = 0.0
        if blocked is not None:
            nxt[blocked] = 0.0
        if not nxt.any():
            break
        scores += nxt
        reached |= nxt > 0
        level = nxt
    return scores


def _expand(adjacency: sp.csr_matrix, frontier: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(owner, neighbour) for every edge leaving the frontier, without a Python loop over edges."""
    starts, ends = adjacency.indptr[frontier], adjacency.indptr[frontier + 1]
    counts = ends - starts
    owners = np.repeat(frontier, counts)
    if owners.size == 0:
        return owners, np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return owners, adjacency.indices[np.arange(owners.size) + offsets]


def shortest_paths(adjacency: sp.csr_matrix, seeds: np.ndarray, targets: set[int], *,
                   max_depth: int = 4, within: np.ndarray | None = None) -> dict[int, list[int]]:
    """The entity chain from the nearest seed to each target (breadth-first, stopping once all are found).

    Explains a hit: "question → Harlow Biotech → Miriam Okafor → this chunk". ``within`` (the nodes
    relevance reached) keeps the search to them: the chain then shows the way relevance took, and
    a search never floods out through hubs (at a million chunks four unbounded hops from a hub scanned
    most of the graph's edges, 60 ms a query).
    """
    parent: dict[int, int] = {int(s): -1 for s in np.unique(seeds).tolist()}
    frontier = np.array(sorted(parent), dtype=np.int64)
    remaining = set(targets) - set(parent)
    depth = 0
    while remaining and frontier.size and depth < max_depth:
        owners, nbrs = _expand(adjacency, frontier)
        if within is not None:
            keep = np.isin(nbrs, within, kind="sort")  # "table" would allocate by the ids' range
            owners, nbrs = owners[keep], nbrs[keep]
        nbrs, first = np.unique(nbrs, return_index=True)
        fresh = [(n, o) for n, o in zip(nbrs.tolist(), owners[first].tolist(), strict=True) if n not in parent]
        parent.update(fresh)
        remaining -= {n for n, _ in fresh}
        frontier = np.array([n for n, _ in fresh], dtype=np.int64)
        depth += 1
    paths: dict[int, list[int]] = {}
    for t in targets:
        if t not in parent:
            continue
        chain = [t]
        while parent[chain[-1]] >= 0:
            chain.append(parent[chain[-1]])
        paths[t] = chain[::-1]
    return paths
