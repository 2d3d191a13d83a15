"""The two extraction modes on real spaCy: what each finds, and that switching between them rebuilds.

``entities`` (the default) runs NER and the sentence splitter only; ``syntax`` adds the parser for
verb-labelled relations. Both must keep co-occurrence inside a sentence, which in ``entities`` mode
depends on the splitter being switched on without the parser.
"""

from __future__ import annotations

from typing import Any

from kgrag.core.runtime import Runtime
from kgrag.core.settings import ExtractionMode, GraphSettings
from kgrag.kg.build import build_graph
from kgrag.kg.canonical import entity_key
from kgrag.kg.extract import CO_OCCURS, ChunkText, Extraction, Extractor
from kgrag.kg.graphfile import read_networkx
from kgrag.kg.store import GraphStore

from tests.kg_fixtures import build, ingest_folder, nlp_fixture  # noqa: F401  (the `nlp` fixture)

TEXT = (
    "Miriam Okafor founded Harlow Corporation in Boston. "
    "Harlow Corporation was acquired by Corvel Industries. "
    "Tomas Lindqvist grew up in Norway."
)


def _extract(nlp: Any, mode: ExtractionMode) -> Extraction:
    extractor = Extractor.from_settings(nlp, GraphSettings(extraction=mode, batch_size=8))
    return extractor.extract([ChunkText(id=1, document_id=1, text=TEXT, title="")])


def _pairs(extraction: Extraction, relation: str | None = None) -> set[frozenset[str]]:
    return {frozenset((r.source, r.target)) for r in extraction.relations if relation in (None, r.relation)}


def _labelled(extraction: Extraction) -> set[tuple[str, str, str]]:
    return {(r.source, r.target, r.relation) for r in extraction.relations if r.relation != CO_OCCURS}


def test_entities_mode_relates_entities_of_one_sentence_only(nlp: Any) -> None:
    found = _extract(nlp, "entities")
    names = ("Miriam Okafor", "Harlow Corporation", "Corvel Industries", "Tomas Lindqvist")
    okafor, harlow, corvel, lindqvist = (entity_key(n) for n in names)
    keys = {m.key for m in found.mentions}
    assert {okafor, harlow, corvel, lindqvist} <= keys
    pairs = _pairs(found, CO_OCCURS)
    assert frozenset((okafor, harlow)) in pairs and frozenset((harlow, corvel)) in pairs
    # Different sentences: without a working sentence splitter every pair in the chunk would co-occur.
    assert frozenset((okafor, corvel)) not in pairs
    assert frozenset((okafor, lindqvist)) not in pairs
    assert _labelled(found) == set()


def test_syntax_mode_adds_verb_labelled_relations_passive_turned_around(nlp: Any) -> None:
    found = _extract(nlp, "syntax")
    okafor, harlow, corvel = (entity_key(n) for n in ("Miriam Okafor", "Harlow Corporation", "Corvel Industries"))
    labelled = _labelled(found)
    assert (okafor, harlow, "found") in labelled
    assert (corvel, harlow, "acquire") in labelled  # "was acquired by Corvel": Corvel is the subject
    # Both modes see the same entities (the same NER) and the same sentence-level pairs.
    assert {(m.key, m.label, m.count) for m in found.mentions} == \
        {(m.key, m.label, m.count) for m in _extract(nlp, "entities").mentions}
    assert _pairs(found, CO_OCCURS) == _pairs(_extract(nlp, "entities"), CO_OCCURS)


def test_switching_the_extraction_mode_rebuilds_and_is_stamped_on_the_file(runtime: Runtime, nlp: Any) -> None:
    ingest_folder(runtime)
    first = build(runtime, nlp)
    path = runtime.settings.graph_path
    assert read_networkx(path).graph["manifest"]["params"]["extraction"] == "entities"
    assert not build(runtime, nlp).chunks_processed  # nothing new: incremental is a no-op
    syntax = runtime.settings.graph.model_copy(update={"extraction": "syntax"})
    report = build_graph(GraphStore(runtime.db), syntax, path, nlp)
    assert report.rebuilt and report.chunks_processed == first.chunks_processed
    graph = read_networkx(path)
    assert graph.graph["manifest"]["params"]["extraction"] == "syntax"
    labels = {r["label"] for _, _, rels in graph.edges(data="relations") for r in rels}
    assert labels - {CO_OCCURS, "mentions"}, "the syntax build found no verb-labelled relation"
