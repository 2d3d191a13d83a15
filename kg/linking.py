"""Linking a question to graph nodes: document titles first, then spaCy NER, then word n-grams matched
exactly, then fuzzily.

A title written in the question is the most precise link there is: it names one document, whose
text is about it. So maximal title-alias matches are linked first and claim their words; entities
are linked in what is left. NER alone misses lower-case or oddly cased names ("lothair ii's
mother"), so every n-gram of the question is also looked up by key; longer matches win and claim
their words. Fuzzy matching (rapidfuzz) only runs for words nothing matched, against names of about the same length.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kgrag.core.text import WORD
from kgrag.kg.canonical import canonical_name, entity_key
from kgrag.kg.documents import specificity, tokens
from kgrag.kg.nlp import LINK_COMPONENTS, disabled_for
from kgrag.kg.serving import LoadedGraph
from rapidfuzz import fuzz, process

MATCH_WEIGHT = {"title": 1.0, "ner": 1.0, "exact": 1.0, "alias": 0.7, "fuzzy": 0.6}
TITLE = "title"
UNCASED_MATCH = 0.2
"""Weight of a match written all in lower case in a question that otherwise capitalises names: "the
place of birth of …" names no document "Place of birth", "the film" no entity "Film". A question
written wholly in lower case gets no such evidence, and no penalty."""
FUZZY_MIN_CHARS = 5


@dataclass(frozen=True, slots=True)
class LinkedEntity:
    index: int
    name: str
    matched: str
    how: str
    score: float
    """Seed weight: how sure the match is (1 for exact); for entities also times their specificity."""
    specificity: float = 1.0
    """For a title link, the alias's specificity 1/(1 + ln df): how precisely the words name one document.
    A title seeds with full weight either way (the question wrote it), but a title that many documents
    write is weaker evidence that the graph knows the answer (see retrieval.graph.fusion_weight)."""


class Linker:
    def __init__(self, nlp: Any | None, *, labels: Sequence[str], fuzzy_threshold: float) -> None:
        self.nlp = nlp
        self.labels = frozenset(labels)
        self.fuzzy_threshold = fuzzy_threshold
        self._disable = disabled_for(nlp, LINK_COMPONENTS) if nlp is not None else []
        self._nlp_lock = threading.Lock()  # spaCy does not promise thread-safe calls; NER takes ~4 ms
        from spacy.lang.en.stop_words import STOP_WORDS

        self._stop = frozenset(STOP_WORDS)

    def link(self, question: str, graph: LoadedGraph) -> list[LinkedEntity]:
        found: dict[int, LinkedEntity] = {}
        words = [(m.group(), m.start(), m.end()) for m in WORD.finditer(question)]
        covered = [False] * len(words)
        cased = any(ch.isupper() for w, _, _ in words[1:] for ch in w)
        for start, end in self._titles(question, graph, found, cased=cased):
            for i, (_, ws, we) in enumerate(words):
                covered[i] |= ws < end and we > start
        for text, start, end in self._ner_spans(question):
            if any(c and ws < end and we > start for c, (_, ws, we) in zip(covered, words, strict=True)):
                continue  # part of a title already linked
            for match in self._lookup(text, graph, "ner"):
                _keep(found, match)
                for i, (_, ws, we) in enumerate(words):
                    covered[i] |= ws >= start and we <= end
        self._ngrams(words, covered, graph, found, cased=cased)
        return sorted(found.values(), key=lambda e: (-e.score, e.index))

    def _titles(self, question: str, graph: LoadedGraph, found: dict[int, LinkedEntity], *, cased: bool
                ) -> list[tuple[int, int]]:
        """Link maximal title-alias matches; returns the character spans they claimed.

        An alias naming several documents goes to the one whose whole title it is, or whose
        disambiguator the question also writes, else is shared among them.
        """
        if not graph.has_documents():
            return []
        words = tokens(question)
        context = {w.key for w in words}
        spans = []
        for start, end, alias in graph.title_index().matches(words):
            if all(w.key in self._stop for w in words[start:end]):
                continue
            targets = graph.title_index().resolve(alias, context)
            if not targets:  # too ambiguous to name any document (documents.MAX_ALIAS_TARGETS)
                continue
            text = question[words[start].start:words[end - 1].end]
            weight = _case_weight(text, cased) / len(targets)
            precision = specificity(graph.alias_df_of(alias, 1))
            for document_id in targets:
                node = graph.document_node(document_id)
                _keep(found, LinkedEntity(node, graph.name(node), text, TITLE, weight, precision))
            spans.append((words[start].start, words[end - 1].end))
        return spans

    def _ner_spans(self, question: str) -> list[tuple[str, int, int]]:
        if self.nlp is None:
            return []
        with self._nlp_lock:
            doc = self.nlp(question, disable=self._disable)
        return [(e.text, e.start_char, e.end_char) for e in doc.ents if e.label_ in self.labels]

    def _ngrams(self, words: list[tuple[str, int, int]], covered: list[bool], graph: LoadedGraph,
                found: dict[int, LinkedEntity], *, cased: bool) -> None:
        """Longest first; a match claims its words, so "Lothair II" beats "Lothair" and "II"."""
        tokens = [w for w, _, _ in words]
        pending: list[tuple[int, int]] = []
        for n in range(min(graph.longest_name_tokens, len(tokens)), 0, -1):
            for i in range(len(tokens) - n + 1):
                if any(covered[i:i + n]) or all(t.lower() in self._stop for t in tokens[i:i + n]):
                    continue
                text = " ".join(tokens[i:i + n])
                matches = self._lookup(text, graph, "exact", fuzzy=False)
                if matches:
                    for m in matches:
                        _keep(found, _cased(m, text, cased))
                    covered[i:i + n] = [True] * n
                elif tokens[i].lower() not in self._stop and tokens[i + n - 1].lower() not in self._stop:
                    pending.append((i, n))
        for i, n in pending:
            if any(covered[i:i + n]):
                continue
            text = " ".join(tokens[i:i + n])
            matches = self._fuzzy(text, graph)
            if matches:
                for m in matches:
                    _keep(found, _cased(m, text, cased))
                covered[i:i + n] = [True] * n

    def _lookup(self, text: str, graph: LoadedGraph, how: str, *, fuzzy: bool = True) -> list[LinkedEntity]:
        key = entity_key(canonical_name(text))
        if not key:
            return []
        node = graph.node_of(key)
        if node is not None:
            return [_linked(graph, node, text, how, 1.0)]
        targets = graph.aliased(key)
        if targets:
            return [_linked(graph, i, text, "alias", 1.0 / len(targets)) for i in targets]
        return self._fuzzy(text, graph) if fuzzy else []

    def _fuzzy(self, text: str, graph: LoadedGraph) -> list[LinkedEntity]:
        key = entity_key(canonical_name(text))
        if len(key) < FUZZY_MIN_CHARS:
            return []
        spread = max(1, int(len(key) * (100 - self.fuzzy_threshold) / 100) + 1)
        best: tuple[str, float] | None = None
        for length in range(len(key) - spread, len(key) + spread + 1):
            choices = graph.fuzzy_candidates(key[0], length)
            # Bucket by bucket, not one joined list (tens of thousands of names at a million chunks);
            # a later bucket must beat the best so far, as the first best of the joined list won.
            found = process.extractOne(key, choices, scorer=fuzz.ratio,
                                       score_cutoff=best[1] if best else self.fuzzy_threshold) if choices else None
            if found is not None and (best is None or found[1] > best[1]):
                best = (found[0], found[1])
        if best is None:
            return []
        target = best[0]
        quality = best[1] / 100.0
        node = graph.node_of(target)
        if node is not None:
            return [_linked(graph, node, text, "fuzzy", quality)]
        targets = graph.aliased(target)
        return [_linked(graph, i, text, "fuzzy", quality / len(targets)) for i in targets]


def _linked(graph: LoadedGraph, index: int, text: str, how: str, quality: float) -> LinkedEntity:
    counts = graph.mention_counts()
    df = float(counts[index]) if counts.size else 1.0
    specificity = 1.0 / math.log2(1.0 + max(df, 1.0))
    return LinkedEntity(index, graph.name(index), text, how, MATCH_WEIGHT[how] * quality * specificity)


def _case_weight(text: str, cased: bool) -> float:
    return UNCASED_MATCH if cased and not any(ch.isupper() for ch in text) else 1.0


def _cased(match: LinkedEntity, text: str, cased: bool) -> LinkedEntity:
    weight = _case_weight(text, cased)
    return match if weight == 1.0 else replace(match, score=match.score * weight)


def _keep(found: dict[int, LinkedEntity], match: LinkedEntity) -> None:
    if match.index not in found or found[match.index].score < match.score:
        found[match.index] = match
