"""Does the evidence answer the question? The check every backend's answer goes through first.

Similarity says a passage is *about* the question's words; it cannot say the passage *answers*
it. "What is Marcus Hale's salary?" sits close to "Marcus Hale is Head of Security", and "What is
the capital of Australia?" close to "Tallinn is the capital of Estonia". So before any answerer
runs, the passages it would see are checked for what an answer needs:

* **The question's names.** Every named entity the question writes (spaCy NER, plus proper nouns
  NER misses) must be mentioned by some passage, or its title: "no passage mentions Australia".
* **Its key terms, beside those names.** The nouns and superlatives that say *what about* the
  entity is asked ("salary", "stock price", "largest customer"): most of them must appear in the
  passages that mention the question's names (the *anchors*), matched by stem ("employees" ~
  "employs"), by a few derivations prose writes instead ("birth" ~ "born"), and any family
  relation by any other ("X's father" is written "Y, son of X"). Answer-type nouns ("which city"),
  generic ones ("company") and comparatives are not required: they describe the answer, not a
  constraint on it.
* **The kind of answer asked for.** A salary or price needs an amount of money, "when" a date,
  "where" a place, "who" a person or organisation: a value of that kind (NER label, or a typed
  pattern for money and years) that the question does not already name must appear in an anchor
  or, when the question describes a chain with its terms, in a passage an anchor leads to by naming
  its title (the second hop: "developed under Project Heron" → the passage titled "Project Heron").

What is missing is named in the refusal ("no passage gives a salary for Marta Kask"). Plain
English morphology and NER only: nothing here knows a dataset.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kgrag.kg.subjects import generic_title_subject, name_field
from kgrag.retrieval.answer.base import Passage

ALTERNATIVES = re.compile(
    r"(?:,|\bout of|\bbetween)\s+(?P<a>[^,?]+?)\s+(?:or|and)\s+(?P<b>[^,?]+?)\s*\?*\s*$", re.IGNORECASE)
"""A comparison's two sides: "…, A or B?", "… out of A and B?", "… between A and B?"."""
_WHEN_COMPARED = re.compile(r"\b(first|earlier|later|older|younger|longer|born|died|released|founded|"
                            r"established|opened|published)\b")

_MONEY_VALUE = re.compile(
    r"[$€£¥]\s?\d|\b\d[\d,.]*\s*(?:thousand|million|billion|[mbk]n?)?\s*(?:us\s+)?(?:dollars?|euros?|pounds?|"
    r"kroner|kronor|krona|yen|francs?|usd|eur|gbp|nok|sek|dkk|chf)\b", re.IGNORECASE)
_YEAR_VALUE = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")
_NUMBER_VALUE = re.compile(r"\b\d[\d,.]*\b")
_TIME_VALUE = re.compile(r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)|\b(?:noon|midnight)\b",
                         re.IGNORECASE)
"""A time of day ("05:55", "6 pm"): a date is none."""
IDENTIFIER = re.compile(
    r"(?<![\w-])(?=[A-Za-z0-9/.-]*\d)(?=[A-Za-z0-9/.-]*[A-Z])[A-Z0-9]+(?:[-/.][A-Za-z0-9]+)+(?![\w-])")
"""An identifier ("AB-2025-007", "NW-7731-X"): one name, whatever the tokenizer made of its dashes; the
answer to "which budget code …", however NER read it."""


@dataclass(frozen=True, slots=True)
class AnswerKind:
    """What an answer to the question is: ``labels`` are the NER labels it carries (the extractive
    answerer ranks by them), ``accept`` what the support check takes as one (a little wider: "where
    did she study?" is answered by a university), ``value`` a pattern for values NER may miss."""

    name: str
    labels: frozenset[str]
    accept: frozenset[str] = frozenset()
    value: re.Pattern[str] | None = None
    strict: bool = False
    """An answer must match ``value``, whatever its label: a year is a DATE but no duration ("how long")."""

    def found_in(self, entities: Sequence[tuple[str, str]], text: str, question: str) -> bool:
        """An entity of this kind that the question does not name, or a typed value, is in ``text``."""
        q = question.casefold()
        wanted = self.labels | self.accept
        if self.strict:
            wanted = frozenset()  # only the pattern says it is one
        if any(label in wanted and name.casefold() not in q for name, label in entities):
            return True
        return self.value is not None and any(m.group(0).casefold() not in q for m in self.value.finditer(text))


def _kind(name: str, labels: str, accept: str = "", value: re.Pattern[str] | None = None, *,
          strict: bool = False) -> AnswerKind:
    return AnswerKind(name, frozenset(labels.split()), frozenset(accept.split()), value, strict)


_COUNT_WORDS = (r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|"
                r"thirty|forty|fifty|sixty|ninety|hundred|a|an|half an?)")
_MEASURE_VALUE = re.compile(
    rf"\b{_COUNT_WORDS}[\s-]*(?:seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?|decades?|"
    r"centuries|century|mm|cm|m|km|metres?|meters?|kilometres?|kilometers?|feet|foot|ft|inch(?:es)?|miles?|"
    r"nautical miles?|yards?)\b", re.IGNORECASE)
"""A length or a duration: a number with its unit ("thirty days", "14.2 metres")."""
_FREQUENCY_VALUE = re.compile(
    rf"\bevery\s+(?:{_COUNT_WORDS}\s+)?(?:other\s+)?\w+|\b(?:daily|weekly|fortnightly|monthly|quarterly|"
    rf"annually|yearly|hourly|biennially)\b|\b(?:once|twice|{_COUNT_WORDS} times)\s+(?:a|an|per|each|every)\s+\w+",
    re.IGNORECASE)
"""How often: "every five years", "annually", "twice a year"."""


_MONEY_NOUNS = (r"salary|salaries|wage|wages|income|price|prices|cost|costs|revenue|revenues|turnover|"
                r"budget|fee|fees|valuation|profit|profits|bonus")
_KINDS: tuple[tuple[re.Pattern[str], AnswerKind | None], ...] = tuple(
    (re.compile(pattern), kind) for pattern, kind in (
        (r"\b(which|what) (?:[\w-]+ ){0,2}(?:code|reference|identifier|(?:reference|contract|order|project|account|"
         r"serial|registration|licence|license|policy|case|ticket|invoice|file) number)\b",
         _kind("an identifier", "CODE", "", IDENTIFIER)),
        (r"\b(which|what) (person|man|woman)\b", _kind("a person", "PERSON")),
        (r"\b(which|what) (organi[sz]ation|company|firm|institute|university|school|shipyard|yard|maker|"
         r"manufacturer|band|team|club|party|agency)\b", _kind("an organisation", "ORG")),
        (r"\b(which|what) nationality\b", _kind("a nationality", "NORP", "GPE")),
        (r"\b(which|what) country\b", _kind("a country", "GPE", "NORP")),
        (r"\b(which|what) (city|town|place|region|state|village)\b|\bwhere\b|\bplace of\b",
         _kind("a place", "GPE LOC FAC", "ORG")),
        (r"\b(which|what) time\b", _kind("a time of day", "TIME", "", _TIME_VALUE, strict=True)),
        (r"\bwhen\b|\b(which|what) (year|date|day|month|century)\b|\b(date|year) of\b|\bbirthday\b",
         _kind("a date", "DATE", "", _YEAR_VALUE)),
        (r"\bhow often\b|\bhow frequently\b", _kind("a frequency", "DATE TIME", "", _FREQUENCY_VALUE, strict=True)),
        (r"\bhow long\b", _kind("a length or duration", "DATE TIME QUANTITY CARDINAL", "", _MEASURE_VALUE,
                                 strict=True)),
        (r"\bhow much\b.*\b(pay|paid|pays|cost|costs|spend|spent|earn|earned|earns|sell|sold|buy|bought|charge|"
         r"charged|raise|raised|worth)\b", _kind("an amount of money", "MONEY", "", _MONEY_VALUE)),
        (r"\bhow (much)\b", _kind("an amount", "MONEY QUANTITY CARDINAL PERCENT", "", _NUMBER_VALUE)),
        (rf"\b(?P<noun>{_MONEY_NOUNS})\b", _kind("an amount of money", "MONEY", "", _MONEY_VALUE)),
        (r"\bhow (many)\b", _kind("a number", "CARDINAL QUANTITY MONEY PERCENT", "", _NUMBER_VALUE)),
        (r"\bwho(m|se)?\b", _kind("a person or organisation", "PERSON ORG", "NORP GPE")),
    )
)
"""Question forms and the kind of answer they ask for (first match wins)."""

_TIME_COMPARISON = _kind("a date", "DATE", "", _YEAR_VALUE)


_WH_WORD = re.compile(r"\b(?:which|what|who|whom|whose|where|when|how)\b")
_SUBORDINATE = re.compile(r"\b(?:when|where|while|after|before|since|until|who|whom|whose|which)\b")
"""After the question's own wh-word, a clause that times, places or describes what it asks about ("staff who
drive their own cars"), not the answer."""


def answer_kind(question: str) -> AnswerKind | None:
    """What an answer to ``question`` is, or None when its form does not say. A comparison in time
    ("who lived longer, A or B?") is settled by dates, whatever its wh-word."""
    q = question.casefold()
    if ALTERNATIVES.search(q) and _WHEN_COMPARED.search(q):
        return _TIME_COMPARISON
    first = _WH_WORD.search(q)
    if first is not None and (later := _SUBORDINATE.search(q, first.end())) is not None:
        q = q[:later.start()]  # "which ship was being fuelled when the coupling split?" asks for a ship
    for pattern, kind in _KINDS:
        match = pattern.search(q)
        if match is not None and kind is not None:
            noun = match.groupdict().get("noun")
            return AnswerKind(f"a {noun}", kind.labels, kind.accept, kind.value, kind.strict) if noun else kind
    return None


def answer_labels(question: str) -> frozenset[str]:
    """The NER labels an answer to ``question`` would carry; empty when the form says nothing."""
    kind = answer_kind(question)
    return kind.labels if kind is not None else frozenset()


_NOT_CONSTRAINTS = frozenset({
    # the answer's own kind ("which city"), not a constraint on it
    "city", "town", "country", "place", "region", "state", "village", "year", "date", "day", "month", "century",
    "person", "people", "organisation", "organization", "company", "firm", "business", "nationality", "name",
    "amount", "number", "role", "post", "position", "job",
    # the measure asked ("how much food, by weight"): the answer's unit says it
    "weight", "length", "height", "depth", "width", "size", "volume", "distance", "duration", "quantity", "total",
    # words too general to constrain anything
    "thing", "kind", "type", "part", "one", "lot", "way", "time", "most", "many", "much", "more", "other", "same",
    "member",  # "a member of staff": the staff say who
    "such", "own", "few", "several", "certain", "which", "what", "whose",
})
VALUE_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "QUANTITY", "PERCENT"})
"""NER labels of values rather than names: an answer, never a subject."""
_SOFT_LABELS = frozenset({"NORP"})
"""Nationalities are written as adjectives and nouns alike ("Norwegian", "Norway"): checked as terms."""

_KIN = ("father", "mother", "parent", "parents", "child", "children", "son", "daughter", "wife", "husband", "spouse",
        "married", "brother", "sister", "sibling", "grandfather", "grandmother", "grandson", "granddaughter",
        "grandchild", "uncle", "aunt", "nephew", "niece", "cousin", "stepmother", "stepfather", "stepson",
        "stepdaughter", "heir", "widow", "widower", "consort", "paternal", "maternal")
"""Family relations: prose states one by another ("X's father" is written "Y, son of X"), so any of them
stands for any other (and "in-law" for all)."""
_DERIVED: dict[str, tuple[str, ...]] = {
    "birth": ("born",), "birthplace": ("born",), "death": ("died", "dies", "dead"), "burial": ("buried",),
    "marriage": ("married", "wife", "husband"), "founder": ("founded", "started", "established", "set up"),
    "owner": ("owns", "owned"), "director": ("directed", "directs"), "composer": ("composed",),
    "author": ("wrote", "written"), "writer": ("wrote", "written"), "producer": ("produced",),
    "performer": ("performed", "singer", "sung", "recorded", "band"), "creator": ("created",),
    "employee": ("employs", "employed", "staff", "people"), "movie": ("film",), "film": ("movie",),
    **{kin: _KIN for kin in (*_KIN, "law")},
}
_RELATIONAL = frozenset({*_KIN, "law", "founder", "owner", "director", "composer", "author", "writer", "producer",
                         "performer", "creator"})
"""Nouns that lead to another entity ("the director of film X"): what is asked about *them* is in that
entity's own passage, one hop on."""
"""Words prose writes instead of the question's noun (plain English morphology and family relations, not a
dataset's)."""


@dataclass(frozen=True, slots=True)
class Term:
    lemma: str
    text: str
    """As the question writes it ("employees", "date of birth"), for the refusal."""
    noun: bool
    plural: bool = False


@dataclass(frozen=True, slots=True)
class Needs:
    """What an answer to a question must rest on."""

    question: str
    entities: tuple[str, ...]
    terms: tuple[Term, ...]
    kind: AnswerKind | None
    cues: tuple[tuple[str, ...], ...] = ()
    """The question's content words, verbs included ("born", "studied"), each as its written form and
    lemma ("owns", "own"): what a sentence that answers it is likely to write, and where its answer
    follows."""
    described: bool = False
    """The question describes something by a common noun ("the company that acquired …", "the founder of
    …"), so its answer may sit one hop away; "Who leads Project Heron?" describes nothing: its answer is
    about the name it writes."""
    root: tuple[str, ...] = ()
    """The question's main verb, when it has one ("study" in "where did … study?"): the relation the
    answer is in."""
    clause: bool = False
    """A clause describes something ("the art transport firm used for the exhibition that budget line BL-15
    pays"): a chain of hops, each through a document whose title need not name the next."""


@dataclass(frozen=True, slots=True)
class Support:
    """The check's outcome: ``missing`` names what no passage gave (empty when the evidence holds)."""

    needs: Needs
    missing: tuple[str, ...] = ()
    anchors: tuple[int, ...] = field(default=())
    """Numbers of the passages that mention the question's names."""

    @property
    def ok(self) -> bool:
        return not self.missing

    @property
    def reason(self) -> str:
        if self.ok:
            return ""
        text = "; ".join(self.missing)
        return text[:1].upper() + text[1:] + "."


def _numbered_name(name: str, doc: Any) -> str:
    """"Blast chiller 2" or "Kiln 3", not "Blast" or "Kiln": a name that goes on (by a common noun or two) to a
    number is one name with it (a unit, a machine, a berth), and the number is no value the question gives."""
    at = doc.text.find(name)
    if at < 0:
        return name
    span = doc.char_span(at, at + len(name), alignment_mode="expand")
    if span is None:
        return name
    i = span.end
    while i < len(doc) and i - span.end < 2 and doc[i].is_lower and doc[i].is_alpha and not doc[i].is_stop and \
            doc[i].pos_ not in ("VERB", "AUX", "ADP", "PRON", "DET", "CCONJ", "SCONJ", "PART"):  # the tagger calls
        # "oven" in "Tunnel oven 2" an adverb
        i += 1
    if i >= len(doc) or not doc[i].like_num or doc[i].ent_type_ in ("DATE", "TIME") or not doc[i].is_digit:
        return name
    return doc[span.start:i + 1].text


def _clean(name: str) -> str:
    name = re.sub(r"['’]s$", "", name.strip()).strip(" ?.,;:!\"'")
    return re.sub(r"^(the|a|an)\s+", "", name, flags=re.IGNORECASE)


def _adjacent_joined(spans: list[tuple[int, int]], doc: Any) -> list[tuple[int, int]]:
    """Name spans that touch made one: NER's "Digital Systems" (an organisation) and the proper noun "Lead" after
    it are the role "Digital Systems Lead", not two names each sought on its own ("Lead" is in every profile).
    So are two joined by "and" that together name a common noun after them: "the Thread and Tide exhibition" is
    one exhibition, where "Anna Reid and Tomas Berg" are two people."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        titled = out and start == out[-1][1] + 1 and doc[out[-1][1]].lower_ in ("and", "&") and end < len(doc) \
            and doc[end].pos_ == "NOUN" and end in (doc[end - 1].head.i, doc[out[-1][1] - 1].head.i)
        if out and (start == out[-1][1] or titled):
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
    return out


def question_needs(question: str, nlp: Any, irregular: Mapping[str, tuple[str, ...]] | None = None) -> Needs:
    """The names, key terms and answer kind of ``question`` (spaCy's tagger and NER on the question). A
    title's disambiguator ("Fortunella (Film)") is left out: it names no constraint of its own."""
    doc = nlp(_DISAMBIGUATOR.sub("", question))
    spans: list[tuple[int, int]] = []
    covered: set[int] = set()
    for ent in doc.ents:
        # "Lisbeth Palme's husband" as one span: the name ends at the possessive, the relation is a term
        end = next((t.i for t in ent if t.tag_ == "POS"), ent.end)
        covered.update(range(ent.start, end + (end < ent.end)))
        soft = ent.label_ in _SOFT_LABELS and not (len(ent) > 1 and all(t.pos_ == "PROPN" for t in ent))
        if ent.label_ in VALUE_LABELS or soft or end == ent.start:  # "Amara Nwosu" is no nationality
            continue
        spans.append((ent.start, end))
    run: list[int] = []
    for tok in [*doc, None]:
        joined = tok is not None and run and tok.text == "-" and not doc[run[-1]].whitespace_  # "Semi-Tough"
        if tok is not None and ((tok.pos_ == "PROPN" and tok.i not in covered and tok.i > 0) or joined):
            run.append(tok.i)
            continue
        if run:
            spans.append((run[0], run[-1] + 1))
            run = []
    joined = _adjacent_joined(spans, doc)
    entities = [doc[start:end].text for start, end in joined]
    titles = {doc[start:end].text for start, end in joined if any(t.lower_ in ("and", "&") for t in doc[start:end])}
    for code in IDENTIFIER.finditer(doc.text):  # "AB-2025-007" whole: NER cuts it at a dash
        entities = [e for e in entities if e.strip(" -") not in code.group(0)] + [code.group(0)]
    entities = [_numbered_name(e, doc) for e in entities]
    sides = _EITHER.search(doc.text.strip())
    if sides is not None:  # a comparison names exactly its two sides, whatever NER made of them
        entities = [sides["a"], sides["b"]]
    names: list[str] = []
    for entity in entities:
        for part in [entity] if entity in titles else re.split(r"\s+(?:and|or)\s+|,\s*", entity):
            name = _clean(part)
            if len(name) > 1 and name.casefold() not in (n.casefold() for n in names):
                names.append(name)
    entities = names
    irregular = irregular_forms(nlp) if irregular is None else irregular
    root = _root(doc, covered, irregular)
    terms: dict[str, Term] = {}
    for tok in doc:
        soft = tok.ent_type_ in _SOFT_LABELS
        if (tok.i in covered and not soft) or (root and tok.i == root[0]):  # the verb is the relation, not a term
            continue
        wanted = soft or tok.pos_ == "NOUN" or (tok.pos_ == "ADJ" and tok.tag_ != "JJR")
        lemma = tok.lemma_.casefold() if not soft else tok.text.casefold()
        if not wanted or len(lemma) < 3 or lemma in _NOT_CONSTRAINTS or not lemma.isalpha():
            continue
        terms.setdefault(lemma, Term(lemma, _phrase(tok), tok.pos_ == "NOUN", tok.tag_ in ("NNS", "NNPS")))
    cues = tuple(dict.fromkeys(_forms(t, irregular) for t in doc if t.pos_ in ("NOUN", "VERB", "ADJ") and not t.is_stop
                               and len(t.text) > 2))
    # the main verb is no description, even where the tagger calls it a noun ("where does Jonas Meier work?")
    described = any(t.pos_ == "NOUN" and t.i not in covered and not (root and t.i == root[0]) for t in doc)
    clause = any(t.dep_ in ("relcl", "acl") and t.pos_ in ("VERB", "AUX") for t in doc)
    return Needs(question, tuple(entities), tuple(terms.values()), answer_kind(question), cues, described,
                 root[1:], clause)


_AUX_QUESTION = re.compile(r"^\W*(where|when|who|whom|which|what|how)\b.*\b(did|does|do|was|were|is|are|has|have)\b",
                           re.IGNORECASE)


_EITHER = re.compile(r",\s*(?P<a>[^,?]+?)\s+or\s+(?P<b>[^,?]+?)\s*\?\s*$", re.IGNORECASE)
"""A choice between two named sides: "Which film came out first, A or B?"."""
_DISAMBIGUATOR = re.compile(r"\s*\([^)]*\)")


def _root(doc: Any, covered: set[int], irregular: Mapping[str, tuple[str, ...]]) -> tuple[Any, ...]:
    """The question's main verb: its token index, then its forms; () when it has none. "Where did X
    study?" and "When was X founded?" end on it (the small parser often takes it for a noun there);
    otherwise the parse's root, when it is a verb."""
    words = [t for t in doc if not t.is_punct]
    aux = _AUX_QUESTION.search(doc.text)
    last = words[-1] if words else None
    if aux is not None and last is not None and last.i not in covered and last.is_alpha and (
            last.pos_ == "VERB" or (last.pos_ == "NOUN" and aux.group(2).lower() in ("did", "does", "do"))):
        return (last.i, *_forms(last, irregular))
    roots = [t for t in doc if t.dep_ == "ROOT" and t.pos_ == "VERB" and not t.is_stop]
    return (roots[0].i, *_forms(roots[0], irregular)) if roots else ()


def _phrase(tok: Any) -> str:
    """The term as the refusal names it: with the noun it completes, "date of birth" for "birth"."""
    head = tok.head
    if tok.dep_ == "pobj" and head.lower_ == "of" and head.head.pos_ == "NOUN" and head.head.i < tok.i:
        return f"{head.head.text} of {tok.text}"
    return tok.text


def _forms(tok: Any, irregular: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The word as written, its lemma, and the lemma's irregular forms: "led" is how prose writes the
    "leads" of "who leads …?", and no prefix of "lead" finds it."""
    lemma = tok.lemma_.casefold()
    return tuple(dict.fromkeys((tok.text.casefold(), lemma, *irregular.get(lemma, ()))))


def irregular_forms(nlp: Any) -> Mapping[str, tuple[str, ...]]:
    """Lemma → its irregular verb forms ("lead" → "led", "buy" → "bought"), read from the exception table of
    the pipeline's own lemmatizer; empty for a pipeline without one. About 1.4 ms: a long-lived holder of the
    pipeline (the extractive answerer) reads it once and passes it in."""
    forms: dict[str, list[str]] = {}
    try:
        table = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_exc").get("verb") or {}
    except (KeyError, ValueError, AttributeError):
        table = {}
    for form, lemmas in table.items():
        for lemma in lemmas:
            if form != lemma and form.isalpha():
                forms.setdefault(lemma, []).append(form)
    return {lemma: tuple(sorted(f)) for lemma, f in forms.items()}


def stem(term: str) -> str:
    """A word's first letters, the prefix its other forms share ("employ" for "employees")."""
    return term[: max(4, len(term) - 3)] if len(term) > 4 else term


def _has_term(term: Term, text: str) -> bool:
    """The term's stem starting a word ("employ" in "employs"), or a derivation prose writes instead as a
    word of its own ("born", but not the "-born" of "Nigerian-born", which says where, not when)."""
    if re.search(rf"\b{re.escape(stem(term.lemma))}", text):
        return True
    return any(re.search(rf"(?<![\w-]){re.escape(f)}(?!\w)", text) for f in _DERIVED.get(term.lemma, ()))


def _mentions(name: str, text: str, raw: str = "", everything: str = "") -> bool:
    """``name`` in ``text`` (both case-folded): whole, or, for a person's full name, the surname alone, where
    ``raw`` (the text as written) writes it as a name of its own: "Palme" for "Lisbeth Palme", but not the
    "Packaging" of "Tarnside Packaging" for "Arncliffe Packaging", nor a common word ("packaging")."""
    n = name.casefold()
    if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text):
        return True
    parts = n.split()
    if not (len(parts) >= 2 and len(parts[-1]) >= 4 and parts[0][:1].isalpha()):
        return False
    if not raw:
        return bool(re.search(rf"(?<!\w){re.escape(parts[-1])}(?!\w)", text))
    runs = [run for m in re.finditer(rf"(?<!\w){re.escape(parts[-1])}(?!\w)", raw, re.IGNORECASE)
            if (run := _capitalised_run_before(raw, m.start())) is not None]
    if any(run and _own_run(run, parts) for run in runs):
        return True
    # the word alone ("Renwick signed", "Role: Clinic lead") is the name's own unless it is the shared head of
    # other names in the passages (``everything``): beside "Tyneview Clinic" and "Newgate Clinic", a bare
    # "Clinic" is no mention of a "Tynemouth Clinic" (one other name, "his father Gershom Mott", leaves "Mott"
    # to the person the passage is about)
    if not any(not run for run in runs):
        return False
    heads = re.finditer(rf"(?<!\w){re.escape(parts[-1])}(?!\w)", everything or raw, re.IGNORECASE)
    others = {" ".join(run) for m in heads if (run := _capitalised_run_before(everything or raw, m.start()))}
    return len(others) < 2


_HONORIFICS = frozenset(("mr", "mrs", "ms", "miss", "dr", "sir", "dame", "lady", "lord", "prof", "professor",
                         "captain", "capt", "rev"))


def stop_words() -> Collection[str]:
    """spaCy's English stop words, imported where they are read, not at the top: `kgrag --help` imports no spaCy
    (after the first call the import is a lookup in sys.modules; no module-level cache)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return STOP_WORDS


def _capitalised_run_before(raw: str, at: int) -> list[str] | None:
    """The capitalised words written just before the word at ``at`` (case-folded, a sentence's opening "The" or
    "Our" dropped), or None where that word is not capitalised (a common word, "packaging")."""
    if not raw[at:at + 1].isupper():
        return None
    before = re.search(r"(?:[A-Z][\w'’-]*\.?\s+)+$", raw[max(0, at - 80):at])
    if before is None:
        return []
    run: list[str] = []
    for word in reversed(before.group(0).split()):
        bare = word.rstrip(".").casefold()
        if word.endswith(".") and len(bare) > 1 and bare not in _HONORIFICS:
            break  # a sentence ended there ("… Fairweather. Dr Renwick")
        run.insert(0, bare)
    while run and run[0] in stop_words():  # "The", "Our" open a sentence
        run.pop(0)
    return run


def _own_run(run: Sequence[str], parts: Sequence[str]) -> bool:
    """The capitalised words before the name's last word are its own: they start with its first word and write
    every word between ("Helen Ann Marsh" for "Helen Marsh", but "Kestrel Therapy Systems" is no "Kestrel Rehab
    Systems"), start with a title ("Dr Marsh"), or are all the name's own words ("Gare de La Roche-sur-Yon" for a
    question's "Are Gare De La Roche-Sur-Yon"); "North Breakwater Renewal" is no mention of the "South Breakwater
    Renewal", nor "Olof Palme" of "Lisbeth Palme"."""
    middle = [p for p in parts[1:-1] if len(p) > 2 and not p.endswith(".") and p not in stop_words()]  # not "P."
    return (run[0] == parts[0] and all(p in run for p in middle)) or run[0] in _HONORIFICS or \
        all(w in parts for w in run)


def _title_name(title: str) -> str:
    return re.sub(r"\s*\([^)]*\)\s*$", "", title).strip().casefold()


def check_support(question: str, passages: Sequence[Passage], nlp: Any, in_corpus: Collection[str] = ()) -> Support:
    """Whether ``passages`` hold what an answer to ``question`` needs; see the module docstring. ``in_corpus``:
    names (case-folded) the corpus is known to hold (the graph linked them whole); one of them missing from the
    passages is context, not an absent thing, while another of the question's names anchors them."""
    needs = question_needs(question, nlp)
    if not passages:
        return Support(needs, ("no passage matched the question",))
    raws = [f"{p.name}\n{p.text}" for p in passages]
    texts = [r.casefold() for r in raws]
    missing: list[str] = []
    about = " and ".join(needs.entities)
    everything = "\n. \n".join(raws)  # no run of capitalised words crosses a passage's end
    absent = [e for e in needs.entities
              if not any(_mentions(e, t, r, everything) for t, r in zip(texts, raws, strict=True))]
    if absent and len(absent) < len(needs.entities) and all(e.casefold() in in_corpus for e in absent):
        needs = replace(needs, entities=tuple(e for e in needs.entities if e not in absent))
        absent = []
    if absent:
        missing.append("no passage mentions " + " or ".join(absent))
        return Support(needs, tuple(missing))
    anchors = [i for i, t in enumerate(texts) if any(_mentions(e, t, raws[i], everything) for e in needs.entities)] \
        if needs.entities else list(range(len(passages)))
    # most of the terms, not each: prose paraphrases one now and then ("the performer of song X" is
    # "a single by Y"), while a question the passages do not answer misses what it is about outright
    terms = () if ALTERNATIVES.search(question.strip()) else needs.terms  # a comparison's terms are its sides'
    scope = set(anchors)
    if any(t.lemma in _RELATIONAL for t in terms):  # "the place of birth of X's husband": birth is one hop on
        scope |= _hop(passages, texts, anchors)
    # budget line → exhibition → transport firm: each passage names the next one's subject
    chained = _chain(passages, texts, anchors) if needs.clause else set()
    scope |= chained
    lacking = [t for t in terms if not any(_has_term(t, texts[i]) for i in scope)]
    if lacking and 2 * len(lacking) > len(terms):
        missing.append(_lacking(lacking, about))
    kind = needs.kind
    if kind is not None and not missing:
        # the anchors that carry the question's terms, and the passages they name by title (a second hop)
        carriers = [i for i in anchors if not needs.terms or any(_has_term(t, texts[i]) for t in needs.terms)]
        # a second hop only when the question describes one ("the firmware project for the Wren-3"): asked
        # about a name alone ("how much is Marcus Hale paid?"), the answer must be about that name
        reach = set(carriers) | (_hop(passages, texts, carriers) if needs.terms else set()) | chained
        docs = list(nlp.pipe([passages[i].text for i in sorted(reach)],
                             disable=[n for n in nlp.pipe_names if n not in ("ner", "tok2vec")]))
        if not any(kind.found_in([(e.text, e.label_) for e in d.ents], d.text, question) for d in docs):
            missing.append(f"no passage gives {kind.name}" + (f" for {about}" if about else ""))
    return Support(needs, tuple(missing), tuple(passages[i].number for i in anchors))


def _hop(passages: Sequence[Passage], texts: Sequence[str], start: Sequence[int]) -> set[int]:
    """The passages that ``start``'s passages lead to by naming their title."""
    out: set[int] = set()
    for j, p in enumerate(passages):
        name = _title_name(p.name)
        if len(name) > 2 and any(j != i and name in texts[i] for i in start):
            out.add(j)
    return out


_CHAIN_HOPS = 2


def _chain(passages: Sequence[Passage], texts: Sequence[str], start: Sequence[int]) -> set[int]:
    """The passages ``start``'s lead to in up to ``_CHAIN_HOPS`` steps, each naming the next one's document by
    its title or, under a generic title ("SUPPLIER", "Staff profile"), by the subject its record names."""
    names = [_title_name(generic_title_subject(p.title, p.text if not p.position else "") or name_field(p.text)
                         or p.name) for p in passages]
    seen, frontier = set(start), set(start)
    for _ in range(_CHAIN_HOPS):
        frontier = {j for j, name in enumerate(names) if j not in seen and len(name) > 2
                    and any(name in texts[i] for i in frontier)}
        seen |= frontier
    return seen


def _lacking(terms: Sequence[Term], about: str) -> str:
    """"no passage gives a salary for Marta Kask"; for words that are not nouns ("bankrupt"), "no passage
    about Aalto Shipyards says 'bankrupt'"."""
    texts = [t.text for t in terms]
    what = " ".join(x for x in texts if not any(x != y and x in y.split(" of ") for y in texts))
    if terms[-1].noun:
        article = "" if terms[-1].plural else _article(what) + " "
        return f"no passage gives {article}{what}" + (f" for {about}" if about else "")
    return f"no passage {f'about {about} ' if about else ''}says {what!r}"


def _article(phrase: str) -> str:
    """"a" or "an" by the sound of the first letters ("a university", "an hour" aside: good enough)."""
    low = phrase.casefold()
    return "an" if low[:1] in "aeio" or (low[:1] == "u" and not low.startswith(("uni", "use", "usu"))) else "a"
