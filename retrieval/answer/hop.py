"""A second hop for a question that describes its subject instead of naming it.

"In which town is the company that supplied the coupling that failed in the Quay 4 spill based?" The first
retrieval finds the incident report ("the coupling … had been supplied by Brightwater Fuels"), but the town
is on Brightwater's own page, which shares few words with the question: neither dense nor BM25 ranks it,
and a generic title ("Supplier profile") gives the graph no title link to follow. The passages already name
the bridge, so a second retrieval asks the question with the bridge's name in place of the description
("In which town is Brightwater Fuels based?") and its new passages are added after the first ones. The
answer then reads the chain across both (retrieval/answer/statement.py), citing the bridge's sentence.

It runs only where it can help: the question describes its subject, the first passages name a bridge for
it, and no sentence among them states the answer. Self-ask and IRCoT do this with an LLM; here the parse
that reads the answer also reads the bridge, so it works offline and under any answer backend.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kgrag.core.settings import Settings
from kgrag.kg.subjects import generic_title_subject
from kgrag.retrieval.answer.base import Passage
from kgrag.retrieval.answer.extractive import parse_sentences
from kgrag.retrieval.answer.grounded import passages_from
from kgrag.retrieval.answer.statement import (
    Asked,
    Parsed,
    description_question,
    find_statement,
    read_question,
    with_bridge,
)
from kgrag.retrieval.answer.support import irregular_forms, question_needs
from kgrag.retrieval.results import PassageHit, PipelineResult


@dataclass(frozen=True, slots=True)
class Hop:
    question: str
    """The question with the bridge in place of the description: what the second retrieval asks."""
    bridge: str


def second_hop(question: str, texts: list[tuple[Passage, str]], nlp: Any,
               irregular: Mapping[str, tuple[str, ...]] | None = None) -> Hop | None:
    """The second hop to make, or None when there is none. ``texts``: (passage, text) pairs."""
    irregular = irregular_forms(nlp) if irregular is None else irregular
    asked = _described(question, nlp, irregular)
    if asked is None:
        return None
    sentences = [Parsed(p, span) for (p, _), parsed in zip(texts, parse_sentences(nlp, [t for _, t in texts]),
                                                           strict=True) for _, _, span in parsed]
    return None if _settled(asked, sentences) else _hop_in(asked, sentences, nlp, irregular)


def _described(question: str, nlp: Any, irregular: Mapping[str, tuple[str, ...]]) -> Asked | None:
    """The question as read, when it describes its subject: only such a question has a bridge to hop through."""
    asked = read_question(question, nlp, question_needs(question, nlp, irregular).entities, irregular)
    return None if asked is None or not asked.described or asked.description is None else asked


def _settled(asked: Asked, sentences: Sequence[Parsed]) -> bool:
    """``sentences`` answer the question, or show that it is not answered: no hop is worth a retrieval."""
    outcome = find_statement(asked, sentences, range(len(sentences)))
    return outcome.statement is not None or bool(outcome.refusal)


def _hop_in(asked: Asked, sentences: Sequence[Parsed], nlp: Any, irregular: Mapping[str, tuple[str, ...]]
            ) -> Hop | None:
    """The hop through the bridge ``sentences`` state for the description (or for a description inside it)."""
    # the description, asked by itself, answered by a sentence: that is the bridge. A name merely found beside
    # the description's words (the grounding's bridges) is too often the wrong one to spend a retrieval on.
    outer = asked
    for _ in range(_MAX_NESTING):
        inner_question = description_question(outer)
        inner = read_question(inner_question, nlp, question_needs(inner_question, nlp, irregular).entities,
                              irregular)
        if inner is None:
            return None
        stated = find_statement(inner, sentences, range(len(sentences))).statement
        if stated is not None:
            if not _a_name(stated.answer):
                return None  # "64000" for "the work paid for from budget line BL-12": no name to retrieve by
            return _hop_through(asked, outer, stated.answer)
        if not inner.described or inner.description is None:
            return None
        outer = inner  # "the budget line owned by the officer who reported …": first the officer
    return None


_MAX_NESTING = 2
"""How deep a description nests descriptions before the hop gives up: "the budget line owned by the officer who
reported incident HB-2025-007" is two deep (the officer, then the line)."""


def _a_name(answer: str) -> bool:
    """A bridge is a name ("Amara Nwosu", "Project Lantern"), not a number, a sum or a date."""
    return bool(re.search(r"[A-Za-z]", answer)) and not re.match(r"[\d$€£¥]", answer)


def _hop_through(asked: Asked, described: Asked, bridge: str) -> Hop | None:
    """The question with the innermost description answered: "How much is budgeted on the budget line owned by
    Amara Nwosu?" once the officer who reported the incident is known. The next hop's passages then hold the
    rest of the chain (the budget line's row names her)."""
    if described is asked:
        return Hop(with_bridge(asked, bridge), bridge)
    inner = described.description_text
    if not inner or asked.question.count(inner) != 1:
        return None
    return Hop(asked.question.replace(inner, bridge), bridge)


def follow_bridge(result: PipelineResult, retrieve: Callable[[str], PipelineResult], nlp: Any,
                  settings: Settings) -> PipelineResult:
    """``result`` with the second hop's new passages after the first ``answer.max_passages`` (unchanged when
    no hop applies). ``retrieve`` runs the pipeline as the first retrieval ran (signals, filters, rerank)."""
    limit, extra = settings.answer.max_passages, settings.answer.hop_passages
    if extra <= 0 or not result.hits:
        return result
    t0 = time.perf_counter()
    first = passages_from(result.hits, limit)
    irregular = irregular_forms(nlp)
    asked = _described(result.question, nlp, irregular)
    if asked is None:
        return result
    sentences = _parsed(first, nlp)
    if _settled(asked, sentences):
        return result
    hop = _hop_in(asked, sentences, nlp, irregular)
    via: tuple[PassageHit, ...] = ()
    if hop is None:
        found = retrieved_bridge(asked, retrieve, nlp, irregular)
        if found is None:
            return result
        hop, named_by = found
        via = () if named_by.chunk_id in {p.chunk_id for p in first} else (named_by,)
    hits = retrieve(hop.question).hits
    seen = {p.chunk_id for p in first} | {h.chunk_id for h in via}
    added = (*via, *bridge_passages(hits, seen, hop.bridge, extra,
                                    stating=answering_chunks(hop.question, hits[:_HOP_READ], nlp, irregular)))
    rest = tuple(h for h in result.hits[limit:] if h.chunk_id not in {a.chunk_id for a in added})
    return dataclasses.replace(result, hits=(*result.hits[:limit], *added, *rest), hop=hop.question,
                               hop_added=len(added),
                               timings={**result.timings, "hop": time.perf_counter() - t0})


def retrieved_bridge(asked: Asked, retrieve: Callable[[str], PipelineResult], nlp: Any,
                     irregular: Mapping[str, tuple[str, ...]]) -> tuple[Hop, PassageHit] | None:
    """The hop, and the passage that names its bridge, when the first passages do not name it: the description
    is asked by itself and retrieved for ("Which company made the ultrasound therapy unit at Tweed Clinic?"
    finds the equipment register's row, which the whole question, about an account manager, did not). ``asked``
    is a described question the first passages neither answer nor refuse; the description's own answer must be
    a name."""
    inner_question = description_question(asked)
    inner = read_question(inner_question, nlp, question_needs(inner_question, nlp, irregular).entities, irregular)
    if inner is None:
        return None
    hits = retrieve(inner_question).hits[:_HOP_READ]
    sentences = _parsed(passages_from(hits, len(hits)), nlp)
    stated = find_statement(inner, sentences, range(len(sentences))).statement
    if stated is None or not _a_name(stated.answer):
        return None
    chunk = sentences[stated.sentence].passage.chunk_id
    return Hop(with_bridge(asked, stated.answer), stated.answer), next(h for h in hits if h.chunk_id == chunk)


def _parsed(passages: Sequence[Passage], nlp: Any) -> list[Parsed]:
    return [Parsed(p, span) for p, parsed in zip(passages, parse_sentences(nlp, [p.text for p in passages]),
                                                 strict=True) for _, _, span in parsed]


def bridge_passages(hits: Sequence[PassageHit], seen: set[int], bridge: str, limit: int,
                    stating: frozenset[int] = frozenset()) -> tuple[PassageHit, ...]:
    """The second retrieval's passages to add: only those that name the bridge (the rest is noise the hop
    brought); first the one that states the hop question's answer (``stating``: chunk ids), then the bridge's
    own page. Minutes that list "Ruth Penhallow" among those present rank above her staff profile for "Where
    was Ruth Penhallow born?"; the profile is what the hop is for. But for "How much is budgeted on the line
    owned by Amara Nwosu?" her profile says nothing of budgets: the budget row that names her does."""
    naming = [h for h in hits if h.chunk_id not in seen and _names(f"{h.title}\n{h.text}", bridge)]
    own = [h for h in naming if _is_about(h, bridge)]
    first = [h for h in naming if h.chunk_id in stating]
    rest = [*own, *(h for h in naming if h not in own)]
    return tuple([*first, *(h for h in rest if h not in first)][:limit])


_HOP_READ = 10
"""How many of the second retrieval's passages are read for a sentence that answers the hop's question."""


def answering_chunks(question: str, hits: Sequence[PassageHit], nlp: Any,
                     irregular: Mapping[str, tuple[str, ...]] | None = None) -> frozenset[int]:
    """The chunk ids of ``hits`` with a sentence that states the answer to ``question`` (the hop's, which names
    the bridge): the passage a reader of the second retrieval would stop at."""
    irregular = irregular_forms(nlp) if irregular is None else irregular
    asked = read_question(question, nlp, question_needs(question, nlp, irregular).entities, irregular)
    if asked is None or not hits:
        return frozenset()
    sentences = _parsed(passages_from(hits, len(hits)), nlp)
    stated = find_statement(asked, sentences, range(len(sentences))).statement
    return frozenset() if stated is None else frozenset({sentences[stated.sentence].passage.chunk_id})


def _is_about(hit: PassageHit, name: str) -> bool:
    """The passage's document is about ``name``: its title, or where the title names a kind of record ("Staff
    profile", "Minutes, 9 April 2025"), the subject the record names (kg.subjects), is that name."""
    opening = hit.text if not hit.position else ""
    subject = generic_title_subject(hit.title, opening) or hit.subject or hit.title
    return _names(subject, name) and len(subject) <= len(name) + 12


def _names(text: str, name: str) -> bool:
    return re.search(r"(?<!\w)" + re.escape(name.casefold()) + r"(?!\w)", text.casefold()) is not None
