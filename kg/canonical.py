"""Entity names: one canonical form per entity, and the aliases that refer to it within a document.

Matching happens on *keys* (casefolded, accents, dots and leading articles stripped) so that
"The Acme Corporation's", "ACME Corporation" and "Acme Corporation" are one node; the display name
keeps the capitalisation people wrote. Alias merging is per document, where a surname or a short
form can only mean the full name that document introduced (across documents "Okafor" is ambiguous).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from kgrag.core.text import KEY_WORD

_QUOTES = str.maketrans({"’": "'", "‘": "'", "`": "'", "“": '"', "”": '"'})
_SPACE = re.compile(r"\s+")
_POSSESSIVE = re.compile(r"(?:'s|'|s')$", re.IGNORECASE)
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_EDGE_PUNCT = " \t\"'.,;:!?()[]{}<>-–—*_#|/\\"
_TRAILING_PAREN = re.compile(r"\s*\([^()]*\)$")
_ACRONYM_DOTS = re.compile(r"\b((?:[A-Za-z]\.){2,})")

ACRONYM_SKIP = frozenset({"of", "the", "and", "for", "in", "on", "at", "to", "&", "a", "an", "de", "du", "la"})
"""Words an acronym leaves out ("National Aeronautics and Space Administration" → NASA)."""

GENERIC_TAILS = frozenset({
    "inc", "ltd", "llc", "plc", "co", "corp", "corporation", "company", "group", "gmbh", "ag", "sa",
    "university", "city", "river", "county", "state", "jr", "sr", "ii", "iii", "iv",
})
"""Words that alone never name the entity they end ("Corporation" is not an alias of Acme Corporation)."""


def canonical_name(text: str, *, strip_disambiguator: bool = False) -> str:
    """The display form: whitespace collapsed, quotes unified, possessive, article and edge punctuation gone.

    ``strip_disambiguator`` drops a trailing "(1946 film)": titles carry one, prose never does.
    """
    name = _SPACE.sub(" ", text.translate(_QUOTES)).strip()
    if strip_disambiguator:
        name = _TRAILING_PAREN.sub("", name)
    name = name.strip(_EDGE_PUNCT)
    for _ in range(2):  # "The Beatles'" needs both rules, in either order
        name = _POSSESSIVE.sub("", name).strip(_EDGE_PUNCT)
        name = _LEADING_ARTICLE.sub("", name).strip(_EDGE_PUNCT)
    return name


def entity_key(name: str) -> str:
    """The matching key of a (canonical) name: casefolded, accents and acronym dots removed."""
    name = _ACRONYM_DOTS.sub(lambda m: m.group(1).replace(".", ""), name)
    decomposed = unicodedata.normalize("NFKD", name)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(KEY_WORD.findall(plain.casefold()))


def key_tokens(key: str) -> list[str]:
    return key.split(" ") if key else []


def initials(key: str) -> str:
    """The acronym a multi-word name would have, skipping small words."""
    words = [w for w in key_tokens(key) if w not in ACRONYM_SKIP]
    return "".join(w[0] for w in words) if len(words) >= 2 else ""


def is_acronym(surface: str) -> bool:
    letters = surface.replace(".", "")
    return 2 <= len(letters) <= 8 and letters.isalpha() and letters.isupper()


def _is_edge_subsequence(short: list[str], long: list[str]) -> bool:
    """True when ``short`` is a proper prefix or suffix of ``long`` (a surname, a first word)."""
    n = len(short)
    return 0 < n < len(long) and (long[:n] == short or long[-n:] == short)


_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})


def _labels_clash(a: str | None, b: str | None) -> bool:
    """A person is never a short form of a place or the reverse ("Paris" vs "Paris Hilton")."""
    pair = {a, b}
    return "PERSON" in pair and bool(pair & _PLACE_LABELS)


def resolve_aliases(surfaces: Mapping[str, str], labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """Map each key in one document to the key it stands for (itself when it is a full name).

    ``surfaces`` maps key → the surface form as written (needed to recognise acronyms by their
    capitals), ``labels`` key → entity label. A short form is merged only when exactly one longer
    name in the document fits: in a document about Lothair I and Lothair II, "Lothair" stays alone.
    """
    labels = labels or {}
    keys = sorted(surfaces)
    tokens = {k: key_tokens(k) for k in keys}
    by_initials: dict[str, list[str]] = {}
    for k in keys:
        if acr := initials(k):
            by_initials.setdefault(acr, []).append(k)
    resolved: dict[str, str] = {}
    for k in keys:
        candidates: list[str] = []
        if is_acronym(surfaces[k]):
            candidates = [c for c in by_initials.get(k.replace(" ", ""), []) if c != k]
        if not candidates and not (len(tokens[k]) == 1 and tokens[k][0] in GENERIC_TAILS):
            candidates = [c for c in keys if _is_edge_subsequence(tokens[k], tokens[c])]
        candidates = [c for c in candidates if not _labels_clash(labels.get(k), labels.get(c))]
        resolved[k] = _unique_target(candidates) or k
    return {k: _follow(resolved, k) for k in keys}


def _unique_target(candidates: list[str]) -> str | None:
    """The single full name the candidates agree on; when one candidate contains all others, it wins."""
    if not candidates:
        return None
    if len(candidates) == 1:
        return candidates[0]
    longest = max(candidates, key=lambda c: (len(c), c))
    if all(c == longest or f" {c} " in f" {longest} " for c in candidates):
        return longest
    return None


def _follow(resolved: Mapping[str, str], key: str) -> str:
    seen = {key}
    while (nxt := resolved[key]) != key and nxt not in seen:
        seen.add(nxt)
        key = nxt
    return key


def most_common(values: Iterable[tuple[str, int]]) -> str:
    """The value with the highest count, ties broken alphabetically: deterministic for byte-identical builds."""
    totals: dict[str, int] = {}
    for value, count in values:
        totals[value] = totals.get(value, 0) + count
    return min(totals, key=lambda v: (-totals[v], v))
