"""Text patterns shared by the graph code: what a word of a name is, and where sentences end.

One home each, so the linker, the title index and the entity keys cannot drift apart by accident.
Where two callers differ on purpose (below), each pattern is named and says why: changing either
would change entity keys, the graph file or what the browser shows.
"""

from __future__ import annotations

import re

WORD = re.compile(r"[\w&]+(?:['’.\-][\w&]+)*")
"""A word of a name: letters, digits and "&", joined inside by an apostrophe (straight or curly), a dot
or a hyphen ("O'Brien", "U.S", "Jean-Luc"). The question linker and the title index (kg.linking,
kg.documents) tokenise with it."""

KEY_WORD = re.compile(r"[\w&]+(?:['.\-][\w&]+)*")
"""``WORD`` without the curly apostrophe: entity keys (kg.canonical.entity_key) have always been made with
it, so "O’Brien" keys as "o brien". Adding ’ would change every such key, and so the graph file."""

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'“(\[]?[A-Z0-9])|\n\s*\n")
"""A sentence ends at . ! or ? before a capital or digit (perhaps after an opening quote or bracket), or at
a blank line. The evidence sentence of a document mention link (kg.documents) is cut with it."""

SENTENCE_END_INLINE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
"""``SENTENCE_END`` without the curly opening quote and the blank line: how the browser's evidence
sentences (kg.browse) have always been split; the views it returns keep their sentences."""


def split_sentences(text: str, end: re.Pattern[str] = SENTENCE_END_INLINE) -> list[str]:
    """The non-empty sentences of ``text``, stripped."""
    return [s.strip() for s in end.split(text) if s.strip()]


def sentence_around(text: str, start: int, end: int, max_chars: int) -> str:
    """The sentence holding the span ``start:end`` (split by ``SENTENCE_END``), whitespace collapsed and
    cut to ``max_chars`` with an ellipsis."""
    left = 0
    for m in SENTENCE_END.finditer(text, 0, start):
        left = m.end()
    nxt = SENTENCE_END.search(text, end)
    right = nxt.start() if nxt else len(text)
    sentence = " ".join(text[left:right].split())
    if len(sentence) > max_chars:
        sentence = sentence[: max_chars - 1].rstrip() + "…"
    return sentence
