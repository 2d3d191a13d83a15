"""Reciprocal rank fusion (Cormack et al. 2009) over any number of ranked lists.

RRF uses ranks only, so signals with incomparable scores (cosine similarity, BM25, PageRank
mass) combine without calibration: ``fused(d) = Σ_s w_s / (k + rank_s(d))``. A chunk that
several signals rank moderately beats one that a single signal ranks first, which is the point.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kgrag.core.types import Hit


@dataclass(frozen=True, slots=True)
class FusedHit:
    """One chunk after fusion, keeping what each signal said about it (for --explain and eval)."""

    chunk_id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    """Signal name → 1-based rank in that signal's list (absent: the signal did not return it)."""
    scores: dict[str, float] = field(default_factory=dict)
    """Signal name → that signal's own score."""
    explanations: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Signal name → that signal's per-hit explanation, where it gave one (the graph's entity chain)."""

    @property
    def best_rank(self) -> int:
        return min(self.ranks.values())


def reciprocal_rank_fusion(
    lists: Mapping[str, Sequence[Hit]], *, k: int = 60, weights: Mapping[str, float] | None = None
) -> list[FusedHit]:
    """Fused hits, best first. Ties go to the better best-rank, then the lower chunk id, so the
    order never depends on dict or thread ordering. A chunk listed twice by one signal counts once,
    at its best rank. A signal missing from ``weights`` has weight 1.0."""
    if k < 1:
        raise ValueError(f"RRF k must be at least 1 (got {k})")
    weights = dict(weights or {})
    if any(w < 0 for w in weights.values()):
        raise ValueError(f"RRF weights must not be negative (got {weights})")
    ranks: dict[int, dict[str, int]] = {}
    scores: dict[int, dict[str, float]] = {}
    explanations: dict[int, dict[str, dict[str, Any]]] = {}
    for signal, hits in lists.items():
        for hit in hits:
            per_signal = ranks.setdefault(hit.chunk_id, {})
            if signal not in per_signal or hit.rank < per_signal[signal]:
                per_signal[signal] = hit.rank
                scores.setdefault(hit.chunk_id, {})[signal] = hit.score
                if hit.explanation:
                    explanations.setdefault(hit.chunk_id, {})[signal] = hit.explanation
    fused = [
        # Summing the terms in sorted order makes equal rank patterns give bit-identical scores,
        # whichever signal holds which rank, so ties really are ties.
        FusedHit(cid, sum(sorted(weights.get(s, 1.0) / (k + r) for s, r in signal_ranks.items())),
                 signal_ranks, scores[cid], explanations.get(cid, {}))
        for cid, signal_ranks in ranks.items()
    ]
    fused.sort(key=lambda h: (-h.score, h.best_rank, h.chunk_id))
    return fused


def lead_with(fused: list[FusedHit], tiers: Sequence[Sequence[Hit]]) -> list[FusedHit]:
    """The fused list with a leading list's picks first: the hits of ``tiers[0]``, then those of ``tiers[1]``,
    and so on, then the rest, each part in its fused order.

    RRF's flat 1/(k + rank) lets two lists that agree on a near miss outvote one list that is sure: on
    2Wiki the graph's chain from a document the question names holds both answer passages, yet dense
    and BM25, agreeing on a namesake, push the second hop down. A list that reports it *leads* (the
    graph, when the question names a document precisely) therefore picks which chunks come first, and
    fusion still orders them: the others decide among the leader's picks, never whether they are shown.
    """
    order: dict[int, int] = {}
    for tier, hits in enumerate(tiers):
        for h in hits:
            order.setdefault(h.chunk_id, tier)
    if not order:
        return fused
    last = len(tiers)
    return sorted(fused, key=lambda h: order.get(h.chunk_id, last))  # stable: fused order within a tier


def agreed(lists: Mapping[str, Sequence[Hit]], leader: str, top: int) -> list[Hit]:
    """The hits every list but ``leader`` ranks within its first ``top``, when there are at least two such
    lists: what the others agree on, which a leader that is not sure shares its first tier with."""
    others = [hits[:top] for signal, hits in lists.items() if signal != leader]
    if top < 1 or len(others) < 2:
        return []
    common = set.intersection(*({h.chunk_id for h in hits} for hits in others))
    return [h for h in others[0] if h.chunk_id in common]


def keep_dense_evidence(fused: list[FusedHit], ranked: Mapping[str, Sequence[Hit]], tiers: Sequence[Sequence[Hit]],
                        *, first: int, agreed_top: int, top: int) -> list[FusedHit]:
    """The fused list with what dense is sure of inside its first ``top``: dense's first ``first`` hits, and the
    hits of its first ``agreed_top`` that BM25 also ranks within its first ``agreed_top``.

    A leading list (lead_with) picks the head, and RRF lets two lists outvote a third; on 2Wiki without titles
    either pushed out a gold passage that dense alone had in its top 5 on one question in sixteen. How far each
    kind of sureness reaches was tuned on questions 1-500: dense's first hit may take the place of the leader's
    later picks, never of its first tier (the two ends of the chain a named document starts); a hit dense and
    BM25 agree on takes only a place the leader did not claim (where titles name documents, the leader's later
    picks were the gold ones more often)."""
    lead_first = {h.chunk_id for h in tiers[0]} if tiers else set()
    lead_all = {h.chunk_id for tier in tiers for h in tier}
    dense = [h.chunk_id for h in ranked.get("dense", ())]
    bm25_top = {h.chunk_id for h in ranked.get("bm25", ())[:agreed_top]}
    firsts = dense[:first]
    fused = keep_sure(fused, firsts, lead_first, top)
    return keep_sure(fused, [c for c in dense[:agreed_top] if c in bm25_top], lead_all | set(firsts), top)


def keep_sure(fused: list[FusedHit], sure: Sequence[int], protected: Collection[int], top: int) -> list[FusedHit]:
    """The fused list with each chunk of ``sure`` inside its first ``top``: one that is missing takes the place
    of the lowest hit there that is neither sure nor ``protected``, and that hit moves to just below. Nothing
    else moves, so the rest keeps its fused order; with no such place left, the rest of ``sure`` stays out."""
    wanted = set(sure)
    index = {h.chunk_id: i for i, h in enumerate(fused)}
    head = fused[:top]
    for chunk_id in dict.fromkeys(sure):
        i = index.get(chunk_id)
        if i is None or i < top:
            continue
        spare = next((j for j in range(len(head) - 1, -1, -1)
                      if head[j].chunk_id not in wanted and head[j].chunk_id not in protected), None)
        if spare is None:
            break
        head.pop(spare)
        head.append(fused[i])
    kept = {h.chunk_id for h in head}
    return head + [h for h in fused if h.chunk_id not in kept]
