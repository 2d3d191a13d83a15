"""From a pipeline result to a cited answer: gate the evidence, number the passages, answer.

The API and the CLI both go through here, so the gate is applied the same way everywhere and a
refusal never depends on which front end asked.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from kgrag.core.settings import Settings
from kgrag.retrieval.answer.base import Answer, Answerer, AnswerEvent, Passage, refusal, strip_unresolved_stream
from kgrag.retrieval.answer.support import check_support
from kgrag.retrieval.bm25 import index_text, tokenize
from kgrag.retrieval.gate import Evidence, GateCheck, GateDecision, assess, best, is_non_latin
from kgrag.retrieval.results import RERANK, PassageHit, PipelineResult


def evidence_from(result: PipelineResult, settings: Settings) -> Evidence:
    """The gate's inputs. The fused score is normalised by the most a chunk could score (rank 1 in
    every signal that ran), so the threshold means the same with one signal or three."""
    ran = result.fused_lists or tuple(
        s for s in result.signals if result.statuses.get(s) is not None and result.statuses[s].state == "ran")
    rrf_k = settings.retrieval.rrf_k
    ceiling = sum(settings.retrieval.weights.get(s.split("@", 1)[0], 1.0) / (rrf_k + 1) for s in ran)
    best_fused = best(h.fused_score for h in result.hits)
    reranked = result.statuses.get(RERANK) is not None and result.statuses[RERANK].state == "ran"
    non_latin = is_non_latin(result.question)
    return Evidence(
        hit_count=len(result.hits),
        non_latin=non_latin,
        lexical_coverage=lexical_coverage(result.question, result.hits) if non_latin else None,
        best_rerank=best(h.rerank_score for h in result.hits) if reranked else None,
        best_fused=(best_fused / ceiling) if best_fused is not None and ceiling > 0 else None,
        best_dense=best(h.scores.get("dense") for h in result.hits),
    )


def lexical_coverage(question: str, hits: Sequence[PassageHit]) -> float | None:
    """The largest share of the question's BM25 terms that one hit (title and text) contains."""
    terms = set(tokenize(question))
    if not terms or not hits:
        return None
    return max(len(terms & set(tokenize(index_text(h.title, h.text)))) / len(terms) for h in hits)


def gate(result: PipelineResult, settings: Settings, nlp: Any = None) -> GateDecision:
    """The confidence gate, then (given the spaCy pipeline ``nlp``) the support check on the passages an
    answerer would see: scores say the passages are near the question, the support check whether they
    hold its names, its key terms and the kind of answer it asks for (retrieval/answer/support.py)."""
    evidence = evidence_from(result, settings)
    if nlp is None or not settings.answer.check_support or evidence.non_latin or not evidence.hit_count:
        return assess(evidence, settings.answer)
    support = check_support(result.question, answer_passages(result, settings), nlp, in_corpus=graph_names(result))
    decision = assess(dataclasses.replace(evidence, anchored=support.ok and bool(support.needs.entities)),
                      settings.answer)
    if decision.verdict != "pass":
        return decision
    check = GateCheck("support", 1.0 if support.ok else 0.0, 1.0, support.ok)
    if support.ok:
        return dataclasses.replace(decision, checks=(*decision.checks, check))
    verdict = "refuse" if settings.answer.on_weak_evidence == "refuse" else "warn"
    return GateDecision(verdict, support.reason, (*decision.checks, check))


_EXACT_LINKS = frozenset({"title", "ner", "exact"})


def graph_names(result: PipelineResult) -> frozenset[str]:
    """The question's names the graph linked whole, as written (case aside): the corpus holds them, wherever the
    passages read for the answer do not ("Brackenridge Foods" is seldom named in its own staff profiles). Any
    exact link counts, however many documents name it (a link's score falls with that number), but not a fuzzy
    or alias one: "South Breakwater Renewal" is not in a corpus that holds the North one."""
    linked = (result.explanations.get("graph") or {}).get("linked_entities") or ()
    return frozenset(str(e["name"]).casefold() for e in linked if isinstance(e, dict) and e.get("name")
                     and str(e.get("matched", "")).casefold() == str(e["name"]).casefold()
                     and e.get("how") in _EXACT_LINKS)



def answer_passages(result: PipelineResult, settings: Settings) -> tuple[Passage, ...]:
    """The passages an answer reads: the best ``answer.max_passages``, and those a second hop added."""
    return passages_from(result.hits, settings.answer.max_passages + result.hop_added)


def passages_from(hits: Sequence[PassageHit], limit: int) -> tuple[Passage, ...]:
    """The best ``limit`` hits, numbered 1..n in rank order (the numbers the answer cites)."""
    return tuple(
        Passage(i, h.chunk_id, h.document_id, h.text, h.source, h.title, h.page, h.position,
                entities=h.graph_entities, subject=h.subject)
        for i, h in enumerate(hits[:limit], start=1)
    )


def answer_stream(
    result: PipelineResult, decision: GateDecision, answerer: Answerer, settings: Settings
) -> Iterator[AnswerEvent]:
    """Text deltas, then the final Answer; a refusal when the gate says so (no model call at all).

    An answer that arrives without deltas (a refusal) is sent as one delta first, so a client
    that only renders the deltas still shows it."""
    if decision.verdict == "refuse":
        events: Iterator[AnswerEvent] = iter((refusal(decision.reason),))
    else:
        passages = answer_passages(result, settings)
        events = strip_unresolved_stream(answerer.stream(result.question, passages), passages)
    streamed = False
    for event in events:
        if isinstance(event, Answer):
            if not streamed:
                yield event.text
            if decision.verdict == "warn":
                event = dataclasses.replace(event, warning=decision.reason)
        else:
            streamed = True
        yield event


def grounded_answer(result: PipelineResult, decision: GateDecision, answerer: Answerer, settings: Settings) -> Answer:
    """The same as ``answer_stream`` without the deltas (one model round trip)."""
    if decision.verdict == "refuse":
        return refusal(decision.reason)
    answer = answerer.answer(result.question, answer_passages(result, settings))
    return dataclasses.replace(answer, warning=decision.reason) if decision.verdict == "warn" else answer
