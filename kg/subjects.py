"""What a document is about, when its title cannot say: the subject of its opening sentence or its heading line.

The document layer links prose to documents by title. A corpus without usable titles (file stems such as
"jonas_meier", ids, empty titles, or 40-word paper titles no prose repeats) would get no links at all, yet
its documents are usually *about* something that they name first: "Ermengarde of Tours (died 851) was the
daughter of ...", a "Project Heron" heading line. The subject is found by shape alone (a short name-like
phrase before the first copula, or a short first line), never from ids or corpus order.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from kgrag.core.text import WORD, heading_line

MAX_SUBJECT_WORDS = 8
_COPULA = re.compile(r"\s(?:is|was|are|were|has been|had been|was once|is also|was also)\s", re.I)
_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*")

_NOT_A_NAME_WORDS = (
    "a an the this that these those it its he she they we i you there here his her their our my your one "
    "some many most several each every all in on at of for from by with to as after before during when "
    "while if although since because"
)
_NOT_A_NAME = frozenset(_NOT_A_NAME_WORDS.split())
_ARTICLES = frozenset({"the", "a", "an"})
_CLAUSE_BREAK = re.compile(r"[!?;]|\.\s+[a-z]")
_ASIDE = re.compile(r"\s*[(\[,;]")
# Linking words and the particles personal names carry in many languages ("Conall mac Taidg",
# "Raiyah bint Hussein", "Ashar Al Aafiz bin Abdullah"): lower-case inside a name.
_LINKER_WORDS = ("of the and de la le von van der del da di du y & for on in at mac bin bint ibn al el zu ter ten "
                 "dos das af av")
_LINKERS = frozenset(_LINKER_WORDS.split())


def _file_stem(source: str) -> str:
    """The stem of the file a source names ("wiki/jonas_meier.txt" → "jonas_meier"; "2wiki:381" → "381")."""
    return PurePath(source.rsplit(":", 1)[-1]).stem


def stand_in_title(title: str, source: str) -> bool:
    """No title was written: the store holds the source, its file name or its stem in its place."""
    title = title.strip()
    if not title or title == source:
        return True
    return title in (_file_stem(source), PurePath(source).name)


def usable_title(title: str, source: str, max_words: int) -> bool:
    """A title prose can write: not the source's name or file stem standing in for a missing title, not
    longer than ``max_words`` words (no document repeats a 40-word paper title)."""
    if stand_in_title(title, source):
        return False
    words = WORD.findall(title)
    return 0 < len(words) <= max_words and any(ch.isalpha() for ch in title)


def passage_subject(title: str, source: str, opening: str) -> str:
    """What a passage's document is called in prose, for an answer that must say whose "its" is: its title,
    or where the title only repeats the file name, the subject its text opens with ("" when none)."""
    return untitled_subject(source, opening) if stand_in_title(title, source) else title.strip()


def untitled_subject(source: str, opening: str) -> str:
    """The subject of a document without a usable title: what its text opens with, else its file name as
    the opening writes it."""
    return text_subject(opening) or stem_subject(source, opening)


_STEM_SPLIT = re.compile(r"[\s_.\-]+")
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*)$")


def stem_subject(source: str, opening: str) -> str:
    """A file named after what it is about, as its opening writes that name: "jonas_meier.txt" opening with
    "Jonas Meier joined in 2015." (no heading, no "X is ...") is about Jonas Meier. Only a capitalised,
    name-like match counts, and a one-word name only mid-sentence, where a capital marks a name rather than
    a sentence start ("notes.txt" opening "Notes from the meeting" names nothing)."""
    words = [w for w in _STEM_SPLIT.split(_file_stem(source)) if w]
    if not words or len(words) > MAX_SUBJECT_WORDS or not any(ch.isalpha() for w in words for ch in w):
        return ""
    head = opening[:OPENING_CHARS]
    pattern = r"(?<![\w-])" + r"[\s_-]+".join(re.escape(w) for w in words) + r"(?![\w-])"
    for m in re.finditer(pattern, head, re.IGNORECASE):
        found = " ".join(m.group(0).split())
        if not _name_like(found, heading=True) or not any(ch.isupper() for ch in found):
            continue
        if len(words) == 1 and _SENTENCE_START.search(head[:m.start()]):
            continue
        return found
    return ""


def text_subject(text: str) -> str:
    """The name the text opens with: a short heading line, else what the first sentence says *is* something
    (the sentence below a heading that is no name, "Skua drone" over "The Skua is an inspection drone …")."""
    head = heading_line(text)
    if head and _name_like(head, heading=True):
        return head
    opening = text.lstrip()
    below = opening.split("\n", 1)[1].lstrip() if head and "\n" in opening else ""
    return _copula_subject(opening[:400]) or (_copula_subject(below[:400]) if below else "")


def _copula_subject(first: str) -> str:
    m = _COPULA.search(first)
    if m is None:
        return ""
    before = first[:m.start()]
    # "Gunnar S. Gundersen (1921 – 1983) or Gunnar S. was", "Archambaud IX of Bourbon (died 1249), called
    # Le Jeune, was": the name is what comes before the first aside (a parenthesis, comma or semicolon).
    for subject in (_clean(before), _clean(_ASIDE.split(before, maxsplit=1)[0])):
        if _name_like(subject, heading=False):
            return subject
    return ""


def _without_parentheses(text: str) -> str:
    """Nested asides too ("Fist of Fury II (a.k.a. Tschang Fu (the hammer of death))")."""
    while True:
        stripped = _PAREN.sub(" ", text)
        if stripped == text:
            return text
        text = stripped


def _clean(phrase: str) -> str:
    return " ".join(_without_parentheses(phrase).split()).strip(" ,;:-")


def _name_like(phrase: str, *, heading: bool) -> bool:
    """Short, starting with a capital, every word capitalised except linking words: a name, not a clause."""
    words = WORD.findall(phrase)
    if not words or len(words) > MAX_SUBJECT_WORDS or words[0].lower() in _NOT_A_NAME - _ARTICLES:
        return False
    if words[0].lower() in _ARTICLES - {"the"} and (len(words) < 2 or not words[1][0].isupper()):
        return False  # "A Nest of Noblemen" is a name, "A" alone or "A study" is not
    # an abbreviation ("St. Maurice") is fine; a sentence boundary before the copula is not
    if not heading and _CLAUSE_BREAK.search(phrase):
        return False
    if heading and phrase.rstrip().endswith((".", ":", "?", "!")):
        return False
    content = [w for w in words if w.lower() not in _LINKERS]
    return bool(content) and all(w[0].isupper() or w[0].isdigit() for w in content)


def document_subject(title: str, source: str, opening: str, *, max_words: int) -> tuple[str, bool]:
    """The name a document goes by in the graph, and whether it is its own title (else found in its text;
    "" when neither says)."""
    if usable_title(title, source, max_words):
        return title, True
    return untitled_subject(source, opening), False


def subject_variants(subject: str, opening: str = "") -> tuple[str, ...]:
    """Other ways prose writes a subject found in text: without a leading "The" ("The Limestone Coast" is
    "Limestone Coast" mid-sentence), a long personal name by its first and last word ("Henry Walter
    Moore" is "Henry Moore" elsewhere), and, for a person (the opening gives a birth or death date), by
    any of its given names or its quoted nickname and the last word ("David Ryan Adams" is "Ryan Adams",
    'Gian-Carla "Gia" Coppola' is "Gia Coppola"); plus the names the opening itself states."""
    words = _PAREN.sub(" ", subject).replace('"', " ").split()
    out = []
    if len(words) >= 2 and words[0].lower() == "the":
        out.append(" ".join(words[1:]))
    elif len(words) >= 3 and all(w[0].isupper() for w in words) and not any(w.lower() in _LINKERS for w in words):
        out.append(f"{words[0]} {words[-1]}")
        if _PERSON.match(_after(opening, subject, words[-1])):
            out += [f"{w} {words[-1]}" for w in words[1:-1]]
    return tuple(dict.fromkeys(out + list(stated_names(opening))))


_PERSON = re.compile(r"\s*[(\[](?:[^()\[\]]*\b(?:born|died|n[ée]e|c\.)\b|[^()\[\]]*\d{3,4})", re.I)
_STATED = re.compile(
    r"\b(?:(?:also|better|commonly|professionally|popularly|mononymously|simply|widely)\s+)?known\s+"
    r"(?:(?:professionally|also|mononymously|simply|popularly)\s+)?as\s+(?:simply\s+)?|"
    r"\ba\.k\.a\.?\s+|\bnicknamed\s+|\bstage name\s+|\bpen name\s+|\bborn\s+(?=[A-Z])")
_STATED_NAME = re.compile(r"[\"“']?([A-Z][^,;:()\[\]\"”.]{0,60}?)"
                          r"(?=[\"”']?\s*(?:[,;:()\[\]\"”]|\.\s|\.$|$| or | and | is | was ))")
OPENING_CHARS = 300
"""Only the opening sentence states a document's other names ("known professionally as Nicki Minaj");
later text names other people."""


def stated_names(opening: str) -> tuple[str, ...]:
    """Names the opening says its subject also goes by: "Robert Rihmeek Williams (born May 6, 1987), known
    professionally as Meek Mill, ...", "a.k.a. Chinese Connection 2", "(born Vladimir Blagonravov; ...)"."""
    head = opening[:OPENING_CHARS]
    out = []
    for m in _STATED.finditer(head):
        name = _STATED_NAME.match(head, m.end())
        if name is None:
            continue
        phrase = _clean(name.group(1))
        if _name_like(phrase, heading=False) and not any(ch.isdigit() for ch in phrase):
            out.append(phrase)
    return tuple(dict.fromkeys(out))


def _after(opening: str, subject: str, last: str) -> str:
    """The opening's text after the subject: after the subject itself when the opening starts with it, else
    after the first place its last word is written (the subject was cleaned of asides)."""
    if opening.startswith(subject):
        return opening[len(subject):]
    at = opening.find(last)
    return opening[at + len(last):] if at >= 0 else ""
