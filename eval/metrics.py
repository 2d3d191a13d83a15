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


def lost_from(baseline: Sequence[str], ranked: Sequence[str], relevant: set[str], k: int = 5) -> bool:
    """Whether ``ranked`` lacks, in its first ``k``, a relevant item that ``baseline`` had there: what fusion traded
    away from one of its lists."""
    return bool((set(baseline[:k]) - set(ranked[:k])) & relevant)


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


CURRENCY = "£€¥₹"
"""Currency signs SQuAD's punctuation list lacks: "£2,150,000" and "2,150,000" are the same answer."""

EXTRA_TOKENS = 2
"""Words a short answer may add around an expected one and still be right: "the dredger Maud Ellen" for "Maud
Ellen", "up to £25" for "£25"; "340 litres of marine gas oil" names more than the answer and is not."""


def normalize_short(text: str) -> str:
    """``normalize_answer`` without currency signs either."""
    return normalize_answer("".join(c for c in text if c not in CURRENCY))


def short_answer_right(prediction: str, golds: Sequence[str], *, extra_tokens: int = EXTRA_TOKENS) -> bool:
    """Whether a short answer is right: its normalised tokens equal an expected answer's, or hold one as a
    contiguous run and add at most ``extra_tokens`` more. Stricter than F1 on purpose: a nearby name that
    shares a word ("Halvorsen Foundation" for "Ingrid Halvorsen") is wrong, as a reader would judge it,
    and so is a whole sentence that happens to contain the answer."""
    pred = normalize_short(prediction).split()
    if not pred:
        return False
    for gold in golds:
        ref = normalize_short(gold).split()
        if not ref or len(pred) - len(ref) > extra_tokens:
            continue
        if any(pred[i:i + len(ref)] == ref for i in range(len(pred) - len(ref) + 1)):
            return True
    return False


def short_answer_scores(rows: Iterable[tuple[bool, bool, str, Sequence[str]]]) -> dict[str, float | int | None]:
    """Precision and coverage of short answers over (should_refuse, refused, short, golds) per question.

    A short answer is *given* when the question was not refused and the short answer is not empty.
    Precision: right among all short answers given, where one given to a question that should be refused
    is wrong (it is a confident answer the documents do not support). Coverage: short answers given
    among the answerable questions (right or not: precision says how many were right). A question with
    no gold answer that need not be refused (a 2Wiki yes/no question) cannot be judged and is left out.
    None where there is nothing to divide by."""
    given = right = answerable = given_answerable = 0
    for should_refuse, refused, short, golds in rows:
        if not should_refuse and not golds:
            continue
        gave = not refused and bool(short.strip())
        if not should_refuse:
            answerable += 1
            given_answerable += int(gave)
        if gave:
            given += 1
            right += int(not should_refuse and short_answer_right(short, golds))
    return {"short_precision": right / given if given else None,
            "coverage": given_answerable / answerable if answerable else None,
            "short_given": given, "short_right": right, "answerable_given": given_answerable,
            "answerable_judged": answerable}


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
