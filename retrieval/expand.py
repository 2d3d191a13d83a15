"""Optional query stages that ask the configured LLM for more queries: decomposition and HyDE.

* Decomposition: a multi-hop question ("who founded the company that acquired X?") rarely matches
  one passage; its sub-questions each can, so every sub-question runs through the retrievers.
* HyDE (Gao et al. 2022): a hypothetical passage answering the question sits closer to the real
  answer passage, in embedding space and in vocabulary, than the question does.

Each extra query's ranked lists join the reciprocal rank fusion beside the question's own, so these
stages can only add candidates, never hide the question's own hits. Both are off by default: they
cost an LLM round trip per question before retrieval starts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kgrag.core.errors import ConfigError
from kgrag.core.settings import Settings
from kgrag.retrieval.answer.base import TextModel

DECOMPOSE = "decompose"
HYDE = "hyde"
STAGES = (DECOMPOSE, HYDE)

DECOMPOSE_INSTRUCTION = (
    "You rewrite questions for a search engine. Split the user's question into the simpler sub-questions "
    "that must be answered, in order, to answer it; each must make sense on its own (repeat names instead "
    "of using pronouns). Reply with one sub-question per line and nothing else. If the question is already "
    "simple, reply with it unchanged."
)
HYDE_INSTRUCTION = (
    "You write a short passage, two to four sentences, that answers the user's question in the style of "
    "an encyclopedia or a company document. Write it as if you were certain; do not mention the question. "
    "Reply with the passage only."
)

_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)]|Q\d*[:.)])\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ExtraQuery:
    """One more query to run through the retrievers: ``label`` names its lists ("dense@sub1", "bm25@hyde")."""

    stage: str
    label: str
    text: str


def sub_questions(llm: TextModel, question: str, limit: int) -> list[str]:
    """The LLM's sub-questions, de-duplicated, without the question itself, at most ``limit``."""
    reply = llm.generate(DECOMPOSE_INSTRUCTION, f"Question: {question.strip()}")
    seen = {question.strip().casefold()}
    out: list[str] = []
    for line in reply.splitlines():
        text = _LIST_MARKER.sub("", line).strip().strip('"').strip()
        if len(text) < 3 or text.casefold() in seen:
            continue
        seen.add(text.casefold())
        out.append(text)
        if len(out) == limit:
            break
    return out


def hypothetical_passage(llm: TextModel, question: str) -> str:
    return llm.generate(HYDE_INSTRUCTION, f"Question: {question.strip()}").strip()


def stage_queries(stage: str, llm: TextModel, question: str, settings: Settings) -> list[ExtraQuery]:
    if stage == DECOMPOSE:
        subs = sub_questions(llm, question, settings.retrieval.max_subquestions)
        return [ExtraQuery(DECOMPOSE, f"sub{i}", q) for i, q in enumerate(subs, start=1)]
    passage = hypothetical_passage(llm, question)
    return [ExtraQuery(HYDE, HYDE, passage)] if passage else []


def enabled_stages(settings: Settings) -> tuple[str, ...]:
    r = settings.retrieval
    return tuple(s for s, on in ((DECOMPOSE, r.decompose), (HYDE, r.hyde)) if on)


def require_llm(settings: Settings, environ: Mapping[str, str] | None = None) -> TextModel | None:
    """The LLM the enabled stages use; None when none is enabled; refused when one is but no LLM is set up."""
    stages = enabled_stages(settings)
    if not stages:
        return None
    from kgrag.retrieval.answer.factory import make_text_model

    llm = make_text_model(settings.answer, environ=environ)
    if llm is None:
        names = " and ".join(f"retrieval.{s}" for s in stages)
        off = " ".join(f"KGRAG_RETRIEVAL__{s.upper()}=false" for s in stages)
        raise ConfigError(
            f"{names} {'is' if len(stages) == 1 else 'are'} on, but no LLM is configured to write the queries",
            fix="set GEMINI_API_KEY, or KGRAG_ANSWER__OPENAI_MODEL and KGRAG_ANSWER__OPENAI_BASE_URL for an "
            f"OpenAI-compatible server (and leave KGRAG_ANSWER__BACKEND at auto); or turn it off: {off}",
        )
    return llm
