"""Entities, mentions and relations from chunk text, with spaCy and no LLM.

A document is the unit: its chunks are parsed together (batched ``nlp.pipe``) so that aliases can
be resolved against the full names the same document introduces, and its title becomes an entity
that every one of its chunks mentions. Each output row names the chunk that is its evidence.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kgrag.core.settings import ExtractionMode, GraphSettings
from kgrag.kg.canonical import GENERIC_TAILS, canonical_name, entity_key, most_common, resolve_aliases
from kgrag.kg.nlp import ENTITY_COMPONENTS, SYNTAX_COMPONENTS, disabled_for

TITLE_LABEL = "TITLE"
CO_OCCURS = "co-occurs"
MENTIONS = "mentions"

_LINE_BREAK = re.compile(r"\s*\n\s*")
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
_OBJECT_DEPS = frozenset({"dobj", "attr", "dative", "oprd"})
_PREP_DEPS = frozenset({"prep", "agent"})


@dataclass(frozen=True, slots=True)
class ChunkText:
    """What extraction needs of a chunk (a ChunkRecord fits)."""

    id: int
    document_id: int
    text: str
    title: str


@dataclass(frozen=True, slots=True)
class Mention:
    chunk_id: int
    key: str
    surface: str
    label: str
    count: int


@dataclass(frozen=True, slots=True)
class Relation:
    source: str
    target: str
    relation: str
    chunk_id: int
    weight: int


@dataclass(frozen=True, slots=True)
class Extraction:
    mentions: tuple[Mention, ...]
    relations: tuple[Relation, ...]
    chunk_ids: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Raw:
    """One entity span before alias resolution."""

    chunk_id: int
    sentence: int
    key: str
    surface: str
    label: str
    start: int
    end: int


class Extractor:
    def __init__(self, nlp: Any, *, labels: Sequence[str], batch_size: int, mode: ExtractionMode = "entities") -> None:
        self.nlp = nlp
        self.labels = frozenset(labels)
        self.batch_size = batch_size
        self._disable = disabled_for(nlp, SYNTAX_COMPONENTS if mode == "syntax" else ENTITY_COMPONENTS)
        from spacy.lang.en.stop_words import STOP_WORDS

        self._stop = frozenset(STOP_WORDS)

    @classmethod
    def from_settings(cls, nlp: Any, settings: GraphSettings) -> Extractor:
        return cls(nlp, labels=settings.entity_labels, batch_size=settings.batch_size, mode=settings.extraction)

    def extract(self, chunks: Sequence[ChunkText]) -> Extraction:
        """Parse the chunks in one batched pass, then resolve and relate per document."""
        docs = self.nlp.pipe((c.text for c in chunks), batch_size=self.batch_size, disable=self._disable)
        by_document: dict[int, list[tuple[ChunkText, Any]]] = defaultdict(list)
        for chunk, doc in zip(chunks, docs, strict=True):
            by_document[chunk.document_id].append((chunk, doc))
        mentions: list[Mention] = []
        relations: list[Relation] = []
        for document_id in sorted(by_document):
            m, r = self._document(by_document[document_id])
            mentions.extend(m)
            relations.extend(r)
        return Extraction(tuple(mentions), tuple(relations), tuple(c.id for c in chunks))

    # -- one document -----------------------------------------------------------------------------
    def _document(self, parsed: list[tuple[ChunkText, Any]]) -> tuple[list[Mention], list[Relation]]:
        raws = [raw for chunk, doc in parsed for raw in self._spans(chunk.id, doc)]
        title_surface = canonical_name(parsed[0][0].title, strip_disambiguator=True)
        title_key = self._usable_key(title_surface)
        surfaces: dict[str, str] = {}
        label_votes: dict[str, Counter[str]] = defaultdict(Counter)
        for raw in raws:
            surfaces.setdefault(raw.key, raw.surface)
            label_votes[raw.key][raw.label] += 1
        if title_key:
            surfaces.setdefault(title_key, title_surface)
        labels = {k: most_common(v.items()) for k, v in label_votes.items()}
        resolved = resolve_aliases(surfaces, labels)

        counts: Counter[tuple[int, str, str, str]] = Counter()
        for raw in raws:
            counts[(raw.chunk_id, resolved[raw.key], raw.surface, raw.label)] += 1
        if title_key:
            for chunk, _ in parsed:
                counts[(chunk.id, resolved[title_key], title_surface, TITLE_LABEL)] += 1
        mentions = [Mention(c, k, s, lab, n) for (c, k, s, lab), n in sorted(counts.items())]
        relations = self._relations(parsed, raws, resolved, resolved.get(title_key) if title_key else None)
        return mentions, relations

    def _usable_key(self, surface: str) -> str:
        key = entity_key(surface)
        if len(key) < 2 or not any(ch.isalpha() for ch in key) or key in self._stop or key in GENERIC_TAILS:
            return ""
        return key

    def _spans(self, chunk_id: int, doc: Any) -> Iterable[_Raw]:
        sentence_of = _sentence_index(doc)
        for ent in doc.ents:
            if ent.label_ not in self.labels:
                continue
            # A span across a line break is two names run together (a heading and the first line).
            for piece in _LINE_BREAK.split(ent.text):
                surface = canonical_name(piece)
                key = self._usable_key(surface)
                if key:
                    yield _Raw(chunk_id, sentence_of[ent.start], key, surface, ent.label_, ent.start, ent.end)

    def _relations(self, parsed: list[tuple[ChunkText, Any]], raws: list[_Raw], resolved: dict[str, str],
                   title_key: str | None) -> list[Relation]:
        weights: Counter[tuple[str, str, str, int]] = Counter()
        by_chunk: dict[int, list[_Raw]] = defaultdict(list)
        for raw in raws:
            by_chunk[raw.chunk_id].append(raw)
        for chunk, doc in parsed:
            spans = by_chunk.get(chunk.id, [])
            _co_occurrences(weights, chunk.id, spans, resolved)
            if title_key:
                for key in sorted({resolved[r.key] for r in spans} - {title_key}):
                    weights[(title_key, key, MENTIONS, chunk.id)] += 1
            _svo(weights, chunk.id, doc, spans, resolved)
        return [Relation(s, t, rel, c, w) for (s, t, rel, c), w in sorted(weights.items())]


def _sentence_index(doc: Any) -> list[int]:
    index = [0] * len(doc)
    if not doc.has_annotation("SENT_START"):
        return index
    for i, sent in enumerate(doc.sents):
        for t in range(sent.start, sent.end):
            index[t] = i
    return index


def _co_occurrences(weights: Counter[tuple[str, str, str, int]], chunk_id: int, spans: list[_Raw],
                    resolved: dict[str, str]) -> None:
    """Each pair of entities sharing a sentence: one unit of weight per sentence they share."""
    by_sentence: dict[int, set[str]] = defaultdict(set)
    for raw in spans:
        by_sentence[raw.sentence].add(resolved[raw.key])
    for keys in by_sentence.values():
        ordered = sorted(keys)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                weights[(a, b, CO_OCCURS, chunk_id)] += 1


def _svo(weights: Counter[tuple[str, str, str, int]], chunk_id: int, doc: Any, spans: list[_Raw],
         resolved: dict[str, str]) -> None:
    """Subject–verb–object triples between entities, labelled with the verb's lemma.

    A passive with an agent ("was founded by X") is turned around so X is the subject; a
    prepositional object keeps its preposition in the label ("bear in").
    """
    if not spans or not doc.has_annotation("DEP"):
        return
    entity_at: dict[int, str] = {}
    for raw in spans:
        for t in range(raw.start, raw.end):
            entity_at[t] = resolved[raw.key]
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX"):
            continue
        subjects = _entities(entity_at, (c for c in verb.children if c.dep_ in _SUBJECT_DEPS))
        if not subjects:
            continue
        passive = any(c.dep_ == "nsubjpass" for c in verb.children)
        lemma = verb.lemma_.lower()
        for obj in _entities(entity_at, (c for c in verb.children if c.dep_ in _OBJECT_DEPS)):
            _add_pairs(weights, subjects, obj, lemma, chunk_id)
        for prep in (c for c in verb.children if c.dep_ in _PREP_DEPS):
            objects = _entities(entity_at, (c for c in prep.children if c.dep_ == "pobj"))
            for obj in objects:
                if prep.dep_ == "agent" and passive:
                    for subj in subjects:
                        _add_pairs(weights, {obj}, subj, lemma, chunk_id)
                else:
                    _add_pairs(weights, subjects, obj, f"{lemma} {prep.lower_}", chunk_id)


def _entities(entity_at: dict[int, str], tokens: Iterable[Any]) -> set[str]:
    """The entities the tokens (and their conjuncts: "X and Y founded…") belong to."""
    found: set[str] = set()
    for tok in tokens:
        for t in (tok, *tok.conjuncts):
            if t.i in entity_at:
                found.add(entity_at[t.i])
    return found


def _add_pairs(weights: Counter[tuple[str, str, str, int]], subjects: set[str], obj: str, label: str,
               chunk_id: int) -> None:
    for subj in sorted(subjects):
        if subj != obj:
            weights[(subj, obj, label, chunk_id)] += 1
