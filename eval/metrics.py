"""Retrieval and answer metrics, as plain functions of ranked unit ids and relevance sets.

Relevance is judged at the unit the dataset defines (a passage or a document): the runner maps
chunk hits back to their unit and de-duplicates before these functions see them.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence


def dedupe(units: Iterable[str]) -> list[str]:
    """Units in first-seen order: several chunks of one document count once, at the best rank."""
    seen: set[str] = set()
    out: list[str] = []
    for u in units:
        if u not in seen:
            seen.add(u)
            out.append(u)
    return out


def hit_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    return 1.0 if any(u in relevant for u in ranked[:k]) else 0.0


def recall_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & relevant) / len(relevant)


def mrr_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    for i, u in enumerate(ranked[:k], start=1):
        if u in relevant:
            return 1.0 / i
    return 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    """Binary-relevance nDCG (all qrels in the shared sets have score 1)."""
    if not relevant:
        return 0.0
    dcg = sum(1.0 / math.log2(i + 1) for i, u in enumerate(ranked[:k], start=1) if u in relevant)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(relevant), k) + 1))
    return dcg / ideal


def keyword_recall(text: str, keywords: Sequence[str]) -> float:
    if not keywords:
        return 0.0
    lowered = text.lower()
    return sum(1 for kw in keywords if kw.lower() in lowered) / len(keywords)


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces."""
    text = "".join(c for c in text.lower() if c not in string.punctuation)
    return " ".join(re.sub(r"\b(a|an|the)\b", " ", text).split())


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when the normalised short answer equals any gold answer (SQuAD / 2Wiki EM)."""
    pred = normalize_answer(prediction)
    return 1.0 if pred and any(pred == normalize_answer(g) for g in golds) else 0.0


def token_f1(prediction: str, golds: Sequence[str]) -> float:
    """The best token-overlap F1 of the short answer against any gold answer (SQuAD / 2Wiki F1)."""
    pred = normalize_answer(prediction).split()
    best = 0.0
    for gold in golds:
        ref = normalize_answer(gold).split()
        common = sum((Counter(pred) & Counter(ref)).values())
        if pred and ref and common:
            precision, recall = common / len(pred), common / len(ref)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default method), q in [0, 100]."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


RETRIEVAL_METRICS: dict[str, tuple[str, int]] = {
    "hit@1": ("hit", 1), "hit@3": ("hit", 3), "hit@5": ("hit", 5),
    "recall@2": ("recall", 2), "recall@5": ("recall", 5), "recall@10": ("recall", 10),
    "mrr@10": ("mrr", 10), "ndcg@10": ("ndcg", 10),
}

_FUNCS = {"hit": hit_at, "recall": recall_at, "mrr": mrr_at, "ndcg": ndcg_at}


def retrieval_scores(ranked: Sequence[str], relevant: set[str]) -> dict[str, float]:
    """Every retrieval metric for one question."""
    return {name: _FUNCS[kind](ranked, relevant, k) for name, (kind, k) in RETRIEVAL_METRICS.items()}
