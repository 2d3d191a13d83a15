"""The confidence gate: decide whether the evidence is strong enough to answer from.

Which signal can tell an in-corpus question from an out-of-corpus one?

* The cross-encoder's score is a real relevance judgement, so when rerank ran it decides alone
  (``min_rerank_score``, in the model's own units: logits for the ms-marco models, where 0 is
  p = 0.5). Not calibrated here: no reranker weights are available offline.
* Fused RRF scores depend only on ranks: every question, answerable or not, has a rank-1 hit, so
  ``min_fused_score`` can only say "the signals agree", never "the top hit is relevant". It is
  normalised (1.0 = rank 1 in every signal that ran) so one threshold means the same with one
  signal or three, and it is off by default.
* The dense retriever's cosine similarity does carry relevance and needs no extra model, so when
  rerank did not run (no weights offline, or switched off) the best dense similarity among the
  returned hits is gated (``min_dense_similarity``).

Calibration (all-MiniLM-L6-v2, chunks of 200 tokens, best cosine per question). In-corpus:
2WikiMultihopQA questions over 1,456 of its passages (gold included), median 0.643, 5th
percentile 0.491; SciFact claims over 600 abstracts (gold included), median 0.619, p5 0.406; 17
hand-written questions over examples/, min 0.523. Out-of-corpus: the other dataset's questions
and 40 general-knowledge questions against each corpus, medians 0.075-0.327, p95 0.175-0.484.
At 0.40, 98.3% of in-corpus questions pass (SciFact 95%, 2Wiki and examples 100%) and 95.9% of
out-of-corpus ones are refused (worst: general knowledge against the Wikipedia passages, 77.5%;
examples/ 100%). Fused scores on examples/ (dense+bm25): in-corpus 0.976-1.0, out-of-corpus
0.5-1.0 (median 0.969), so no fused threshold separates them.

Without rerank, both checks must pass. A question with no hits at all is always weak.

**A question anchored in the passages** gets a lower dense floor (``min_dense_similarity_named``, 0.25): one
that writes a name (an entity, an identifier) which the passages it would be answered from all mention, with
its key terms and a value of the asked kind beside them (the support check, retrieval/answer/support.py).
Paraphrased questions about internal documents sit below 0.40 against their own gold passage ("Where was the
person who reported incident HB-2024-019 born?" 0.307), while a general-knowledge question against such
documents names something they never mention ("no passage mentions Volkswagen") and is refused by the names
alone. bench/gate_calibration.py (bench/GATE_CALIBRATION.json), on the tune questions and 40 general-knowledge
ones: the harbour agency's tune questions pass 44 of 50 at 0.40 and 49 with the named floor; against its
documents and examples/', 1 of 80 general-knowledge questions passes either way (one that names nothing, at
0.407). Against Wikipedia passages a general-knowledge question's names are often mentioned (23 of 40 pass,
against 20 at 0.40); the statement reader (retrieval/answer/statement.py) then gives a short answer only
where a sentence states it, which is the corpus answering.

A question written mostly outside the Latin script (Chinese, Japanese, Russian…) is a different
case: the default embedding and rerank models are English-only, so their scores for it are noise
(a Chinese question over the very passage that answers it scored cosine 0.27 and was refused).
By default (``non_latin_gate="lexical"``) such a question is gated on lexical coverage instead:
the share of its BM25 terms (for CJK, characters and character pairs) found in the best passage.
A question about the passage repeats its names and phrases; an unrelated one shares at most a few
single characters. Not calibrated on a dataset (there is no non-English eval set here);
``non_latin_gate="models"`` restores the model thresholds for a multilingual setup.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from kgrag.core.settings import AnswerSettings

Verdict = Literal["pass", "refuse", "warn"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """The numbers the gate looks at; None means that signal did not run (or returned nothing)."""

    hit_count: int
    best_rerank: float | None = None
    best_fused: float | None = None
    best_dense: float | None = None
    non_latin: bool = False
    """The question is written mostly outside the Latin script."""
    lexical_coverage: float | None = None
    """Best share of the question's terms one passage contains (0..1)."""
    anchored: bool = False
    """The question writes a name, and the passages an answer reads mention every name with what the support
    check asks beside it: the dense floor is then ``min_dense_similarity_named``."""


@dataclass(frozen=True, slots=True)
class GateCheck:
    name: str
    value: float | None
    threshold: float
    passed: bool


@dataclass(frozen=True, slots=True)
class GateDecision:
    verdict: Verdict
    reason: str
    checks: tuple[GateCheck, ...] = ()

    @property
    def weak(self) -> bool:
        return self.verdict != "pass"


def _check(name: str, value: float | None, threshold: float) -> GateCheck:
    return GateCheck(name, value, threshold, value is not None and value >= threshold)


def assess(evidence: Evidence, settings: AnswerSettings) -> GateDecision:
    if evidence.hit_count == 0:
        return _weak(settings, "No passage matched the question.", ())
    if evidence.non_latin and settings.non_latin_gate == "lexical":
        checks: tuple[GateCheck, ...] = (
            _check("lexical_coverage", evidence.lexical_coverage, settings.min_lexical_coverage),)
    elif evidence.best_rerank is not None:
        checks = (_check("rerank_score", evidence.best_rerank, settings.min_rerank_score),)
    else:
        fused = _check("fused_score", evidence.best_fused, settings.min_fused_score)
        checks = (fused,)
        if evidence.best_dense is not None:
            floor = settings.min_dense_similarity_named if evidence.anchored else settings.min_dense_similarity
            checks += (_check("dense_similarity", evidence.best_dense, floor),)
    failed = [c for c in checks if not c.passed]
    if not failed:
        return GateDecision("pass", "", checks)
    reason = "The evidence is too weak: " + "; ".join(
        f"best {c.name.replace('_', ' ')} {_fmt(c.value)} is below {c.threshold:g}" for c in failed
    ) + "."
    return _weak(settings, reason, checks)


def _weak(settings: AnswerSettings, reason: str, checks: tuple[GateCheck, ...]) -> GateDecision:
    return GateDecision("refuse" if settings.on_weak_evidence == "refuse" else "warn", reason, checks)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def best(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return max(present) if present else None


def is_non_latin(text: str) -> bool:
    """More than half of the letters are outside the Latin script (digits and punctuation do not count)."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    latin = sum(1 for c in letters if c.isascii() or unicodedata.name(c, "").startswith("LATIN"))
    return latin * 2 < len(letters)
