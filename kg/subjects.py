"""What a document is about, when its title cannot say: the subject of its opening sentence or its heading line.

The document layer links prose to documents by title. A corpus without usable titles (file stems such as
"jonas_meier", ids, empty titles, or 40-word paper titles no prose repeats) would get no links at all, yet
its documents are usually *about* something that they name first: "Ermengarde of Tours (died 851) was the
daughter of ...", a "Project Heron" heading line. The subject is found by shape alone (a short name-like
phrase before the first copula, or a short first line), never from ids or corpus order.

Internal documents have titles, but generic ones: six staff profiles titled "Staff profile", minutes
titled by their date, a policy headed by the organisation's banner. No question writes those, so the
graph never linked one. Such a document names its subject elsewhere: in a record's name field ("Name:
Amara Nwosu"), in a "<kind>: <name>" title ("Supplier profile: Brightwater Fuels"), in what its first
sentence says *is* something, or by naming one entity far more than any other (``generic_title_subject``).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePath

from kgrag.core.text import SENTENCE_END_INLINE, WORD, heading_line

MAX_SUBJECT_WORDS = 8
_COPULA = re.compile(r"\s(?:is|was|are|were|has been|had been|was once|is also|was also)\s", re.I)
_PAREN = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*")
_TRAILING_PAREN = re.compile(r"\s*\([^()]*\)\s*$")

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


def document_subject(title: str, source: str, opening: str, *, max_words: int, shared: int = 1
                     ) -> tuple[str, bool]:
    """The name a document goes by in the graph, and whether it is its own title (else found in its text;
    "" when neither says). ``shared``: how many documents of the corpus carry this title (kg.store), so a
    title several documents share counts as generic (``generic_title_subject``)."""
    if not usable_title(title, source, max_words):
        return untitled_subject(source, opening), False
    return (subject, False) if (subject := generic_title_subject(title, opening, shared=shared)) else (title, True)


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


def plain_name(name: str) -> str:
    """A record's name without a leading title of address or a trailing legal form, where two words remain
    ("Captain Ruth Penhallow" is written "Ruth Penhallow", "Orrin Dredging Ltd" "Orrin Dredging"); else the
    name itself."""
    words = without_honorific(name).split()
    if len(words) >= 3 and _LEGAL_FORM.match(words[-1]) and words[-2].lower() not in _LINKERS:
        words = words[:-1]
    return " ".join(words) if len(words) >= 2 else name


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


# -- generic titles ---------------------------------------------------------------------------------------
_KIND_NAME = re.compile(r"^(?P<kind>[^:|–—]{2,60}?)\s*(?::|\s[|–—-])\s+(?P<name>.+)$")
_CODE = re.compile(r"^(?=[A-Z0-9./-]*\d)[A-Z][A-Z0-9]*(?:[-/.][A-Z0-9]+)+$")
"""An identifier a title names its record by: "HB-2025-007", "CT-2024-031" (capitals, digits, separators)."""
MAX_KIND_WORDS = 4
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_DATE = re.compile(rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\.?,?\s+\d{{4}}"
                   rf"|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|{_MONTH}\.?\s+\d{{4}}"
                   r"|\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})\b", re.I)
MAX_DATED_WORDS = 2
"""A heading of a date and at most this many other words ("Minutes, 14 May 2025") says when, not what."""
_FIELD = re.compile(r"^(?:(?P<label>[A-Za-z]+)\s+)?name\s*(?::|\|)\s*(?P<value>\S.*)$", re.I)
_NOT_WHOLE_NAME = frozenset(("first", "last", "given", "family", "middle", "user", "file", "host", "domain",
                             "display", "nick", "sur"))
"""Field labels that hold part of a name, or the name of something other than the record's subject."""
FIELD_LINES = 12
"""A record's name field sits near its top: among this many lines below the title."""
_MARKUP = re.compile(r"\*\*|__|`|^[\s>*•#|+-]+|[\s|]+$")
_HONORIFIC = re.compile(r"^(?:mr|mrs|ms|miss|mx|dr|prof|professor|sir|dame|captain|capt|rev|reverend|cllr"
                        r"|councillor)\.?\s+(?=[A-Z])", re.I)
_LEGAL_FORM = re.compile(r"^(?:ltd|limited|plc|llc|llp|inc|corp|gmbh|ag|sa|bv|nv|pty|co)\.?$", re.I)
MIN_MAIN_MENTIONS = 2
"""The entity a document is most about is written at least this often, and more often than any other."""


def generic_title_subject(title: str, opening: str, *, shared: int = 1) -> str:
    """The subject of a document whose title does not name it ("" when the title is a name, or nothing
    better is found).

    A "<kind>: <name>" title names it after the colon ("Supplier profile: Brightwater Fuels"). A title
    several documents share ("Staff profile", an organisation's banner) or a dated heading ("Minutes, 14
    May 2025") names a kind of record, so the record's own name field, the name its first sentence says
    *is* something, the entity it writes far more than any other, or (under a shared banner) the heading
    below it name the document. A unique title without a proper name that its text never writes ("Contact
    card") gives way only to a name field: a unique descriptive title ("Skua drone" over "The Skua is an
    inspection drone ...", "Printing press") is still the document's name, and so is a sentence-case page
    title its text writes ("Nuit de chien is a 2008 film").
    """
    if named := kind_name(title):
        return named
    body = _below_title(opening, title)
    if shared > 1 or dated_heading(title):
        below = heading_line(body) if shared > 1 else None
        return (name_field(body) or _prose_subject(body) or main_entity(body)
                or (_clean(below) if below and ":" not in below and not _same(below, title) else ""))
    if not has_proper_name(title) and not _writes(body, title):
        return name_field(body)
    return ""


def kind_name(title: str) -> str:
    """The name in a "<kind>: <name>" title ("Supplier profile: Brightwater Fuels", "Staff profile – Amara
    Nwosu"), or a "<kind> <identifier>" one ("Incident report HB-2025-007"); "" when the part before the
    colon is itself a name ("Wrong Turn 2: Dead End", "Mystify: Michael Hutchence")."""
    title = " ".join(title.split())
    m = _KIND_NAME.match(title)
    if m is not None:
        kind, name = m.group("kind").strip(), _clean(m.group("name"))
        if _generic_kind(kind) and _name_like(name, heading=True):
            return name
        return ""
    words = title.split(" ")
    if len(words) >= 2 and _CODE.match(words[-1]) and _generic_kind(" ".join(words[:-1])):
        return words[-1]
    return ""


def _generic_kind(kind: str) -> bool:
    """A short phrase naming a kind of record: written in sentence case, with a common word after the first."""
    words = WORD.findall(kind)
    return (0 < len(words) <= MAX_KIND_WORDS and words[0][0].isupper() and not kind.isupper()
            and not has_proper_name(kind) and any(w[0].islower() and w.lower() not in _LINKERS for w in words[1:]))


def has_proper_name(title: str) -> bool:
    """Whether a title writes a name: a one-word or all-capitals title is one ("Teutberga", "HADAG"); a
    longer one needs a capital after its first word ("Rukn al-Dawla", "Incident report HB-2025-007";
    "Staff profile" and "About the agency" have none). A trailing "(film)" is no part of it."""
    words = WORD.findall(_TRAILING_PAREN.sub("", title))
    if not words:
        return False
    return len(words) == 1 or title.isupper() or any(ch.isupper() for w in words[1:] for ch in w)


def _writes(body: str, title: str) -> bool:
    """The text writes the title's words, in any case and with or without accents: it names itself by it
    ("Par la Fenetre is a 1948 French comedy film" under "Par la fenêtre")."""
    key = _words_key(_TRAILING_PAREN.sub("", title))
    return bool(key) and f" {key} " in f" {_words_key(body)} "


def _words_key(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text)
    return " ".join(WORD.findall("".join(ch for ch in plain if not unicodedata.combining(ch)).casefold()))


def dated_heading(title: str) -> bool:
    """A date and at most a couple of other words: "Minutes, 14 May 2025", "Board meeting 2025-03-12"."""
    if _DATE.search(title) is None:
        return False
    return len(WORD.findall(_DATE.sub(" ", title))) <= MAX_DATED_WORDS


def name_field(body: str) -> str:
    """The value of a record's name field near its top ("Name: Amara Nwosu", "**Name:** Tobias Renwick",
    "- Full name: ...", a table row "Name | Ruth Penhallow"), when it reads as a name."""
    for line in body.splitlines()[:FIELD_LINES]:
        m = _FIELD.match(_MARKUP.sub("", line.strip()))
        if m is None or (m.group("label") or "").lower() in _NOT_WHOLE_NAME:
            continue
        value = _clean(_MARKUP.sub("", m.group("value")))
        if _name_like(value, heading=True):
            return value
    return ""


def record_codes(opening: str) -> tuple[str, ...]:
    """Identifiers a record states for itself in a field near its top ("Project code: PR-2024-004",
    "Reference: CT-2024-031"): other documents and questions name it by them. A line of several fields (a
    table row read as "a: x; b: y") states no single code."""
    out = []
    for line in opening.splitlines()[:FIELD_LINES]:
        m = _CODE_FIELD.match(_MARKUP.sub("", line.strip()))
        if m is not None and _CODE.match(value := _MARKUP.sub("", m.group("value")).strip()):
            out.append(value)
    return tuple(dict.fromkeys(out))


_CODE_FIELD = re.compile(r"^(?:[A-Za-z]+\s+)?(?:code|id|no|number|ref|reference)\.?\s*(?::|\|)\s*(?P<value>[^;,]+)$",
                         re.I)


def _prose_subject(body: str) -> str:
    """What the first prose sentence says *is* something ("The Merrow Harbour Agency is the public body ..."):
    nothing from headings, fields or navigation lines, which have no copula to trust."""
    return _copula_subject(_first_sentence(body)[1])


def _first_sentence(body: str) -> tuple[int, str]:
    """The first sentence of the first prose line, and its offset in ``body`` ((len, "") when none)."""
    at = 0
    for line in body.splitlines(keepends=True):
        if len(WORD.findall(line)) >= PROSE_MIN_WORDS:
            lead = len(line) - len(line.lstrip())
            return at + lead, SENTENCE_END_INLINE.split(line.strip(), maxsplit=1)[0]
        at += len(line)
    return len(body), ""


PROSE_MIN_WORDS = 6
"""A line of at least this many words is prose, not a heading, a field or a navigation bar."""


def main_entity(body: str) -> str:
    """The entity the text is most about, by mentions and position: the first name of its first prose
    sentence, when the text writes it at least ``MIN_MAIN_MENTIONS`` times and more often than any other
    name ("Priya Raghunathan studied computer science ... Priya leads Project Lantern"). A given or family
    name written alone counts for the full name it belongs to. Minutes that open with who was present and
    name several people as often name none. Only a name of two words or more: one capitalised word is as
    often a term or an acronym ("RNAs", "GBM" in SciFact abstracts under a shared "Summary" title)."""
    runs = _name_runs(body)
    full = {name for name, _, _ in runs if " " in name}
    counts: dict[str, int] = {}
    offset, sentence = _first_sentence(body)
    lead = ""
    for name, start, initial in runs:
        owner = _owner(name, full, initial=initial)
        if owner:
            counts[owner] = counts.get(owner, 0) + 1
            if not lead and offset <= start < offset + len(sentence):
                lead = owner
    ranked = sorted(counts.values(), reverse=True)
    if " " not in lead or counts[lead] < MIN_MAIN_MENTIONS or counts[lead] < ranked[0] or ranked[1:2] == [ranked[0]]:
        return ""
    return lead


def _owner(name: str, full: set[str], *, initial: bool) -> str:
    """The name a run counts for: itself, or the one full name it opens or ends ("Brigid" for "Brigid
    Ashworth"); none for a word two names share, or one capitalised word at a sentence start ("Staff")."""
    if name in full:
        return name
    owners = [f for f in full if name in (f.split(" ")[0], f.split(" ")[-1])]
    if owners:
        return owners[0] if len(owners) == 1 else ""
    return "" if initial else name


_POSSESSIVE = re.compile(r"['’]s?$")
_CAPITAL_WORD = r"(?:[A-Z]\.|[A-Z][\w'’&-]*(?:\.[\w'’&-]+)*)"
"""A capitalised word, its dots only inside it ("U.S", an initial "R."): "Breakwater. Tobias" is two names."""
_NAME_RUN = re.compile(_CAPITAL_WORD + r"(?:[ \t]+(?:(?:" + "|".join(map(re.escape, _LINKER_WORDS.split())) +
                       r")[ \t]+)*(?:" + _CAPITAL_WORD + r"|\d[\w'’&-]*))*")
_AT_SENTENCE_START = re.compile(r"(?:[.!?:;*#>|\n]|\n[-*•]|\n\d+[.)])$")


def _name_runs(body: str) -> list[tuple[str, int, bool]]:
    """Runs of capitalised words (linking words allowed inside): (name, offset, at a sentence start). A
    sentence-initial function word is no part of the name ("At the Signal Station" is "Signal Station")."""
    out = []
    for m in _NAME_RUN.finditer(body):
        words = _POSSESSIVE.sub("", m.group(0).rstrip(".")).split()
        before = body[max(0, m.start() - 8):m.start()].replace(" ", "").replace("\t", "")
        initial = m.start() == 0 or not before or bool(_AT_SENTENCE_START.search("\n" + before))
        if initial:
            while words and words[0].lower() in _NOT_A_NAME:
                words = words[1:]
            while words and words[0].lower() in _LINKERS:
                words = words[1:]
        if words and not words[0][0].isdigit():
            out.append((" ".join(words), m.start(), initial and len(words) == len(m.group(0).split())))
    return out


def _below_title(opening: str, title: str) -> str:
    """The opening without the lines that only repeat the title (a Markdown heading, an HTML page's h1)."""
    return "\n".join(line for line in opening.splitlines() if not _same(line, title))


def _same(line: str, title: str) -> bool:
    return WORD.findall(line.lower()) == WORD.findall(title.lower())


def without_honorific(name: str) -> str:
    """"Captain Ruth Penhallow" is written "Ruth Penhallow" too."""
    return _HONORIFIC.sub("", name)
