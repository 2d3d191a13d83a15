"""Documents as entities: a document's title names it, and prose that writes the title links to it.

NER on a small model misses or mangles many names, but a corpus already says what its documents
are about: their titles. So every document becomes a node whose *home* is its own chunks, and
every chunk that writes another document's title (as an alias: accents and case folded,
punctuation as spaces, a trailing "(disambiguator)" dropped) gets a precise, directed mention
link to that document. Links are weighted by the alias's specificity, 1/(1 + ln df), where df
counts the documents whose text writes it: "Lothair II" says far more than "Paris".

Nothing here depends on the order of documents or their ids: aliases, links and weights are
functions of the titles and texts alone.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import defaultdict
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from kgrag.core.text import WORD
from kgrag.core.text import sentence_around as text_sentence_around
from kgrag.kg.subjects import (
    document_subject,
    plain_name,
    record_codes,
    stated_names,
    subject_variants,
    usable_title,
)

_POSSESSIVE = re.compile(r"(?:'s|’s|'|’)$")
_TRAILING_PAREN = re.compile(r"\s*\([^()]*\)\s*$")

MAX_ALIAS_TOKENS = 12
"""Longer titles are matched on their first words' aliases only if written in full; bounds the scan."""
MAX_SENTENCE_CHARS = 240
MAX_ALIAS_TARGETS = 8
"""An alias that still names more documents than this, after the whole-title and disambiguator rules,
names none of them: each would get a sliver of a weak link, and a generic subject ("Little is known
...", "Evidence suggests ...") written by a hundred documents made a link from every chunk that writes
the word to each of them (tens of millions of links, 16 GB, in a million-chunk build)."""


class Token(NamedTuple):
    """A tuple, not a dataclass: a million-chunk build makes hundreds of millions of them."""

    key: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class TitleDocument:
    document_id: int
    title: str
    full_key: str
    """The whole title as a key, disambiguator included: "kelpie ship" for "Kelpie (ship)"."""
    aliases: tuple[str, ...]
    """Every key prose may write it as, full key first."""


@dataclass(frozen=True, slots=True)
class MentionLink:
    """Chunk ``chunk_id`` writes ``alias``, naming document ``target``, in ``sentence``."""

    chunk_id: int
    source_document: int
    target: int
    alias: str
    weight: float
    """Specificity of the alias, split evenly when it names several documents."""
    sentence: str


@dataclass(frozen=True, slots=True)
class DocumentLayer:
    """What the graph file needs of the documents: their titles, the links between them, alias frequencies."""

    titles: tuple[TitleDocument, ...]
    links: tuple[MentionLink, ...]
    alias_df: dict[str, int]


def document_layer(heads: Iterable[tuple[int, str, str, str, int]], chunks: Iterable[tuple[int, int, str]]
                   ) -> DocumentLayer:
    """Title documents for (document id, title, source, opening text, documents sharing the title), named by
    their title where it names them, else by their subject (kg.subjects: the subject their text opens with,
    or a generic-titled record's name field or main entity); and the mention links found in the chunks' text."""
    docs = tuple(d for head in heads if (d := subject_document(*head)) is not None)
    links, alias_df = scan_mentions(TitleIndex(docs), chunks)
    return DocumentLayer(docs, tuple(links), alias_df)


def tokens(text: str) -> list[Token]:
    """Folded word tokens with their character spans; a trailing possessive is not part of a name."""
    if text.isascii():  # most text: fold is lower(), once for the whole text, and a token cannot end in "'"
        return [Token(w[:-2] if w.endswith("'s") else w, m.start(), m.end())
                for m in WORD.finditer(text.lower()) for w in (m.group(),)]
    out: list[Token] = []
    for m in WORD.finditer(text):
        word = fold(m.group())
        word = _POSSESSIVE.sub("", word) or word
        out.append(Token(word, m.start(), m.end()))
    return out


def fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold().replace("’", "'")


def title_key(text: str) -> str:
    return " ".join(t.key for t in tokens(text))


def subject_document(document_id: int, title: str, source: str, opening: str, shared: int = 1
                     ) -> TitleDocument | None:
    """The document's node name and aliases: its title, or where the title is missing or generic ("Staff
    profile", which ``shared`` documents carry) its subject (and that subject's variants); None when
    neither names anything."""
    name, is_title = document_subject(title, source, opening, max_words=MAX_ALIAS_TOKENS, shared=shared)
    if not name:
        return None
    # A real title gets no guessed variants, but the names the text itself states are no guess: "known as
    # ...", and the identifier a record's code field gives it ("Project code: PR-2024-004").
    variants = stated_names(opening) if is_title else subject_variants(name, opening)
    if not is_title and usable_title(title, source, MAX_ALIAS_TOKENS):  # a generic title's record name
        variants = (plain_name(name), *variants)
    return title_document(document_id, name, (*variants, *record_codes(opening)))


def title_document(document_id: int, title: str, variants: Sequence[str] = ()) -> TitleDocument | None:
    """None for a title that cannot name anything in prose (no letters, or a single character)."""
    full = title_key(title)
    keys = [full, title_key(_TRAILING_PAREN.sub("", title)), *(title_key(v) for v in variants)]
    aliases = tuple(dict.fromkeys(k for k in keys if _usable(k)))
    if not aliases:
        return None
    return TitleDocument(document_id, title, full, aliases)


def _usable(key: str) -> bool:
    return len(key) >= 2 and any(ch.isalpha() for ch in key) and key.count(" ") < MAX_ALIAS_TOKENS


def specificity(document_frequency: int) -> float:
    return 1.0 / (1.0 + math.log(max(document_frequency, 1)))


class TitleIndex:
    """Alias → documents, and every alias's word prefixes, so a scan extends a match word by word and
    stops as soon as no alias continues that way (a position costs its match's length, not the longest alias)."""

    def __init__(self, documents: Iterable[TitleDocument]) -> None:
        by_id: dict[int, TitleDocument] = {}
        targets: dict[str, set[int]] = defaultdict(set)
        for doc in documents:
            by_id[doc.document_id] = doc
            for alias in doc.aliases:
                targets[alias].add(doc.document_id)
        self.documents: Mapping[int, TitleDocument] = by_id
        self.targets: Mapping[str, tuple[int, ...]] = {a: tuple(sorted(ids)) for a, ids in targets.items()}
        prefixes: set[str] = set()
        for alias in self.targets:
            words = alias.split(" ")
            prefixes.update(" ".join(words[:n]) for n in range(1, len(words) + 1))
        self.prefixes: Container[str] = prefixes

    @classmethod
    def from_parts(cls, documents: Mapping[int, TitleDocument], targets: Mapping[str, tuple[int, ...]],
                   prefixes: Container[str]) -> TitleIndex:
        """The index as kg.arrays.save stored it, as mapped tables: a replica neither repeats the
        alias scan nor makes an object per document (at a million chunks, 440k of them)."""
        index = cls.__new__(cls)
        index.documents = documents
        index.targets = targets
        index.prefixes = prefixes
        return index

    def resolve(self, alias: str, context: set[str] | None = None) -> tuple[int, ...]:
        """The documents an alias names: one whose whole title it is wins; then one whose disambiguator
        ("film" in "Kelpie (film)") the context also writes; else all of them, unless they are more than
        MAX_ALIAS_TARGETS (then none)."""
        named = self._narrowed(alias, context)
        return named if len(named) <= MAX_ALIAS_TARGETS else ()

    def _narrowed(self, alias: str, context: set[str] | None) -> tuple[int, ...]:
        candidates = self.targets.get(alias, ())
        if len(candidates) <= 1:
            return candidates
        exact = tuple(d for d in candidates if self.documents[d].full_key == alias)
        if exact:
            return exact
        if context:
            fitting = tuple(d for d in candidates
                            if set(self.documents[d].full_key.split(" ")[len(alias.split(" ")):]) & context)
            if fitting:
                return fitting
        return candidates

    def matches(self, words: Sequence[Token]) -> list[tuple[int, int, str]]:
        """Maximal alias matches, longest first at each position, never overlapping: (start, end, alias)."""
        found: list[tuple[int, int, str]] = []
        keys = [w.key for w in words]
        i = 0
        n = len(keys)
        while i < n:
            best, alias = 0, ""
            current = keys[i]
            j = i + 1
            while current in self.prefixes:
                if current in self.targets:
                    best, alias = j - i, current
                if j == n:
                    break
                current = f"{current} {keys[j]}"
                j += 1
            if best:
                found.append((i, i + best, alias))
                i += best
            else:
                i += 1
        return found


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence holding a span, bounded in length: the evidence a mention link shows."""
    return text_sentence_around(text, start, end, MAX_SENTENCE_CHARS)


def scan_mentions(index: TitleIndex, chunks: Iterable[tuple[int, int, str]]
                  ) -> tuple[list[MentionLink], dict[str, int]]:
    """Mention links from every (chunk id, document id, text), and each alias's document frequency.

    A document naming itself is no link, but it still counts as a document that writes the alias.
    """
    raw: list[tuple[int, int, tuple[int, ...], str, str]] = []
    writers: dict[str, set[int]] = defaultdict(set)
    for chunk_id, document_id, text in chunks:
        words = tokens(text)
        context = {w.key for w in words}
        for start, end, alias in index.matches(words):
            writers[alias].add(document_id)
            targets = tuple(t for t in index.resolve(alias, context) if t != document_id)
            if targets:
                raw.append((chunk_id, document_id, targets, alias,
                            sentence_around(text, words[start].start, words[end - 1].end)))
    links: dict[tuple[int, int], MentionLink] = {}
    for chunk_id, document_id, targets, alias, sentence in raw:
        weight = specificity(len(writers[alias])) / len(targets)
        for target in targets:
            key = (chunk_id, target)
            if key not in links or links[key].weight < weight:
                links[key] = MentionLink(chunk_id, document_id, target, alias, weight, sentence)
    return [links[k] for k in sorted(links)], {a: len(d) for a, d in sorted(writers.items())}
