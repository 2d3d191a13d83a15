"""From linked nodes to ranked chunks: spread relevance over the graph, then score each chunk by the
relevance of its own document (home scoring) plus a small share of what it mentions, and explain each
chunk with the chain that reached it.

Home scoring is what makes a hop land on the right passage: when relevance reaches the document
"Ermengarde of Tours", it is that document's text that answers, not every chunk that happens to name
her. Mentions still count, at ``mention_share``, so a graph without document nodes ranks as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from kgrag.core.settings import Traversal
from kgrag.kg.linking import TITLE, LinkedEntity
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.traversal import khop_scores, ppr_push, shortest_paths, spread_to_columns


@dataclass(frozen=True, slots=True)
class Scored:
    """Entity relevance for one question (a fresh object per query: nothing is written to the graph)."""

    entity_scores: np.ndarray
    chunk_columns: np.ndarray
    chunk_scores: np.ndarray
    support: np.ndarray
    """The entities with relevance (what a query reached: explanations search only these, and nothing
    scans all of ``entity_scores`` for them)."""


@dataclass(frozen=True, slots=True)
class ChunkExplanation:
    entities: tuple[str, ...]
    """The chunk's entities that carried the most relevance, best first."""
    path: tuple[str, ...]
    """Chain from a linked node to the chunk's document (or, without one, its best entity)."""
    relations: tuple[str, ...]
    """The relation on each step of ``path``."""
    evidence: tuple[str, ...] = ()
    """Per step of ``path``: the sentence holding a document mention link ("" for entity relations)."""


def seed_vector(graph: LoadedGraph, linked: list[LinkedEntity]) -> tuple[np.ndarray, np.ndarray]:
    """The normalised seed distribution and its non-zero entries (so nothing scans all entities)."""
    seeds = np.zeros(graph.node_count, dtype=np.float64)
    for e in linked:
        seeds[e.index] = max(seeds[e.index], e.score)
    ids = np.array(sorted({e.index for e in linked if e.score > 0}), dtype=np.int64)
    total = seeds[ids].sum() if ids.size else 0.0
    if total > 0:
        seeds[ids] /= total
    return seeds, ids


def score(graph: LoadedGraph, linked: list[LinkedEntity], *, traversal: Traversal, damping: float,
          hops: int, limit: int, mention_share: float) -> Scored:
    """The ``limit`` best chunk columns (into ``graph.chunk_ids``) with their scores, best first.

    The traversal parameters and ``mention_share`` come from GraphSettings (the one home of their defaults)."""
    seeds, seed_ids = seed_vector(graph, linked)
    if not seed_ids.size:
        empty = np.zeros(0)
        return Scored(seeds, empty.astype(np.int64), empty, empty.astype(np.int64))
    if traversal == "ppr":
        entity_scores, reached = ppr_push(graph.transition, seeds, damping=damping, degree=graph.degree,
                                           seed_ids=seed_ids)
    else:
        entity_scores = khop_scores(graph.adjacency, seeds, hops=hops)
        reached = np.flatnonzero(entity_scores)
    support = reached[entity_scores[reached] > 0]
    mass = entity_scores[support]
    chunk_scores = (spread_to_columns(graph.home, support, mass)
                    + mention_share * spread_to_columns(graph.entity_chunks, support, mass))
    nonzero = np.flatnonzero(chunk_scores > 0)
    if nonzero.size > limit:
        part = np.argpartition(-chunk_scores[nonzero], limit - 1)[:limit]
        nonzero = nonzero[part]
    order = np.lexsort((graph.chunk_ids[nonzero], -chunk_scores[nonzero]))
    columns = nonzero[order]
    return Scored(entity_scores, columns, chunk_scores[columns], support)


Similarity = Callable[[Sequence[str]], np.ndarray]
"""Sentences → their similarity to the question (the query's embedding model, cosine)."""


def weigh_hops(graph: LoadedGraph, linked: list[LinkedEntity], columns: Sequence[int], scores: Sequence[float],
               similarity: Similarity, *, weight: float) -> list[tuple[int, float]]:
    """Re-rank candidate chunks by the sentence that links their document to one the question names.

    PageRank mass says a document is *near* the named one, not that it is the neighbour the question asks
    about: "When did Lothair II's mother die?" reaches his wife, his daughter and his mother alike. The
    sentence behind each link ("He was the son of Lothair I and Ermengarde of Tours") says which. Each
    candidate scores its share of the best candidate's score plus ``weight`` times the best similarity of
    a sentence linking a named document to its own; only the candidates' own links are embedded (two or
    three sentences a question), so the cost stays a few milliseconds. Returns (column, score), best first.
    """
    if not columns:
        return []
    top = max(scores) or 1.0
    named = sorted({e.index for e in linked if e.how == TITLE})
    pairs: list[tuple[int, str]] = []
    for col in columns:
        home = graph.home_of_chunk(col)
        if home >= 0:
            pairs += [(col, text) for n in named if n != home and (text := graph.sentence_between(n, home))]
    sentences = sorted({text for _, text in pairs})
    bonus: dict[int, float] = {}
    if sentences and weight > 0:
        sims = dict(zip(sentences, similarity(sentences).tolist(), strict=True))
        for col, text in pairs:
            bonus[col] = max(bonus.get(col, 0.0), sims[text])
    rescored = [(col, s / top + weight * max(bonus.get(col, 0.0), 0.0)) for col, s in zip(columns, scores, strict=True)]
    order = sorted(range(len(rescored)), key=lambda i: (-rescored[i][1], i))  # ties keep the traversal's order
    return [rescored[i] for i in order]


def explain(graph: LoadedGraph, linked: list[LinkedEntity], scored: Scored, columns: list[int],
            *, max_entities: int = 3) -> dict[int, ChunkExplanation]:
    """Per chunk column: its strongest nodes and the path from the question to the one that placed it.

    The path ends at the chunk's own document when relevance reached it (home scoring put it here),
    else at its strongest mentioned entity.
    """
    best: dict[int, list[int]] = {}
    for col in columns:
        ents = graph.entities_of_chunk(col)
        ranked = sorted(ents.tolist(), key=lambda e: (-scored.entity_scores[e], e))[:max_entities]
        home = graph.home_of_chunk(col)
        if home >= 0 and scored.entity_scores[home] > 0:
            ranked = [home, *(e for e in ranked if e != home)][:max_entities]
        best[col] = ranked
    seeds = np.array(sorted({e.index for e in linked}), dtype=np.int64)
    targets = {ents[0] for ents in best.values() if ents}
    paths = (shortest_paths(graph.adjacency, seeds, targets, within=np.concatenate((scored.support, seeds)))
             if seeds.size else {})
    out: dict[int, ChunkExplanation] = {}
    for col, ents in best.items():
        chain = paths.get(ents[0], []) if ents else []
        out[col] = ChunkExplanation(
            entities=tuple(graph.names[e] for e in ents),
            path=tuple(graph.names[e] for e in chain),
            relations=tuple(graph.edge_label(a, b) for a, b in pairwise(chain)),
            evidence=tuple(graph.sentence_between(a, b) for a, b in pairwise(chain)),
        )
    return out
