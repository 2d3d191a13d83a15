"""From linked nodes to ranked chunks: spread relevance over the graph, then score each chunk by the
relevance of its own document (home scoring) plus a small share of what it mentions, and explain each
chunk with the chain that reached it.

Home scoring is what makes a hop land on the right passage: when relevance reaches the document
"Ermengarde of Tours", it is that document's text that answers, not every chunk that happens to name
her. Mentions still count, at ``mention_share``, so a graph without document nodes ranks as before.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from kgrag.core.settings import Traversal
from kgrag.kg.linking import TITLE, LinkedEntity
from kgrag.kg.liveness import Liveness
from kgrag.kg.serving import LoadedGraph
from kgrag.kg.traversal import khop_scores, ppr_push, shortest_paths, spread_to_columns


@dataclass(frozen=True, slots=True)
class Scored:
    """Entity relevance for one question (a fresh object per query: nothing is written to the graph).

    Sparse: only the entities the query reached, so no per-query array is the size of the graph."""

    support: np.ndarray
    """The entities with relevance, sorted (explanations search only these)."""
    support_scores: np.ndarray
    """Each supported entity's relevance, aligned with ``support``."""
    chunk_columns: np.ndarray
    chunk_scores: np.ndarray

    def relevance(self, entities: np.ndarray) -> np.ndarray:
        """Each entity's relevance (0 for one the query did not reach)."""
        entities = np.asarray(entities, dtype=np.int64)
        if not self.support.size:
            return np.zeros(entities.size)
        pos = np.minimum(np.searchsorted(self.support, entities), self.support.size - 1)
        return np.where(self.support[pos] == entities, self.support_scores[pos], 0.0)


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


def seeds_of(linked: list[LinkedEntity]) -> tuple[np.ndarray, np.ndarray]:
    """The linked nodes with a positive score (sorted) and their share of the seed mass (summing to 1)."""
    best: dict[int, float] = {}
    for e in linked:
        if e.score > 0:
            best[e.index] = max(best.get(e.index, 0.0), e.score)
    ids = np.array(sorted(best), dtype=np.int64)
    values = np.array([best[i] for i in ids.tolist()], dtype=np.float64)
    if values.size:
        values /= values.sum()
    return ids, values


def score(graph: LoadedGraph, linked: list[LinkedEntity], *, traversal: Traversal, damping: float,
          hops: int, limit: int, mention_share: float, live: Liveness | None = None) -> Scored:
    """The ``limit`` best chunk columns (``graph.chunk_ids_at`` reads their ids) with their scores, best first.

    The traversal parameters and ``mention_share`` come from GraphSettings (the one home of their defaults).
    ``live`` (kg.liveness): what deleted documents took out since the build, which neither seeds, carries
    nor receives relevance."""
    if live is not None:
        linked = [e for e in linked if live.shows(e.index)]
    seed_ids, seed_values = seeds_of(linked)
    empty = np.zeros(0)
    if not seed_ids.size:
        return Scored(empty.astype(np.int64), empty, empty.astype(np.int64), empty)
    if traversal == "ppr":
        if live is None:
            reached, mass = ppr_push(graph.transition_matrix(), seed_ids, seed_values, damping=damping,
                                     degree=graph.push_degree())
        else:
            reached, mass = ppr_push(graph.transition_matrix(), seed_ids, seed_values, damping=damping,
                                     degree=live.degree, hidden=live.hidden, keep=live.keep)
    else:
        seeds = np.zeros(graph.node_count)  # k-hop is the simple alternative, dense by design
        seeds[seed_ids] = seed_values
        dense = khop_scores(graph.adjacency_matrix(), seeds, hops=hops, blocked=None if live is None else live.hidden)
        reached = np.flatnonzero(dense)
        mass = dense[reached]
    keep = mass > 0
    support, mass = reached[keep], mass[keep]
    columns, chunk_scores = _chunk_scores(graph, support, mass, mention_share)  # in the order reached: same sums
    if live is not None:
        chunk_scores[~live.live_columns[columns]] = 0.0
    order = np.argsort(support, kind="stable")
    nonzero = np.flatnonzero(chunk_scores > 0)
    if nonzero.size > limit:
        part = np.argpartition(-chunk_scores[nonzero], limit - 1)[:limit]
        nonzero = nonzero[part]
    best = nonzero[np.lexsort((graph.chunk_ids_at(columns[nonzero]), -chunk_scores[nonzero]))]
    return Scored(support[order], mass[order], columns[best], chunk_scores[best])


def _chunk_scores(graph: LoadedGraph, support: np.ndarray, mass: np.ndarray,
                  mention_share: float) -> tuple[np.ndarray, np.ndarray]:
    """(chunk column, score) for every chunk the supported entities reach: its home document's relevance
    plus ``mention_share`` of what it mentions."""
    home_cols, home = spread_to_columns(graph.home_matrix(), support, mass)
    mention_cols, mention = spread_to_columns(graph.mention_matrix(), support, mass)
    columns = np.union1d(home_cols, mention_cols)
    home_all, mention_all = np.zeros(columns.size), np.zeros(columns.size)
    home_all[np.searchsorted(columns, home_cols)] = home
    mention_all[np.searchsorted(columns, mention_cols)] = mention
    return columns, home_all + mention_share * mention_all


Similarity = Callable[[Sequence[str]], np.ndarray]
"""Sentences → their similarity to the question (the query's embedding model, cosine)."""


def weigh_hops(graph: LoadedGraph, linked: list[LinkedEntity], columns: Sequence[int], scores: Sequence[float],
               similarity: Similarity, *, weight: float, limit: int,
               stored: Container[str] = frozenset()) -> list[tuple[int, float]]:
    """Re-rank candidate chunks by the sentence that links their document to one the question names.

    PageRank mass says a document is *near* the named one, not that it is the neighbour the question asks
    about: "When did Lothair II's mother die?" reaches his wife, his daughter and his mother alike. The
    sentence behind each link ("He was the son of Lothair I and Ermengarde of Tours") says which. Each
    candidate scores its share of the best candidate's score plus ``weight`` times the best similarity of
    a sentence linking a named document to its own. Only the candidates' own links are weighed. A sentence
    in ``stored`` (the build embedded it) costs a dot product; of the others at most ``limit`` distinct ones
    are embedded, the best candidates' first, and a candidate beyond that keeps its traversal share, as one
    with no link does. Returns (column, score), best first.
    """
    if not columns:
        return []
    top = max(scores) or 1.0
    named = sorted({e.index for e in linked if e.how == TITLE})
    pairs: list[tuple[int, str]] = []
    chosen: dict[str, None] = {}  # insertion-ordered: the best candidates' sentences first
    to_embed = 0
    for col in columns:
        home = graph.home_of_chunk(col)
        if home < 0:
            continue
        for n in named:
            if n == home or not (text := graph.sentence_between(n, home)):
                continue
            if text not in chosen:
                if text not in stored:
                    if to_embed >= limit:
                        continue
                    to_embed += 1
                chosen[text] = None
            pairs.append((col, text))
    sentences = sorted(chosen)
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
        relevance = dict(zip(ents.tolist(), scored.relevance(ents).tolist(), strict=True))
        ranked = sorted(relevance, key=lambda e: (-relevance[e], e))[:max_entities]
        home = graph.home_of_chunk(col)
        if home >= 0 and scored.relevance(np.array([home]))[0] > 0:
            ranked = [home, *(e for e in ranked if e != home)][:max_entities]
        best[col] = ranked
    seeds = np.array(sorted({e.index for e in linked}), dtype=np.int64)
    targets = {ents[0] for ents in best.values() if ents}
    paths = (shortest_paths(graph.adjacency_matrix(), seeds, targets, within=np.concatenate((scored.support, seeds)))
             if seeds.size else {})
    out: dict[int, ChunkExplanation] = {}
    for col, ents in best.items():
        chain = paths.get(ents[0], []) if ents else []
        out[col] = ChunkExplanation(
            entities=tuple(graph.name(e) for e in ents),
            path=tuple(graph.name(e) for e in chain),
            relations=tuple(graph.edge_label(a, b) for a, b in pairwise(chain)),
            evidence=tuple(graph.sentence_between(a, b) for a, b in pairwise(chain)),
        )
    return out
