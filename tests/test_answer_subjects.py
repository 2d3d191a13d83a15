"""Answers name an untitled document by the subject its text opens with.

A document stored without a title of its own (its file name stands in) used to lend that file name to every
sentence quoted from it: "examples:bmi.txt: Its best-known ship is the Kelpie". The offline answerer could no
longer say whose "its" is, nor follow a second hop through the document's name; on the examples golden set
loaded with no titles its exact-match score fell from 0.83 to 0.50 while retrieval stayed the same.
"""

from __future__ import annotations

from typing import Any

from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.ingest.loaders import load_text
from kgrag.kg.subjects import passage_subject, stand_in_title
from kgrag.retrieval.answer import ExtractiveAnswerer, complete
from kgrag.retrieval.answer.base import build_prompt
from kgrag.retrieval.answer.grounded import passages_from
from kgrag.retrieval.pipeline import build_pipeline

from tests.kg_fixtures import nlp_fixture  # noqa: F401  (the `nlp` fixture)
from tests.retrieval_corpus import ingest

QUESTION = "Which shipyard delivered the Kelpie?"


def _institute() -> str:
    """An untitled document long enough that the sentence about its ship lands in a later chunk."""
    surveys = " ".join(f"In {1990 + i} the institute surveyed fjord number {i} for plankton, salinity and "
                       "temperature." for i in range(30))
    return ("Bergen Marine Institute is an oceanographic research institute in Norway. " + surveys +
            " Its best-known ship is the Kelpie, delivered by Aalto Shipyards in 2017.")


def test_a_title_that_only_repeats_the_file_name_gives_way_to_the_opening_subject() -> None:
    assert stand_in_title("bmi", "wiki/bmi.txt") and stand_in_title("wiki/bmi.txt", "wiki/bmi.txt")
    assert stand_in_title("", "wiki/bmi.txt") and not stand_in_title("Bergen Marine Institute", "wiki/bmi.txt")
    opening = "Bergen Marine Institute is an oceanographic research institute."
    assert passage_subject("bmi", "wiki/bmi.txt", opening) == "Bergen Marine Institute"
    assert passage_subject("The Institute", "wiki/bmi.txt", opening) == "The Institute"  # a real title wins
    assert passage_subject("bmi", "wiki/bmi.txt", "It was a cold day.") == ""  # nothing names it: no label at all


def test_untitled_passages_are_named_and_quoted_by_their_documents_subject(
        runtime: Runtime, embedder: Embedder, nlp: Any) -> None:
    ingest(runtime, [
        load_text(_institute(), source="wiki/bmi.txt", title="bmi"),
        load_text("Aalto Shipyards is a Finnish shipbuilder in Turku. It builds research vessels and ferries.",
                  source="wiki/aalto.txt", title="Aalto Shipyards"),
    ])
    with build_pipeline(runtime, signals=("dense", "bm25")) as pipe:
        result = pipe.run(QUESTION, rerank=False, top_k=5)
    kelpie = next(h for h in result.hits if "Kelpie" in h.text)
    assert kelpie.title == "bmi" and kelpie.position is not None and kelpie.position > 0
    assert kelpie.subject == "Bergen Marine Institute"  # read from the document's first chunk, not this one
    assert {h.subject for h in result.hits if h.source == "wiki/aalto.txt"} == {"Aalto Shipyards"}

    passages = passages_from(result.hits, 5)
    answer = complete(ExtractiveAnswerer(embedder, nlp), QUESTION, passages)
    assert "Bergen Marine Institute: Its best-known ship is the Kelpie" in answer.text, answer.text
    assert "bmi:" not in answer.text
    n = next(p.number for p in passages if p.chunk_id == kelpie.chunk_id)
    assert f"[{n}] Bergen Marine Institute\n" in build_prompt(QUESTION, passages)  # what an LLM reads too
