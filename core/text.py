"""Text rules shared across layers, one home each: what a control character is, what a word of a name is,
and where sentences end.

The loaders strip control characters from what they store and the API refuses them in a question or a title:
one definition keeps the two in agreement. The word and sentence patterns are shared by the linker, the title
index and the entity keys, so they cannot drift apart by accident; where two callers differ on purpose, each
pattern is named and says why (changing either would change entity keys, the graph file or what the browser
shows).
"""

from __future__ import annotations

import re

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""C0 and C1 controls but tab, newline and CR: NUL (Postgres refuses it) and terminal commands (ESC, CSI)."""
ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
"""Every C0 and C1 control, whitespace included: for text shown on one line (titles, file names)."""


def control_char(text: str, *, allow_whitespace: bool = False) -> str | None:
    """The first C0/C1 control character in ``text`` (tab, newline and CR allowed if asked), or None."""
    for match in (CONTROL if allow_whitespace else ANY_CONTROL).finditer(text):
        return match.group()
    return None


INVISIBLE = re.compile(
    r"[\u200b\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069\u061c\u180e\u115f\u1160\u3164\uffa0"
    r"\U000e0000-\U000e007f]")
"""Bidi overrides, embeddings and isolates, the Arabic letter mark (a bidi control too), zero-width space,
word joiner and invisible operators, BOM, the Hangul fillers (blank, yet letters to most checks), and the
tag characters (U+E0000-U+E007F, which hide ASCII text from the reader): they make a title or source read
differently from what it is ("invoice\u202efdp.exe"). Zero-width (non-)joiners and the LRM/RLM marks stay
allowed: Persian, Indic scripts and emoji sequences need them."""


def invisible_char(text: str) -> str | None:
    """The first character of ``INVISIBLE`` in ``text``, or None."""
    m = INVISIBLE.search(text)
    return m.group() if m else None


SURROGATE = re.compile(r"[\ud800-\udfff]")
"""A lone UTF-16 surrogate: half of a pair, not a character. JSON ("\\ud800") and YAML escapes produce one
in a Python str, and then nothing can encode it: Postgres, a JSON response and a log line all fail."""


def surrogate_char(text: str) -> str | None:
    """The first lone surrogate in ``text``, or None."""
    m = SURROGATE.search(text)
    return m.group() if m else None


def surrogate_problem(char: str) -> str:
    """What is wrong with a lone surrogate, for a message that names the field holding it."""
    return f"a lone surrogate (U+{ord(char):04X}), half of a UTF-16 pair and no character"


SURROGATE_FIX = ("send the text as UTF-8, and escape a character beyond U+FFFF as its whole pair of surrogates "
                 "(\\ud83d\\ude00 for U+1F600), never half of one")


def clean_line(text: str) -> str:
    """Text shown on one line (a title): whitespace folded; controls, invisible formatting characters and lone
    surrogates dropped, so it reads as what it is wherever it is printed."""
    return " ".join(_UNSHOWN.sub("", " ".join(text.split())).split())


def clean_value(text: str) -> str:
    """A stored metadata string: as ``clean_line`` drops, but tabs and line breaks kept (a value may be prose).
    Lone surrogates are refused by the callers (a 422 naming the field), so none reaches here."""
    return INVISIBLE.sub("", CONTROL.sub("", text))


_UNSHOWN = re.compile(f"{ANY_CONTROL.pattern}|{INVISIBLE.pattern}|{SURROGATE.pattern}")

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


HEADING_MAX_WORDS = 12
"""A first line longer than this is prose, not a heading (the same bound as a title alias, kg.documents)."""
_FIRST_LINE = re.compile(r"\A\s*(?:#+\s*)?([^\n]{2,120}?)\s*#*\s*\n")


def heading_line(text: str) -> str | None:
    """The text's first line when it reads as a heading: short, with a letter, not ending a sentence, and
    followed by more text ("Tomas Berg" above the paragraph about him). A plain-text file or a PDF has no
    title field, and its file stem ("tomas_berg") is a poor one; the line it opens with usually is one."""
    m = _FIRST_LINE.match(text)
    if m is None:
        return None
    line = m.group(1).strip()
    words = WORD.findall(line)
    if not words or len(words) > HEADING_MAX_WORDS or line.endswith((".", ",", ":", ";", "?", "!")):
        return None
    return line if any(ch.isalpha() for ch in line) and text[m.end():].strip() else None
