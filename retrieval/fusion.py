"""Reciprocal rank fusion (Cormack et al. 2009) over any number of ranked lists.

RRF uses ranks only, so signals with incomparable scores (cosine similarity, BM25, PageRank
mass) combine without calibration: ``fused(d) = Σ_s w_s / (k + rank_s(d))``. A chunk that
several signals rank moderately beats one that a single signal ranks first, which is the point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
