"""Does a sentence *state* the answer? The relation a question asks about, read off the dependency parse.

An entity of the asked-for kind near the question's names is not an answer. "Which shipyard built the
Kelpie?" is not answered by "the Halvorsen Foundation" in the same passage, nor "where was Ingrid
Halvorsen born?" by the city she studied in, nor "when was Samuel Okafor born?" by the year he took
over his institute. A short answer is given only where one sentence states the relation itself:

* **The relation** is the question's main verb ("built", "founded", "born"), or, when that is a light
  verb ("who is the founder of …", "how many employees does … have"), the noun it links. A sentence
  states it with the same word or one of its common paraphrases (``RELATIONS``: "bought" for
  "acquired", "directed" for "leads", "set up" for "founded"): plain English, not any corpus's words.
* **The answer fills the slot the question's wh-word fills**: the doer for "who/which X built …"
  (the verb's subject, or its "by" agent in the passive), the thing done to for "what did … build",
  a place or date hung on the verb by a preposition for "where/when", the number counting the asked
  noun for "how many". It must hang on the relation word within a few dependency links, without
  passing through another clause's verb: "founded it in 2014 after leaving Tallinn University" gives
  the founder, not the university.
* **The sentence is about the question's subject**: it names it (or a pronoun or "the company"
  stands for the passage's own subject), or, for a question that describes its subject ("the company
  that acquired Lumen Robotics"), it names a bridge that another sentence ties to the question's
  names with the description's words ("Lumen Robotics was bought by Northwind Dynamics"); that
  sentence is cited too.

Where a sentence about the subject uses the relation but fills no slot of the asked kind, or gives a
value of that kind for another relation, the question is answered by a refusal that says so ("No
passage says where Ingrid Halvorsen was born: Trondheim is given for “studied”"), never by the nearby
entity. spaCy's small English pipeline (the graph's own) does the parsing; nothing here knows a dataset.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from kgrag.kg.subjects import kind_name, name_field
from kgrag.retrieval.answer.base import Passage
from kgrag.retrieval.answer.support import IDENTIFIER, VALUE_LABELS, AnswerKind, answer_kind, stem, stop_words

Role = Literal["subject", "object", "adverbial", "count", "attribute"]

_GROUPS: tuple[tuple[str, ...], ...] = (
    ("found", "founder", "cofound", "start", "begin", "establish", "set", "create", "launch", "form", "founding"),
    ("build", "builder", "make", "maker", "construct", "manufacture", "manufacturer", "produce", "producer",
     "deliver", "shipyard", "yard", "complete", "finish"),
    ("lead", "leader", "head", "direct", "director", "run", "manage", "manager", "chair", "chief", "charge",
     "executive", "ceo", "supervise", "oversee", "command", "boss", "responsible"),
    ("own", "owner", "ownership", "possess"),
    ("bear", "born", "birth", "birthplace", "native"),
    ("die", "death", "dead"),
    ("buy", "bought", "acquire", "acquisition", "purchase", "take", "takeover", "pay", "sell", "sold"),
    ("fund", "funding", "funder", "finance", "pay", "sponsor", "grant", "donor", "back", "support", "money"),
    ("supply", "supplier", "provide", "provider", "vendor", "deliver", "source", "come", "arrive"),
    ("study", "educate", "education", "graduate", "attend", "train", "degree", "student", "alumnus"),
    ("work", "employ", "employee", "employer", "job", "join", "staff", "serve", "hire", "workforce", "people",
     "begin", "start"),
    ("locate", "location", "base", "headquarter", "headquarters", "situate", "live", "reside"),
    ("design", "designer", "develop", "developer", "engineer", "invent", "inventor", "create", "creator", "write",
     "author"),
    ("marry", "married", "wife", "husband", "spouse"),
    ("operate", "operator", "run", "use", "fly", "sail"),
    ("approve", "approval", "sign", "authorise", "authorize", "endorse", "sanction", "adopt"),
    ("report", "file", "submit", "raise", "log", "author"),
    ("award", "contract", "win", "grant", "give"),
    ("cost", "price", "spend", "pay", "worth", "fee", "value", "amount", "charge", "penalty", "damages",
     "outturn"),
    ("budget", "allocate", "allocation", "amount", "earmark"),
    ("open", "launch", "inaugurate", "start", "begin"),
    ("happen", "occur"),
    ("perform", "conduct", "complete", "undertake", "execute", "accomplish"),
    ("replace", "succeed", "successor", "predecessor"),
    ("post", "position", "role", "appoint", "appointment", "promote", "promotion", "elect"),
    ("code", "number", "id", "identifier", "reference", "name", "call"),
    ("replace", "change", "renew", "swap"),
    ("choose", "chose", "pick", "select", "choice", "selection", "opt"),
    ("discard", "throw", "dispose", "scrap", "destroy", "waste", "bin"),
    ("long", "length"),
    ("tall", "height", "high"),
    ("old", "age"),
    ("wide", "width", "breadth"),
    ("deep", "depth"),
    ("heavy", "weight", "weigh"),
)
"""Common English paraphrases of the relations questions ask about: a word matches any word sharing a group
with it. General vocabulary (no corpus's names), kept small: a wrong paraphrase costs precision."""

RELATIONS: Mapping[str, frozenset[str]] = {
    word: frozenset(w for g in _GROUPS if word in g for w in g) for group in _GROUPS for word in group
}

_LIGHT = frozenset({"be", "have", "do", "come", "get", "receive", "serve", "become", "remain", "hold", "give",
                    "take", "provide", "keep", "know", "call"})
"""Verbs that carry no relation of their own ("its funding comes from X", "served as its chief executive"):
a path from the relation to its answer may pass through them."""
_CLOSED = frozenset(RELATIONS[w] for w in ("born", "die", "marry", "study", "found", "long", "tall", "old", "wide",
                                           "deep", "heavy", "employ"))
"""Relations English writes in few words (a birth, a death, a marriage, a size): a passage about the subject
that writes none of them does not state the relation, where "runs" or "oversees" may be said a hundred ways."""
_WH = frozenset({"WDT", "WP", "WP$", "WRB"})
_CLAUSE_EDGES = frozenset({"advcl", "ccomp", "xcomp", "pcomp", "csubj", "parataxis", "conj"})
_SUBJECT_EDGES = frozenset({"nsubj", "csubj", "expl"})
_MAX_LINKS = 3
_MAX_ABOUT_LINKS = 5
_PRONOUNS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their", "him", "them", "who", "which",
                       "that"})
_CODE = re.compile(r"^(?=[A-Za-z0-9./-]*\d)(?=[A-Za-z0-9./-]*[A-Za-z])[A-Za-z0-9]+(?:[./-][A-Za-z0-9]+)+$")
"""An identifier ("NW-7731-X", "AB-2025-007"): letters and digits joined by dashes, dots or slashes."""


FIELD = re.compile(r"^\W{0,4}(?P<key>[A-Z][A-Za-z /&'()-]{1,40}?)(?:\s*\([^()\n]{1,80}\))?\**\s*:\s*\**\s*"
                   r"(?P<value>[^\s:].{0,300}?)\s*$")
"""A field line of a record ("Project code: PR-2025-009", "**Role:** Harbour Director", a list's "- **Reported
by:** Maria Santos", "Insured value (nail to nail, under the trust's policy): £120,000"): its key names the
relation, its value is the answer, and the document the line is in is what it is about."""


@dataclass(frozen=True, slots=True)
class Asked:
    """What a question asks, read off its parse."""

    question: str
    kind: AnswerKind | None
    role: Role
    relation: frozenset[str]
    """The relation word's lemma and its paraphrases."""
    relation_text: str
    """As the question writes it ("born", "founder"): for the refusal."""
    wh_noun: str = ""
    """The noun the wh-word asks with ("shipyard" in "which shipyard"): an answer naming it fits any label."""
    names: tuple[str, ...] = ()
    heads: frozenset[str] = frozenset()
    """The described nouns with their paraphrases ("company" in "the company that acquired X")."""
    cues: frozenset[str] = frozenset()
    """The description's words ("company", "acquire" in "the company that acquired X"), with paraphrases:
    what a sentence leading from the question's names to the bridge writes."""
    kinds_of: tuple[tuple[str, str], ...] = ()
    """(noun, name) for a name used as a noun's modifier ("the Turku yard", "the Skua drone"): a passage
    naming the name may call its subject "the yard"."""
    topic: tuple[str, ...] = ()
    """For a question that names nothing ("the value of the breakwater works contract"): the nouns that say
    what it is about; a sentence or record writing all of them is about it."""
    embedded: str = ""
    """The question as a clause ("where Ingrid Halvorsen was born"), for the refusal."""
    description: tuple[int, int] | None = None
    """Where the question describes its subject ("the company that acquired Lumen Robotics"), as character
    offsets: a bridge's name put there makes the question a second hop can retrieve for."""
    light: bool = False
    """The relation is a light verb, what "become" leads to ("in what year did she become harbour master?") or a
    light verb's object ("since when has she held that post?"):
    a change of state is written many ways ("appointed", "has been … since"), so a value another verb gives
    proves no near miss."""
    began: bool = False
    """The question asks when a state began ("when did she become Harbour Master"): "since 2017" answers it."""
    qualifiers: tuple[str, ...] = ()
    """The nouns of what the question hangs on its relation besides the asked slot ("day", "date" in "how much
    does the contractor pay for every day the works overrun the completion date?"): a sentence stating the
    relation without any of them states another amount ("budget: 2400000")."""
    role_kind: tuple[str, ...] = ()
    """The nouns that say which role a role noun asks about ("account" in "who is our account manager"): a
    "Clinic lead" or an "Operations manager" is another role."""
    inner: str = ""
    """The description asked by itself where the relative pronoun is not its clause's subject ("Which project
    does the Digital Systems Lead run?" for "the project that the Digital Systems Lead runs", "Which budget line
    was owned by …?" for "the budget line owned by …"); "" where description_question's plain rewrite fits."""
    earlier: tuple[str, ...] | None = None
    """For a question about work done before joining somewhere ("which company did she work for before
    joining the agency?", "where did he work previously?"): the names the "before" phrase writes, which are
    where the person went, not the answer. None for any other question."""

    @property
    def described(self) -> bool:
        return bool(self.cues)

    @property
    def description_text(self) -> str:
        """The description as the question writes it ("the company that acquired Lumen Robotics"); "" if none."""
        return "" if self.description is None else self.question[self.description[0]:self.description[1]]


_RELATIVE = re.compile(r"^(?:the|a|an|its|his|her|their)\s+(?P<noun>[\w-]+)\s+(?P<rel>that|which|who|whose)\s+"
                       r"(?P<rest>.+)$", re.IGNORECASE)


def description_question(asked: Asked) -> str:
    """The question the description asks by itself, whose answer is the bridge: "Which company supplied the
    coupling that failed …?" for "the company that supplied the coupling that failed …", "Who is the author
    of the Quay 4 fuel spill report?" for "the author of the Quay 4 fuel spill report"."""
    text = asked.description_text
    if not text:
        return ""
    if asked.inner:
        return asked.inner
    m = _RELATIVE.match(text)
    if m is None:
        return f"Who is {text}?"  # read_question reads "who" as a doer or a name: both fit a bridge
    if m["rel"].casefold() == "who":
        return f"Who {m['rest']}?"
    return f"Which {m['noun']} {m['rest']}?"


def _inner_question(doc: Any, description: tuple[int, int] | None) -> str:
    """The question a described subject asks by itself when its clause is not "who/that + verb": an object
    relative ("the project that the agency's Digital Systems Lead runs") or a participle ("the work done by
    the Grimsby-based contractor"). A rewrite that reads well is one the question reader parses right."""
    span = None if description is None else doc.char_span(*description, alignment_mode="expand")
    if span is None:
        return ""
    clause = next((c for c in span if c.dep_ in ("relcl", "acl") and c.pos_ in ("VERB", "AUX")
                   and span.start <= c.head.i < c.i), None)  # the first clause: the parse's span root may be a
    if clause is None:                                         # stray identifier piece
        return ""
    start = span.start + (1 if doc[span.start].lower_ in ("the", "a", "an") else 0)
    pronoun = next((c for c in clause.children if c.tag_ in ("WDT", "WP")), None)
    noun = doc[start:pronoun.i if pronoun is not None else clause.left_edge.i].text.strip()
    rest = doc[clause.i + 1:span.end].text
    if pronoun is None and clause.dep_ == "acl" and clause.tag_ == "VBN" and noun:
        return f"Which {noun} was {clause.text} {rest}?".replace(" ?", "?")
    subject = next((c for c in clause.children if c.dep_ == "nsubj"), None)
    if pronoun is None or pronoun.dep_ != "dobj" or subject is None or not noun or \
            clause.tag_ not in ("VBD", "VBZ", "VBP"):
        return ""
    do = "did" if clause.tag_ == "VBD" else "does"
    who = doc[subject.left_edge.i:subject.right_edge.i + 1].text
    return f"Which {noun} {do} {who} {clause.lemma_} {rest}?".replace(" ?", "?")


def with_bridge(asked: Asked, bridge: str) -> str:
    """The question with the bridge's name where it describes its subject: "In which town is Brightwater
    Fuels based?" for "… is the company that supplied the coupling … based?"."""
    if asked.description is None:
        return ""
    start, end = asked.description
    return f"{asked.question[:start]}{bridge}{asked.question[end:]}"


@dataclass(frozen=True, slots=True)
class Parsed:
    """A sentence of a passage, parsed."""

    passage: Passage
    span: Any
    """The spaCy Span."""


@dataclass(frozen=True, slots=True)
class Statement:
    """A short answer and the sentences that state it: ``chain`` leads from the question's names to the
    answer's sentence (empty when that sentence names them itself)."""

    answer: str
    sentence: int
    chain: tuple[int, ...] = ()
    depth: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    statement: Statement | None
    refusal: str = ""
    """Why no short answer, when the passages show the question is not answered (a near miss)."""


_PHRASAL: Mapping[tuple[str, str], str] = {
    ("look", "after"): "manage", ("take", "over"): "acquire", ("set", "up"): "found", ("carry", "out"): "perform",
    ("sign", "off"): "approve", ("hand", "over"): "deliver", ("bring", "in"): "hire", ("step", "down"): "leave",
    ("throw", "away"): "discard", ("throw", "out"): "discard", ("get", "back"): "return", ("come", "back"): "return",
}
"""Verbs with a particle that mean another relation word ("who looks after the account" asks for its manager):
each side of a match is read with its particle."""


def _phrasal(tok: Any) -> str:
    """The relation word a verb and the particle after it mean ("return" for "get back"), or ""."""
    return _PHRASAL.get((tok.lemma_.casefold(), tok.doc[tok.i + 1].lower_), "") if tok.i + 1 < len(tok.doc) else ""


def _words(tok: Any) -> set[str]:
    low = tok.lower_
    lemma = tok.lemma_.casefold()
    out = {low, lemma}
    if same := _phrasal(tok):
        out.add(same)
    for w in (low, lemma):
        if w.startswith("co-"):
            out.add(w[3:])
        if w.startswith("co") and w[2:] in RELATIONS:
            out.add(w[2:])
    return out


def _matches(tok: Any, words: frozenset[str]) -> bool:
    if tok.i + 1 < len(tok.doc) and tok.nbor(1).text == "-" and tok.whitespace_ == "":
        return False  # "start" in "start-up" is no relation
    if not (bool(words) and tok.pos_ in ("VERB", "NOUN", "PROPN", "ADJ", "AUX") and bool(_words(tok) & words)):
        return False
    if tok.lemma_ not in ("begin", "start"):
        return True
    if "found" in words:
        return not _an_activity_starts(tok)
    if "employ" in words and "open" not in words:
        return not _an_organisation_begins(tok)  # "the business began in 1979": no one joined or started work
    return True


_ORGANISATIONS = frozenset({"business", "company", "firm", "organisation", "organization", "group", "charity",
                            "school", "society", "club", "band", "agency", "institute", "shop", "practice"})


def _an_activity_starts(verb: Any) -> bool:
    """"Works on the breakwater began", "Calder began work": an activity was begun, which dates no founding;
    "the business began in 1979", "Berg started the company" (an organisation, a name or a pronoun begun or
    beginning) does."""
    thing, _ = _begun(verb)  # the tagger calls "works" a verb there, so a subject may be the activity
    return thing is not None and thing.pos_ not in ("PROPN", "PRON") and thing.lemma_.casefold() not in _ORGANISATIONS


def _an_organisation_begins(verb: Any) -> bool:
    """"The business began in 1979", "Harland Shipyards started in 1904": what began is an organisation (a word
    for one, or a name NER calls one), with nothing begun by it."""
    thing, begun_by_it = _begun(verb)
    return thing is not None and not begun_by_it and (
        thing.lemma_.casefold() in _ORGANISATIONS or thing.ent_type_ == "ORG")


def _begun(verb: Any) -> tuple[Any, bool]:
    """What a "begin"/"start" is about: its object, if it has one (True), else its subject (False), else None."""
    thing = next((c for c in verb.children if c.dep_ == "dobj"), None)
    if thing is not None:
        return thing, True
    return next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None), False


def _paraphrases(tok: Any) -> frozenset[str]:
    if isinstance(tok, _Word):
        return RELATIONS[tok.lemma_]
    out: set[str] = set()
    for w in _words(tok):
        out |= RELATIONS.get(w, frozenset({w}))
        if w.endswith("ator") and len(w) > 6:
            out.add(w[:-2] + "e")  # the curator is who "curated" it, the investigator who "investigated" it
    return frozenset(out)


_YES_NO_OPENERS = frozenset({"do", "does", "did", "is", "are", "was", "were", "has", "have", "had", "can", "could",
                             "will", "would", "should", "shall", "may", "might", "must"})


def _asks_yes_or_no(doc: Any) -> bool:
    """"Do both films have directors who are from the same country?": a question opening on its auxiliary asks
    yes or no, whatever wh-word a relative clause in it carries; no name in a sentence answers it."""
    first = next((t for t in doc if not t.is_punct), None)
    return first is not None and first.lower_ in _YES_NO_OPENERS


def read_question(question: str, nlp: Any, names: Sequence[str], irregular: Mapping[str, tuple[str, ...]]
                  ) -> Asked | None:
    """What ``question`` asks, or None when its form asks nothing a span can answer (no wh-word, a
    comparison, a yes/no question)."""
    doc = nlp(question)
    wh = next((t for t in doc if t.tag_ in _WH), None)
    if wh is None or _asks_yes_or_no(doc):
        return None
    # a question that names nothing but nationalities ("the Norwegian drone maker … the Estonian start-up") is
    # about what they describe: a sentence writing them is where to look
    names = tuple(names) or tuple(e.text for e in doc.ents if e.label_ == "NORP")
    covered = {t.i for n in names for t in _find(doc, n)}
    covered |= {t.i for e in doc.ents if e.label_ not in VALUE_LABELS for t in e}
    wh_noun_tok = wh.head if wh.dep_ == "det" and wh.head.pos_ in ("NOUN", "PROPN") else None
    if wh_noun_tok is None and wh.lower_ in ("which", "what", "whose") and wh.i + 1 < len(doc):
        nxt = doc[wh.i + 1]
        while nxt.dep_ in ("compound", "amod") and nxt.i < nxt.head.i <= wh.i + 4:
            nxt = nxt.head  # "on which VHF channel": the noun its modifiers lead to
        if nxt.pos_ == "NOUN":
            wh_noun_tok = nxt  # "in which city is …": the parser hangs "which" elsewhere
    if wh.lower_ == "how" and wh.head.lower_ in ("many", "much"):
        many = wh.head
        counted = many.head.pos_ == "NOUN" and many.head.i > many.i and not any(
            t.pos_ in ("AUX", "VERB") for t in doc[many.i + 1:many.head.i])  # "how much did X cost": no noun counted
        wh_noun_tok = many.head if counted else None
    if wh_noun_tok is not None and wh_noun_tok.i > wh.i + 1:  # "which VHF channel": VHF says which kind of
        inside = set(range(wh.i + 1, wh_noun_tok.i))           # channel is asked for, it is not the subject
        names = tuple(n for n in names if not {t.i for t in _find(doc, n)} <= inside or not _find(doc, n))
    rel = _past_catenative(_relation_word(doc, wh, wh_noun_tok, covered))
    role_taken = _role_become(rel)
    if role_taken is not None:  # "when did she become Harbour Master": the post is the relation
        names = tuple(n for n in names if not {t.i for t in _find(doc, n)} & {t.i for t in role_taken.subtree})
        rel = role_taken
    phrase_head = wh_noun_tok if wh_noun_tok is not None else wh
    kind = answer_kind(question)
    role = _role(wh, phrase_head, rel)
    if wh.i > 0 and doc[wh.i - 1].pos_ == "ADP" and doc[wh.i - 1].lower_ != "by" and role != "count":
        role = "adverbial"  # "on which channel", "for which firm": the wh-phrase hangs on a preposition
    aux = next((t for t in doc if t.i > phrase_head.i and (t.pos_ == "AUX" or t.lemma_ in ("do", "be", "have"))),
               None)
    if kind is not None and kind.name in ("a date", "a place", "a country") and role != "count":
        role = "adverbial"  # "in which year was … born?" however the parser hung the wh-phrase
    elif aux is not None and aux.lemma_ == "do" and role in ("subject", "attribute") and rel.pos_ != "NOUN" and \
            aux.i > phrase_head.i:
        role = "object"  # "which university did X attend?": the subject comes after "did"
    relation = _paraphrases(rel) - {"be", "have", "do"}
    if role_taken is not None:
        relation |= RELATIONS["post"]  # "was appointed Harbour Master in 2017"
    composite = _COMPOSITE_KIN.search(question.casefold())
    if composite is not None:  # "father-in-law", "maternal grandmother": no sentence stating "father" answers it
        relation = frozenset({composite.group(0)})
        kind = None  # nor is a person given for another link a near miss: the chain is not read, so no refusal
    heads, cues, description = _description(doc, rel, wh, wh_noun_tok, covered)
    kinds_of = tuple((t.lemma_.casefold(), name) for t in doc if t.pos_ == "NOUN" for name in names
                     if any(c.dep_ == "compound" and c.i in covered and c.lower_ in name.casefold().split()
                            for c in t.children))
    scope = _fronted_scope(doc, wh)
    topic = () if names else tuple(dict.fromkeys(
        t.lemma_.casefold() for t in doc if t.pos_ in ("NOUN", "PROPN") and t.i != rel.i and t.tag_ not in _WH
        and (wh_noun_tok is None or t.i != wh_noun_tok.i) and t.lemma_.casefold() not in _GENERIC and len(t) > 2
        and t.i not in scope))
    qualifiers = tuple(dict.fromkeys([*_qualifiers(rel, wh, wh_noun_tok, covered, description), *(
        doc[i].lemma_.casefold() for i in sorted(scope) if doc[i].pos_ == "NOUN" and i not in covered
        and len(doc[i]) > 2 and doc[i].lemma_.casefold() not in _GENERIC)]))
    light = (rel.lemma_ in _LIGHT and not any(w in RELATIONS for w in relation)) or any(
        t.lemma_ in _BECOME for t in doc if t.pos_ in ("VERB", "AUX") and t.i < rel.i) or (
        rel.dep_ in ("dobj", "oprd") and rel.head.lemma_ in _LIGHT - {"be"} and not _verb_read_as_object(rel)
    )  # "held that post", "took the job"
    earlier = _earlier_than(doc, rel, relation, names) if kind is None or kind.labels & {"ORG", "GPE", "LOC", "FAC"} \
        else None  # "how long had he worked in surveying before he came?" asks a duration
    if earlier is not None:
        names, description = tuple(n for n in names if n not in earlier), _before_cut(doc, description)
    return Asked(question, kind, role, relation, rel.text, wh_noun_tok.lemma_.casefold() if wh_noun_tok else "",
                 tuple(names), heads, cues, kinds_of, topic, embedded_question(doc, irregular, rel.i), description,
                 light, role_taken is not None or rel.lemma_.casefold() in _STARTS or (
                     wh.i > 0 and doc[wh.i - 1].lower_ == "since"), qualifiers,
                 role_kind=_role_kind(rel, covered) if kind is not None and "PERSON" in kind.labels else (),
                 inner=_inner_question(doc, description), earlier=earlier)


_STARTS = frozenset({"start", "begin", "join", "commence", "open"})
"""Relations whose date is when a state began: "has worked for the trust since March 2021" says when he started
working for it, as "has been Harbour Master since 2017" says when she became it."""


def _before_cut(doc: Any, description: tuple[int, int] | None) -> tuple[int, int] | None:
    """The description without its "before" clause: in "the person who reported X before they joined Y" the
    move is the question's, not what describes the person."""
    cut = None if description is None else next(
        (t.idx for t in doc if t.lower_ == "before" and description[0] < t.idx < description[1]), None)
    if cut is None or description is None:
        return description
    return description[0], len(doc.text[:cut].rstrip())


_MOVES = frozenset({"join", "come", "move", "arrive", "start", "transfer", "return"})
"""What a "before" phrase says a person did when it asks where they worked until then ("before joining …")."""

_PREVIOUSLY = frozenset({"previously", "formerly", "previous", "former", "earlier", "prior"})
"""Words that put a statement of work before the present post ("had previously been head physiotherapist at")."""


def _earlier_than(doc: Any, rel: Any, relation: frozenset[str], names: Sequence[str]) -> tuple[str, ...] | None:
    """The names of the "before" phrase of a question asking where someone worked before a move ("before he
    came to Fellgate", "before joining the agency"), () for "previously", None when the question asks no such
    thing. A profile says the present post and the earlier one in one breath, so the earlier employer must be
    read as earlier, and the place joined is never the answer. A date ("before 2019") is another question."""
    if rel.lemma_.casefold() not in ("work", "employ", "employer") or not {"work", "employ"} <= relation:
        return None  # not "how many staff did it have before the merger?", "when did she join, before …?"
    if any(t.lower_ in _PREVIOUSLY for t in doc):
        return ()
    before = next((t for t in doc if t.lower_ == "before" and t.dep_ in ("prep", "mark")), None)
    if before is None or (before.dep_ == "mark" and before.head.i == rel.i):
        return None
    phrase = _before_phrase(before)
    moved = [t for t in phrase if t.pos_ in ("VERB", "AUX") and t.lemma_ in _MOVES]
    named = [t for t in phrase if t.dep_ == "pobj" and (t.pos_ == "PROPN" or t.ent_type_ in ("ORG", "GPE"))]
    if not (moved or named) or any(t.like_num or t.ent_type_ in ("DATE", "TIME") for t in phrase):
        return None  # "before 2019", "before the merger": another question
    where = {t.i for t in phrase}
    return tuple(n for n in names if any(t.i in where for t in _find(doc, n)))


def _role_kind(rel: Any, covered: set[int]) -> tuple[str, ...]:
    if rel.pos_ != "NOUN":
        return ()
    return tuple(c.lemma_.casefold() for c in rel.children
                 if c.dep_ == "compound" and c.pos_ == "NOUN" and c.i not in covered)


def _names_another_role(asked: Asked, tok: Any) -> bool:
    """A role noun in a passage ("Operations manager") without the kind the question gives its role ("account
    manager"). A verb ("managed by") states any kind."""
    if not asked.role_kind or tok.pos_ not in ("NOUN", "PROPN"):
        return False
    written = {c.lemma_.casefold() for c in tok.children} | {tok.doc[tok.i - 1].lemma_.casefold() if tok.i else ""}
    return not all(k in written for k in asked.role_kind)


def _verb_read_as_object(rel: Any) -> bool:
    """"How many people does Tessellate Systems employ?": the small parser reads "does" as the verb and "employ",
    the question's last word, as its object; a question's last word after "do" and its subject is the verb."""
    last = [t for t in rel.doc if not t.is_punct][-1]
    return rel.head.lemma_ == "do" and rel.i == last.i and rel.i > rel.head.i + 1


_BECOME = frozenset({"become", "turn"})


def _role_become(rel: Any) -> Any:
    """The post of "become Harbour Master" (its head noun), which prose states as the post ("has been Harbour
    Master since 2017", "was appointed Harbour Master in 2017") rather than by "become"; None otherwise."""
    if rel.lemma_ != "become":
        return None
    return next((c for c in rel.children if c.dep_ in ("attr", "oprd") and c.pos_ in ("NOUN", "PROPN")), None)


_QUALIFYING_EDGES = frozenset({"prep", "advcl", "npadvmod"})


def _fronted_scope(doc: Any, wh: Any) -> set[int]:
    """The tokens of prepositional phrases written before the wh-word: "Under the equipment policy, how often
    …", "In the 2024 report, how many …". They say where the answer is written (a passage must name them, as
    a qualifier), not what the answering sentence is about."""
    out: set[int] = set()
    for t in doc[:wh.i]:
        if t.dep_ == "prep" and t.head.i > wh.i:
            sub = {x.i for x in t.subtree}
            if max(sub) < wh.i:
                out |= sub
    return out


def _qualifiers(rel: Any, wh: Any, wh_noun: Any, covered: set[int], description: tuple[int, int] | None
                ) -> tuple[str, ...]:
    """The nouns of the phrases and clauses hung on the relation word, except the wh-phrase, the question's
    names, its description, words that name a relation themselves ("of birth") and times ("in spring 2025":
    a sentence dates it otherwise, "at the May meeting")."""
    out: list[str] = []
    asked = {wh.i, *(() if wh_noun is None else (wh_noun.i,))}
    for child in rel.children:
        if child.dep_ not in _QUALIFYING_EDGES:
            continue
        sub = list(child.subtree)
        if any(t.i in asked for t in sub):
            continue  # "in what year", "for which firm": the asked slot itself
        for t in sub:
            lemma = t.lemma_.casefold()
            inside = description is not None and description[0] <= t.idx < description[1]
            if t.pos_ == "NOUN" and t.i not in covered and not inside and len(lemma) > 2 and not t.ent_type_ and \
                    lemma not in _GENERIC and lemma not in RELATIONS and t.lower_ not in RELATIONS:
                out.append(lemma)
    return tuple(dict.fromkeys(out))


def _qualified(asked: Asked, passage: Passage) -> bool:
    """The passage writes one of the question's qualifiers, or the question has none. The passage, not the
    sentence: "About 290 litres were recovered" is about the spill its report names a sentence earlier."""
    low = f"{passage.name}\n{passage.text}".casefold()
    return not asked.qualifiers or any(re.search(rf"\b{re.escape(stem(q))}", low) for q in asked.qualifiers)


def _relation_word(doc: Any, wh: Any, wh_noun: Any, covered: set[int]) -> Any:
    """The word of the question that names the relation. The small parser often misreads questions, so
    their shape decides first: "… did X study (…)?" → the word after the subject; "… was X born?" → the
    final verb; then the parse's root verb; for a light root ("who is the founder of …", "how many
    employees does … have") the noun it links."""
    words = [t for t in doc if not t.is_punct]
    aux = next((t for t in words[1:] if t.i > wh.i and (t.pos_ == "AUX" or (
        t.lemma_ in ("do", "be", "have") and t.pos_ == "VERB"))), None)
    measure = wh.head if wh.lower_ == "how" and wh.head.lower_ in _DIMENSIONS else None
    if measure is not None and aux is not None and aux.lemma_ == "be" and not any(
            t.pos_ == "VERB" and t.lemma_ not in _LIGHT for t in doc):
        return measure  # "How long is the pilot boat Gannet?": its length
    if aux is not None and aux.lemma_ == "do":
        base = [t for t in words if t.i > aux.i + 1 and t.tag_ == "VB" and t.i not in covered] or [
            t for t in words if t.i > aux.i + 1 and t.tag_ == "JJ" and t.dep_ != "amod" and t.i not in covered
            and t.lower_ in RELATIONS]  # "did Thread and Tide first open to visitors": after "did", a verb
        if base and (base[0].lemma_ not in _LIGHT or _phrasal(base[0])):
            return base[0]  # "when did the Gannet get back to her berth": "get back" is "return", no light "get"
        light = [t for t in words if t.i > aux.i + 1 and t.pos_ == "VERB" and t.lemma_ in _LIGHT and t.i not in covered]
        state = next((c for c in light[0].children if c.dep_ in ("acomp", "oprd") and c.pos_ == "ADJ"), None) \
            if light and not (base and base[0].lemma_ not in _LIGHT) else None
        if state is not None:
            return state  # "how long does a site pass remain valid?": valid for how long
        # the tagger often reads the verb as a noun here: a word known to name a relation, else the last word
        last = words[-1]
        if last.i > aux.i + 1 and last.i not in covered and last.pos_ in ("VERB", "NOUN") and (
                last.lemma_.casefold() in RELATIONS or last.lower_ in RELATIONS):
            return last  # "… the Zurich office study?": the verb ends the question, whatever the parse says
        after = [t for t in words if t.i > aux.i + 1 and t.i not in covered and t.pos_ in ("VERB", "NOUN")
                 and t.lemma_ not in _LIGHT and not any(c.dep_ in ("det", "poss") for c in t.children)]
        known = sorted((t for t in after if t.lemma_.casefold() in RELATIONS or t.lower_ in RELATIONS),
                       key=_describes_a_noun)  # "did the physiotherapist who reported … work": "work"
        if known:
            return known[0]
        if after and after[-1].i == words[-1].i:
            return after[-1]
    last = words[-1] if words else None
    root = next((t for t in doc if t.dep_ == "ROOT"), doc[0])
    if aux is not None and last is not None and last.i not in covered and last.pos_ == "VERB" and \
            last.lemma_ not in _LIGHT and not _subordinate(last) and not (
            _describes_a_noun(last) and root.pos_ == "VERB" and root.lemma_ not in _LIGHT):
        return last  # not "after the mislabelling", "after Kiln 3 failed", nor "runs" in "how much is budgeted
        # for the project that the Digital Systems Lead runs?"
    if root.lemma_ not in _LIGHT and root.pos_ == "VERB":
        return root
    stated = next((w for c in root.children if c.dep_ in ("prep", "acomp") for w in (c, *c.children)
                   if w.dep_ in ("pobj", "acomp") and w.i not in covered and w.lemma_.casefold() in RELATIONS), None)
    if root.lemma_ == "be" and stated is not None:
        return stated  # "Which person at X is in charge of …", "who is responsible for …": the phrase after "is"
    verbs = [t for t in doc if t.pos_ == "VERB" and t.lemma_ not in _LIGHT and t.i not in covered
             and t.dep_ not in ("relcl", "acl", "compound", "amod", "nmod", "npadvmod", "pobj")
             and not any(c.dep_ == "det" for c in t.children)]  # "the breakwater works contract": a noun
    if verbs:
        return verbs[-1]
    if root.lemma_ == "be" and (wh.lower_ == "where" or (wh_noun is not None and wh_noun.lemma_ in _PLACES)):
        return _LOCATED(doc)  # "Where is X?", "In which city is X?": where X is located
    if root.lemma_ == "be" and wh_noun is not None and wh_noun.dep_ in ("nsubj", "attr"):
        return wh_noun  # "Which volcano is active in Sicily?": the answer is the volcano the passage names
    nouns = [t for t in doc if t.dep_ in ("attr", "nsubj", "dobj", "acomp", "nsubjpass") and t.head.i == root.i
             and t.pos_ in ("NOUN", "ADJ") and t.i not in covered and t.tag_ not in _WH]
    others = [t for t in nouns if wh_noun is None or t.i != wh_noun.i]
    if others:
        return others[0]
    if nouns:
        return nouns[0]
    verbs = [t for t in doc if t.pos_ == "VERB" and t.lemma_ not in _LIGHT and t.i not in covered]
    return verbs[0] if verbs else root


def _describes_a_noun(verb: Any) -> bool:
    """The verb of a relative clause ("the physiotherapist who reported …", "the project that … runs"): it
    describes the subject, the question asks another relation."""
    return verb.dep_ == "relcl" or any(c.tag_ in ("WP", "WDT") and c.dep_ in ("nsubj", "nsubjpass", "dobj")
                                       for c in verb.children)


_CATENATIVE = frozenset({"suppose", "plan", "expect", "schedule", "due", "intend", "mean", "require", "allow",
                         "set", "aim", "hope", "need", "want", "try", "go", "have", "ought", "permit", "oblige"})
"""Verbs whose to-infinitive carries the relation: "where are contractors supposed to leave their vehicles?"
asks where they leave them, "when is the system planned to enter service?" when it enters service."""


def _past_catenative(rel: Any) -> Any:
    for _ in range(3):
        nxt = next((c for c in rel.children if c.dep_ == "xcomp" and c.pos_ in ("VERB", "AUX")
                    and any(m.tag_ == "TO" for m in c.children)), None)
        if rel.lemma_.casefold() not in _CATENATIVE or nxt is None:
            break
        rel = nxt
    return rel


def _subordinate(verb: Any) -> bool:
    """The verb heads a phrase or clause a preposition or a subordinator opens, not the question's own clause."""
    return verb.dep_ in ("pobj", "pcomp") or any(c.dep_ == "mark" for c in verb.children)

_DIMENSIONS = frozenset({"long", "tall", "old", "wide", "deep", "heavy", "high"})
""""How long is X?": the adjective is the relation (its length), the measure the answer."""


def _role(wh: Any, phrase_head: Any, rel: Any) -> Role:
    if wh.lower_ == "how" and wh.head.lower_ in ("many", "much"):
        return "count"
    if wh.lower_ in ("where", "when", "why", "how"):
        return "adverbial"
    if rel.pos_ == "NOUN" or rel.pos_ == "PROPN":
        return "attribute"
    dep = phrase_head.dep_
    if dep == "nsubj":
        return "subject"
    if dep in ("nsubjpass", "dobj"):
        return "object"
    if dep == "pobj" and phrase_head.head.dep_ == "agent":
        return "subject"
    if dep == "pobj":
        return "adverbial"
    return "attribute"


_COMPOSITE_KIN = re.compile(r"\b(?:great-)*(?:grand|step|half-)?(?:father|mother|parent|son|daughter|brother|sister|"
                            r"child|husband|wife)-in-law\b|\b(?:maternal|paternal) \w+|\b(?:great-)+\w+|"
                            r"\bgrand(?:father|mother|parent|son|daughter|child)\b|\bstep(?:father|mother|son|"
                            r"daughter|brother|sister)\b|\bhalf-(?:brother|sister)\b")
"""Kinship that is a chain of relations: a sentence naming a father does not name a father-in-law."""

_PLACES = frozenset({"city", "town", "country", "place", "region", "village", "state", "site", "building",
                     "street", "port", "harbour", "location"})


def _LOCATED(doc: Any) -> Any:
    """A token-like stand-in for the relation "located" that "where is X?" asks without writing it."""
    return _Word(doc, "located", "locate")


@dataclass(frozen=True, slots=True)
class _Word:
    doc: Any
    text: str
    lemma_: str
    i: int = -1
    pos_: str = "VERB"
    lower_: str = ""
    dep_: str = "ROOT"
    tag_: str = "VBN"
    children: tuple[Any, ...] = ()


_GENERIC = frozenset({"one", "thing", "part", "kind", "type", "lot", "most", "name", "time", "way", "end"})
_ATTRIBUTE_NOUNS = frozenset({"place", "date", "year", "day", "cause", "nationality", "age", "birthplace"})
"""Nouns that ask for an attribute of what follows them ("the place of death of the director of …"): the
described subject is inside them, not them."""


def _description(doc: Any, rel: Any, wh: Any, wh_noun: Any, covered: set[int]
                 ) -> tuple[frozenset[str], frozenset[str], tuple[int, int] | None]:
    """The words that describe the question's subject rather than name it: "company" and "acquired" in
    "Who founded the company that acquired Lumen Robotics?". Empty when the question names its subject
    ("Who founded Lumen Robotics?", "Where did Ingrid Halvorsen study engineering?"): a described subject
    is a common noun with an article or an owner ("the yard in Finland", "Samuel Okafor's institute").
    Also where the description is written: the widest described noun's phrase that holds a name."""
    skip = {rel.i, wh.i, *(() if wh_noun is None else (wh_noun.i,))}
    described = [t for t in doc if t.pos_ == "NOUN" and t.i not in covered and t.i not in skip
                 and t.lemma_ not in _GENERIC and t.lemma_ not in _ATTRIBUTE_NOUNS
                 and not any((c.pos_ == "PROPN" and c.dep_ in ("compound", "nmod")) or (
                     c.dep_ == "appos" and c.i in covered and c.left_edge.i == t.i + 1)
                             for c in t.children)  # "the Skua drone", "the pilot boat Gannet": the name's kind
                 and any(c.dep_ in ("det", "poss") and (c.lower_ in ("the", "a", "an", "its", "his", "her",
                                                                      "their") or c.i in covered)
                         for c in t.children)
                 and (any(d.i in covered for d in _extent(t, covered))
                      or (t.dep_ in ("nsubj", "nsubjpass") and t.head.i == rel.i))]  # not "the works" in "for
    # every day the works overrun …": a clause qualifying the relation describes no subject
    if not covered:  # a question naming nothing is about its topic nouns, unless a clause describes its subject
        described = [t for t in doc if t.pos_ == "NOUN" and t.i not in skip and _clause_described(t)]
    if not described:
        return frozenset(), frozenset(), None
    out: set[str] = set()
    for t in doc:
        if t.i in covered or t.i in skip or t.is_stop or not t.is_alpha or len(t) < 3:
            continue
        if any(c.pos_ == "PROPN" and c.dep_ in ("compound", "nmod") for c in t.children) or \
                (t.pos_ == "NOUN" and ({t.i - 1, t.i + 1} & covered)):
            continue  # "drone" in "the Skua drone", "project" in "project PR-2024-004": the name's own kind
        if t.pos_ in ("NOUN", "VERB", "ADJ") and t.lemma_ not in _LIGHT and t.lemma_ not in _GENERIC:
            out |= _paraphrases(t)
    heads: set[str] = set()
    for t in described:
        heads |= _paraphrases(t)
    return frozenset(heads), frozenset(out), _phrase_of(described, covered, skip)


def _clause_described(t: Any) -> bool:
    """"the contractor that found voids in the breakwater core": a definite noun a clause of its own describes,
    with words enough to find the sentence that says it of a name (the bridge), though the question names none."""
    if not any(c.dep_ == "det" and c.lower_ == "the" for c in t.children):
        return False
    clause = next((c for c in t.children if c.dep_ in ("relcl", "acl") and c.pos_ == "VERB"), None)
    return clause is not None and sum(1 for d in clause.subtree if d.pos_ in ("NOUN", "PROPN")) >= 2


def _extent(t: Any, covered: set[int]) -> list[Any]:
    """``t``'s phrase, and a name right after it that the small parser hung elsewhere ("the contractor for
    project PR-2024-004", the identifier split and attached to the verb)."""
    sub = list(t.subtree)
    doc = t.doc
    start, end = sub[0].i, sub[-1].i + 1
    while start > 0 and start - 1 in covered and sub[0].i in covered:  # "Maurice, Prince Of Orange's father"
        start -= 1
    while end < len(doc) and end in covered:
        end += 1
    return [*doc[start:sub[0].i], *sub, *doc[sub[-1].i + 1:end]]


def _phrase_of(described: Sequence[Any], covered: set[int], skip: set[int]) -> tuple[int, int] | None:
    """The character span of the widest described noun phrase that holds one of the question's names ("the
    author of the Quay 4 fuel spill report"), cut before the wh-word or the relation where the small parser
    hangs them inside it ("the author of … report work for")."""
    spans = []
    for t in described:
        sub = _extent(t, covered)
        stop = next((d.i for d in sub if d.i > t.i and d.i in skip), None)
        sub = [d for d in sub if stop is None or d.i < stop]
        while sub and sub[-1].i not in covered and sub[-1].pos_ in ("ADP", "PUNCT", "CCONJ", "SCONJ", "PART", "AUX"):
            sub.pop()
        if sub and any(d.i in covered for d in sub) and not any(d.i in skip for d in sub):
            end = sub[-1].i + 1
            opened = sum(d.text.count("(") - d.text.count(")") for d in sub)
            while opened > 0 and end < len(t.doc) and t.doc[end].text == ")":  # "film Palo Alto (2013 Film)"
                opened, end = opened - 1, end + 1
            spans.append((sub[0].idx, t.doc[end - 1].idx + len(t.doc[end - 1])))
    return max(spans, key=lambda sp: sp[1] - sp[0]) if spans else None


def _find(doc: Any, name: str) -> list[Any]:
    """The tokens of ``doc`` that spell ``name`` (case-insensitive; by characters, since the tokenizer cuts
    an identifier like "PR-2024-004" into pieces)."""
    at = doc.text.casefold().find(name.casefold()) if name else -1
    if at < 0:
        return []
    span = doc.char_span(at, at + len(name), alignment_mode="expand")
    return list(span) if span is not None else []


def embedded_question(doc: Any, irregular: Mapping[str, tuple[str, ...]], verb: int = -1) -> str:
    """The question as a clause for a refusal: "Where was Ingrid Halvorsen born?" → "where Ingrid Halvorsen
    was born"; "Where did Marta Kask study?" → "where Marta Kask studied"."""
    toks = [t for t in doc if not (t.is_punct and t.i == len(doc) - 1)]
    if len(toks) < 3:
        return doc.text.rstrip("?").strip()
    aux_i = next((i for i, t in enumerate(toks) if i > 0 and (
        (t.pos_ == "AUX" and t.dep_ in ("aux", "auxpass", "ROOT")) or (t.lemma_ == "do" and t.pos_ == "VERB"))), None)
    if aux_i is None:
        text = _as_written(toks)
        return text[:1].lower() + text[1:]
    aux = toks[aux_i]
    head = toks[:aux_i]
    rest = toks[aux_i + 1:]
    verb_i = next((i for i, t in enumerate(rest) if t.i == verb), None) if aux.lemma_ == "do" else None
    if verb_i is None:
        verb_i = next((i for i, t in enumerate(rest) if t.pos_ == "VERB" and t.dep_ == "ROOT"), None)
    if verb_i is None and aux.lemma_ == "be":  # the parser may make "was" the root of "in what year was X founded"
        verb_i = next((i for i, t in enumerate(rest) if i > 0 and t.pos_ == "VERB" and t.tag_ in ("VBN", "VBD")), None)
    if verb_i is None and aux.lemma_ == "do":
        verb_i = next((i for i, t in enumerate(rest) if t.tag_ == "VB" or (t.pos_ in ("VERB", "NOUN") and i > 0 and
                                                                           rest[i - 1].pos_ == "PROPN")), None)
    if aux.lemma_ == "do" and verb_i is not None:
        subject = rest[:verb_i]
        verb = rest[verb_i]
        form = _inflect(verb.lemma_, aux.tag_, irregular)
        words = [*head, *subject, form, *rest[verb_i + 1:]]
    elif aux.dep_ == "ROOT" or aux.lemma_ in ("be", "have"):
        # "Where was X born" → "where X was born"; "Who is the founder of X" → "who the founder of X is"
        split = verb_i if verb_i is not None else len(rest)
        if head and head[0].dep_ in ("nsubj", "nsubjpass") and verb_i is None:  # "who is …": already a clause
            words = list(toks)
        else:
            words = [*head, *rest[:split], aux, *rest[split:]]
    else:
        words = list(toks)
    text = _as_written(words).replace(" 's", "'s").replace(" ,", ",")
    return text[:1].lower() + text[1:]


def _as_written(words: Sequence[Any]) -> str:
    """Tokens (or words put in their place) joined as the question spaced them: "FHP-IR-2025-014" stays whole,
    where a plain join writes "FHP - IR-2025 - 014"; a moved or inflected word gets a space."""
    out: list[str] = []
    for k, w in enumerate(words):
        out.append(w if isinstance(w, str) else w.text)
        if k + 1 < len(words):
            nxt = words[k + 1]
            adjacent = not isinstance(w, str) and not isinstance(nxt, str) and nxt.i == w.i + 1
            out.append(w.whitespace_ if adjacent else " ")
    return "".join(out)


_ARCHAIC = frozenset(("wrought", "bade", "durst", "clomb", "holp", "crope"))
"""Past forms the lemmatizer's exception table holds that no refusal should write ("where X wrought")."""


def _inflect(lemma: str, tag: str, irregular: Mapping[str, tuple[str, ...]]) -> str:
    """The verb as "did"/"does" would have it: past or third person, from the lemmatizer's own exceptions
    first ("lead" → "led"), else the regular spelling rules."""
    special = {"be": {"VBD": "was", "VBZ": "is"}, "have": {"VBD": "had", "VBZ": "has"},
               "do": {"VBD": "did", "VBZ": "does"}, "go": {"VBD": "went", "VBZ": "goes"}}
    if lemma in special and tag in special[lemma]:
        return special[lemma][tag]
    if tag == "VBD":
        forms = [f for f in irregular.get(lemma, ()) if not f.endswith(("ing", "s")) and f not in _ARCHAIC]
        if forms:
            return sorted(forms, key=len)[0]
        if lemma.endswith("e"):
            return lemma + "d"
        if lemma.endswith("y") and len(lemma) > 2 and lemma[-2] not in "aeiou":
            return lemma[:-1] + "ied"
        return lemma + "ed"
    if tag == "VBZ":
        if lemma.endswith(("s", "sh", "ch", "x", "z", "o")):
            return lemma + "es"
        if lemma.endswith("y") and len(lemma) > 2 and lemma[-2] not in "aeiou":
            return lemma[:-1] + "ies"
        return lemma + "s"
    return lemma


# --- reading sentences ---------------------------------------------------------------------------------


def _neighbours(tok: Any) -> Iterable[tuple[Any, str]]:
    """Dependency neighbours with the edge label as seen from ``tok`` ("^dep" going up), plus the links the
    parse leaves implicit: a relative clause's subject is the noun it modifies, and a verb joined by "and"
    shares the first verb's subject."""
    for c in tok.children:
        yield c, c.dep_
    if tok.dep_ != "ROOT":
        yield tok.head, "^" + tok.dep_
    if tok.pos_ in ("VERB", "AUX"):
        rel_pronoun = any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in ("who", "which", "that")
                          for c in tok.children)
        if tok.dep_ == "relcl" and rel_pronoun:
            yield tok.head, "nsubj" if any(c.dep_ == "nsubj" for c in tok.children) else "nsubjpass"
        if tok.dep_ == "conj" and tok.head.pos_ in ("VERB", "AUX") and not any(
                c.dep_ in _SUBJECT_EDGES for c in tok.children):
            for c in tok.head.children:
                if c.dep_ in _SUBJECT_EDGES:
                    yield c, "nsubj"
        if tok.tag_ == "VBN" and not any(c.dep_ == "agent" for c in tok.children):
            # "directed and written by X": participles joined by "and" share their "by" agent
            joined = [c for c in tok.children if c.dep_ == "conj" and c.tag_ == "VBN"]
            joined += [tok.head] if tok.dep_ == "conj" and tok.head.tag_ == "VBN" else []
            for verb in joined:
                for c in verb.children:
                    if c.dep_ == "agent":
                        yield c, "agent"
        if tok.dep_ == "advcl" and tok.tag_ in ("VBN", "VBG") and tok.i < tok.head.i and not any(
                c.dep_ in _SUBJECT_EDGES or c.dep_ in ("nsubjpass", "mark") for c in tok.children):
            # "Born in Tallow Cross, she moved to Kilnford": an opening participle's subject is its clause's
            for c in tok.head.children:
                if c.dep_ in _SUBJECT_EDGES:
                    yield c, "nsubjpass" if tok.tag_ == "VBN" else "nsubj"
        if tok.dep_ == "acl" and tok.tag_ == "VBN":  # "a drone made by X": the drone is what was made
            yield tok.head, "nsubjpass"
        if tok.dep_ == "acl" and tok.tag_ != "VBN":  # "a roboticist, born in Tartu" is tagged acl too
            yield tok.head, "nsubjpass" if tok.lemma_ == "bear" else "nsubj"


def _reach(rel: Any, limit: int) -> dict[int, tuple[int, str]]:
    """Tokens reachable from ``rel`` within ``limit`` links without passing through another clause's verb:
    token index → (links, the first edge taken from ``rel``). Prepositions, appositions and compounds are
    free (a "by X" is one link, "the engineer Ingrid Halvorsen" one name)."""
    seen: dict[int, tuple[int, str]] = {rel.i: (0, "")}
    frontier = [(rel, 0, "")]
    while frontier:
        tok, cost, first = frontier.pop(0)
        if tok.i != rel.i and tok.pos_ in ("VERB", "AUX") and tok.lemma_ not in _LIGHT:
            continue  # another clause's verb: what hangs on it is its own relation
        for nxt, dep in _neighbours(tok):
            base = dep.lstrip("^")
            step = 0 if base in ("appos", "compound", "flat", "case", "det", "poss", "nummod", "quantmod") or \
                nxt.pos_ == "ADP" else 1
            if base in _CLAUSE_EDGES and tok.i != rel.i and not (base == "conj" and nxt.pos_ in ("PROPN", "NOUN")):
                continue
            total = cost + step
            edge = first or dep
            if total > limit or (nxt.i in seen and seen[nxt.i][0] <= total):
                continue
            seen[nxt.i] = (total, edge)
            frontier.append((nxt, total, edge))
    return seen


def _passive(rel: Any) -> bool:
    return any(c.dep_ in ("auxpass", "nsubjpass", "agent") for c in rel.children) or (
        rel.tag_ == "VBN" and rel.dep_ in ("acl", "amod"))


def _role_fits(role: Role, rel: Any, edge: str) -> bool:
    """Whether the first link from the relation word leads to the slot the wh-word fills."""
    if role == "subject":
        if rel.pos_ not in ("VERB", "AUX"):
            return edge in ("nsubj", "appos", "^appos", "^compound", "^attr", "^pobj", "^nsubj", "poss")
        return edge == "agent" if _passive(rel) else edge in ("nsubj", "agent")
    if role == "object":
        return edge in ("dobj", "nsubjpass", "attr", "oprd", "prep", "^acl")
    if role == "adverbial":
        return edge in ("prep", "npadvmod", "advmod", "dobj", "appos", "dative", "agent", "nummod", "attr",
                        "^prep", "^pobj", "^npadvmod", "acomp", "oprd") or (edge == "^attr" and rel.pos_ != "VERB")
    if role == "count":  # "the cost was £241,700": a noun's value is what "is" says of it
        return not edge.startswith("^nsubj") or (rel.pos_ == "NOUN" and rel.head.lemma_ == "be")
    return True


@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    root: Any
    label: str
    tokens: frozenset[int]


def candidates(span: Any) -> list[_Candidate]:
    """The spans of a sentence that could be an answer: its named entities, identifiers, proper-noun runs
    NER missed, and bare numbers."""
    out: list[_Candidate] = []
    taken: set[int] = set()
    doc = span.doc
    for e in span.ents:
        start, end = e.start, e.end
        if e.label_ not in VALUE_LABELS:  # NER cut "Ana Costa" to "Costa": take the proper nouns beside it
            while start > span.start and doc[start - 1].pos_ == "PROPN" and doc[start - 1].i not in taken:
                start -= 1
            while end < span.end and doc[end].pos_ == "PROPN" and not doc[end].ent_type_:
                end += 1
        if doc[start].lower_ == "the":
            start += 1
        if e.label_ == "MONEY" and start > span.start and doc[start - 1].text in ("£", "$", "€", "¥"):
            start -= 1  # NER leaves out the sign of "£241,700"
        if e.label_ in VALUE_LABELS and start > span.start and doc[start - 1].lower_ in ("every", "each"):
            start -= 1  # "every five years" is how often, "five years" how long
        if start >= end:
            continue
        sub = doc[start:end]
        out.append(_Candidate(sub.text, sub.root, e.label_, frozenset(range(start, end))))
        taken.update(range(e.start, end))
        taken.update(range(start, end))
    run: list[Any] = []
    for tok in [*span, None]:
        if tok is not None and tok.i not in taken and (tok.pos_ == "PROPN" or _CODE.match(tok.text)) and \
                not (tok.i == span.start and tok.pos_ == "PROPN" and tok.is_title and tok.lower_ in _PRONOUNS):
            run.append(tok)
            continue
        if run:
            first, last = run[0], run[-1]
            doc = first.doc
            sub = doc[first.i:last.i + 1]
            label = "CODE" if any(_CODE.match(t.text) for t in run) else ""
            out.append(_Candidate(sub.text, sub.root, label, frozenset(range(first.i, last.i + 1))))
            run = []
    for m in IDENTIFIER.finditer(span.text):
        sub = span.char_span(m.start(), m.end(), alignment_mode="expand")
        if sub is not None and not any(c.label == "CODE" and c.tokens == frozenset(range(sub.start, sub.end))
                                       for c in out):
            out = [c for c in out if not (c.tokens & set(range(sub.start, sub.end)))]
            out.append(_Candidate(m.group(0), sub.root, "CODE", frozenset(range(sub.start, sub.end))))
            taken.update(range(sub.start, sub.end))
    for tok in span:
        if tok.i not in taken and tok.like_num and tok.pos_ == "NUM":
            out.append(_Candidate(tok.text, tok, "CARDINAL", frozenset({tok.i})))
    return out


def _numbered(span: Any, noun: str) -> list[_Candidate]:
    """For "which channel": the asked noun written with what singles one out ("VHF channel 14", "Berth 7",
    "Gate B"), a name no NER labels."""
    if not noun:
        return []
    out = []
    for tok in span:
        if tok.lemma_.casefold() != noun or tok.pos_ not in ("NOUN", "PROPN"):
            continue
        parts = [c for c in tok.children if c.dep_ in ("compound", "nummod", "appos") and
                 (c.like_num or c.pos_ == "PROPN" or bool(_CODE.match(c.text)) or c.i < tok.i)]
        if not any(c.i > tok.i for c in parts):
            continue  # "the VHF channel" is a kind; "radio channel 14" is one of them
        first = min([tok.i, *(c.left_edge.i for c in parts)])
        last = max([tok.i, *(c.right_edge.i for c in parts)])
        sub = span.doc[first:last + 1]
        out.append(_Candidate(sub.text, tok, "", frozenset(range(first, last + 1))))
    return out


_CALENDAR = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
                       r"[a-z]*\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\d{1,2}:\d{2}", re.IGNORECASE)
"""A date or a time of day as written: a year, a month, a weekday, a clock time."""


def fits_kind(asked: Asked, cand: _Candidate) -> bool:
    """Whether ``cand`` is the kind of thing asked for: it names the wh-noun ("which shipyard" → "Aalto
    Shipyards", whatever NER called it), or carries a label of the asked kind, or is an identifier asked
    for by name ("what is the service code …")."""
    low = cand.text.casefold()
    if asked.kind is not None and asked.kind.strict:
        return asked.kind.value is not None and asked.kind.value.search(cand.text) is not None
    if asked.wh_noun and asked.role != "count" and cand.label not in VALUE_LABELS and \
            re.search(rf"\b{re.escape(stem(asked.wh_noun))}", low):
        return True
    kind = asked.kind
    if kind is not None and "DATE" not in kind.labels and cand.label in ("DATE", "TIME") and \
            _CALENDAR.search(cand.text):
        return False  # "March 2025" holds a number but is no amount: "how much food was thrown away?"
    if kind is None:
        return asked.role == "attribute" and (cand.label in ("CODE", "") or cand.label not in VALUE_LABELS
                                              or bool(re.search(r"\d", cand.text)))
    wanted = kind.labels | kind.accept
    if asked.role in ("subject", "object", "attribute") and cand.label == "NORP" and "NORP" not in kind.labels:
        return False  # "an Estonian start-up": an adjective, not who did it
    if cand.label in wanted:
        return True
    if kind.labels == {"ORG"} and cand.label in ("PERSON", "GPE", "FAC", "PRODUCT", ""):
        return True  # NER often calls a company a person ("Aalto Shipyards"): the slot it fills decides
    if cand.label == "CODE" and "CODE" not in kind.labels and kind.labels & {"MONEY", "CARDINAL", "QUANTITY"}:
        return False  # "BF-INC-0217" holds digits but counts nothing
    if kind.value is not None and kind.value.search(cand.text) and cand.label in VALUE_LABELS | {"CODE"}:
        return True
    if kind.name == "a place" and cand.label not in VALUE_LABELS | {"NORP", "CODE"} and \
            cand.root.dep_ == "pobj" and cand.root.head.lower_ in ("in", "at", "near"):
        return True  # "a boatbuilder in Ardlow": the small NER calls an unknown town a person or a product
    return cand.label == "" and bool(wanted & {"PERSON", "ORG", "GPE", "LOC", "FAC"})  # a name NER missed


def _mentions(span: Any, names: Iterable[str]) -> set[int]:
    """Token indexes in ``span`` that spell one of ``names`` (whole, or a person's surname alone)."""
    out: set[int] = set()
    text = span.text.casefold()
    for name in names:
        words = name.casefold().split()
        if not words:
            continue
        toks = [t.lower_ for t in span]
        for i in range(len(toks) - len(words) + 1):
            if toks[i:i + len(words)] == words:
                out.update(span[j].i for j in range(i, i + len(words)))
        if IDENTIFIER.fullmatch(name.upper()):  # the tokenizer cuts "HB-2025-007" into "HB-2025", "-", "007"
            for m in re.finditer(rf"(?<!\w){re.escape(name.casefold())}(?!\w)", text):
                found = span.doc.char_span(span.start_char + m.start(), span.start_char + m.end(),
                                           alignment_mode="expand")
                if found is not None:
                    out.update(t.i for t in found)
        if len(words) >= 2 and len(words[-1]) >= 4 and words[0][:1].isalpha():  # a person by surname
            out.update(t.i for t in span if t.lower_ == words[-1] and t.pos_ == "PROPN" and t.ent_type_ == "PERSON")
    return out


def _first_word_for(s: Parsed, name: str) -> set[int]:
    """"Kestrel engineers completed 14 visits" in a passage that writes "Kestrel Therapy Systems": a name's first
    word alone, with no capitalised word either side ("Alan Brackenridge" is a person, not Brackenridge Foods),
    stands for the whole name where the passage writes the whole name and no other name starting with that word
    (then "Kestrel" could be either)."""
    words = norm(name).split()
    if len(words) < 2 or len(words[0]) < 4 or words[0] in stop_words():
        return set()
    raw = f"{s.passage.name}\n{s.passage.text}"
    runs = {norm(m.group(0)) for m in re.finditer(rf"\b(?i:{re.escape(words[0])})(?:[ -][A-Z][\w&'-]*)+", raw)
            if m.group(0)[:1].isupper()}
    whole = " ".join(words)
    if whole not in runs or any(not (r == whole or r.startswith(whole + " ")) for r in runs):
        return set()
    return {t.i for t in s.span if t.lower_ == words[0] and t.text[:1].isupper() and not any(
        0 <= j < len(t.doc) and t.doc[j].text[:1].isupper() and t.doc[j].pos_ == "PROPN" for j in (t.i - 1, t.i + 1))}


def _topic_in(span: Any, words: Sequence[str]) -> set[int]:
    """The tokens writing each of a question's topic nouns ("breakwater", "works", "contract"), or none unless
    every one is written."""
    out: set[int] = set()
    for word in words:
        hits = {t.i for t in span if t.lemma_.casefold() == word or t.lower_.startswith(stem(word))}
        if not hits:
            return set()
        out |= hits
    return out


def _topic_in_text(text: str, words: Sequence[str]) -> bool:
    return bool(words) and all(re.search(rf"\b{re.escape(stem(w))}", text) for w in words)


def _outside_longer_names(span: Any, where: set[int], name: str) -> set[int]:
    """Mentions of ``name`` that are not part of a longer name: "Zurich" in "ETH Zurich" is another thing."""
    if not where:
        return where
    for cand in candidates(span):
        if cand.tokens & where and len(norm(cand.text)) > len(name) and not norm(cand.text).startswith(name):
            where = where - cand.tokens
    return where


def _stand_ins(span: Any) -> set[int]:
    """Pronouns and "the company"-style definite nouns: in a passage about X, they stand for X."""
    out = {t.i for t in span if t.lower_ in _PRONOUNS and t.pos_ in ("PRON", "DET")}
    out |= {t.i for t in span if t.lower_ == "there" and t.i > span.start and t.nbor(-1).pos_ in ("NOUN", "PROPN")}
    # "our account manager there": after a noun, "there" is a place named before, not "there is"
    out |= {t.i for t in span if t.pos_ == "NOUN" and any(c.dep_ == "det" and c.lower_ == "the" for c in t.children)
            and not any(c.pos_ == "PROPN" for c in t.children) and t.dep_ in ("nsubj", "nsubjpass", "dobj", "poss")}
    return out


def norm(text: str) -> str:
    """A name as compared: case-folded, without a leading "the"."""
    text = text.casefold().strip()
    return text[4:] if text.startswith("the ") else text


_PERSONAL = frozenset({"he", "she", "his", "her", "him", "hers"})


class _Discourse:
    """What a pronoun or "the yard" stands for: the nearest name before it in its passage that was a
    sentence's subject ("Kittiwake Boatworks is a small boatbuilder … The yard built …"), a person's for
    "he"/"she", anything else's for "it" and "the yard"; else the passage's own name. Plain centering, no
    model: enough for the documents people write, where a paragraph keeps to its subject."""

    def __init__(self, sentences: Sequence[Parsed]) -> None:
        self.sentences = sentences
        self._subjects: dict[int, list[tuple[str, bool]]] = {}

    def subjects(self, i: int) -> list[tuple[str, bool]]:
        """(name, is a person) of the names that are subjects in sentence ``i``, in order."""
        if i not in self._subjects:
            span = self.sentences[i].span
            out: list[tuple[str, bool]] = []
            for cand in candidates(span):
                if cand.label in VALUE_LABELS or cand.label == "CODE":
                    continue
                if cand.root.dep_ in ("nsubj", "nsubjpass") or (cand.root.dep_ in ("appos", "compound")
                                                                 and cand.root.head.dep_ in ("nsubj", "nsubjpass")):
                    out.append((cand.text, cand.label == "PERSON"))
            if not any(person for _, person in out):
                out = [*self._first_name_subject(i), *out]
            self._subjects[i] = out
        return self._subjects[i]

    def _first_name_subject(self, i: int) -> list[tuple[str, bool]]:
        """"Rhys came to Fellgate in 2021": a first name the small tagger reads as a common noun (or NER as a
        place) is the person its passage names in full elsewhere ("Name: Rhys Okafor"), so the next sentence's
        "he" is him."""
        subject = next((t for t in self.sentences[i].span if t.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None or not subject.is_title or subject.lower_ in _PRONOUNS or subject.pos_ == "PRON":
            return []
        number = self.sentences[i].passage.number
        named = name_field(self.sentences[i].passage.text)  # "Name: Ines Moreau", however NER reads it
        if named.split()[0:1] == [subject.text] and " " in named:
            return [(named, True)]
        for j, other in enumerate(self.sentences):
            if j == i or other.passage.number != number:
                continue
            for cand in candidates(other.span):
                if cand.label in ("PERSON", "") and cand.text.split()[0] == subject.text and " " in cand.text:
                    return [(cand.text, True)]
        return []

    def antecedent(self, i: int, tok: Any, *, fallback: bool = True) -> str:
        """The name ``tok`` (a pronoun or definite noun in sentence ``i``) stands for, or "". NER's labels are
        a guess ("Kittiwake Boatworks" as a person): "he"/"she" take a person, "it" anything else first,
        "the yard" (a noun says it is no pronoun for a person) the nearest subject. ``fallback``: the passage's
        own name when no earlier sentence has a subject."""
        person = tok.lower_ in _PERSONAL
        passage = self.sentences[i].passage
        j = i - 1
        seen: list[tuple[str, bool]] = []
        while j >= 0 and j >= i - 4 and self.sentences[j].passage.number == passage.number:
            seen += self.subjects(j)
            j -= 1
        if tok.pos_ == "NOUN":  # "the foundation": the Halvorsen Foundation named just before, wherever it stood
            named = self.named_before(i, tok)
            if named:
                return named
        if not person:  # "it", "the firm": the document's own subject when it was a subject just before
            topic = [name for name, _ in seen if _same_thing(norm(name), norm(passage.name))]
            if topic:
                return topic[0]
        for name, is_person in seen:
            if is_person == person:
                return name
        if tok.pos_ == "NOUN" and seen and not person:
            return seen[0][0]
        return passage.name if fallback and not person else ""

    def named_before(self, i: int, tok: Any) -> str:
        """The nearest name before ``tok`` whose last word is its noun ("the Halvorsen Foundation" for "the
        foundation"), in its sentence or the few before it in its passage."""
        passage = self.sentences[i].passage
        noun = tok.lemma_.casefold()
        j = i
        while j >= 0 and j >= i - 4 and self.sentences[j].passage.number == passage.number:
            names = [c for c in candidates(self.sentences[j].span) if (j < i or max(c.tokens) < tok.i)
                     and c.text.split()[-1].casefold().rstrip("s") == noun.rstrip("s")]
            if names:
                return max(names, key=lambda c: min(c.tokens)).text
            j -= 1
        return ""

    def mentioned_before(self, i: int, name: str, *, with_word: str = "") -> bool:
        """``name`` is written in one of the few sentences before ``i`` in its passage (a pronoun in ``i`` may
        stand for it); with ``with_word``, in a sentence that also writes that noun."""
        passage = self.sentences[i].passage
        j = i - 1
        head = name.split()[-1] if name.split() else ""
        while j >= 0 and j >= i - 6 and self.sentences[j].passage.number == passage.number:
            span = self.sentences[j].span
            if with_word and not any(t.lemma_.casefold() == with_word for t in span):
                pass
            elif _mentions(span, [name]) or (len(name.split()) > 1 and any(
                    t.lower_ == head and t.pos_ in ("NOUN", "PROPN") and any(c.lower_ == "the" for c in t.children)
                    for t in span)):
                return True  # "the agency" is the Merrow Harbour Agency once the passage has named it
            j -= 1
        return False


def _same_thing(title: str, name: str) -> bool:
    """A passage named "Skua drone" is about "Skua"; "Tallinn University of Technology" is not about "Tallinn"."""
    if not title or not name:
        return False
    if title == name:
        return True
    short, long = sorted((title, name), key=len)
    return long.startswith(short + " ") and len(long.split()) <= len(short.split()) + 1


class _Grounding:
    """Which names a sentence may be about: the question's own (depth 0), then bridges found through
    sentences that name them with the description's words (depth 1, 2)."""

    def __init__(self, asked: Asked, sentences: Sequence[Parsed], max_depth: int, discourse: _Discourse) -> None:
        self.discourse = discourse
        self.sentences = sentences
        self.index = {id(s): i for i, s in enumerate(sentences)}
        self.depth: dict[str, int] = {norm(n): 0 for n in asked.names if n}
        self.topic = " ".join(asked.topic)
        if self.topic:
            self.depth[self.topic] = 0
        self.via: dict[str, tuple[int, ...]] = {k: () for k in self.depth}
        self.kinds_of = asked.kinds_of
        self.relation = asked.relation
        self.cover: dict[int, int] = {}
        """Per bridge sentence, how many of the description's words it writes: the best-described bridge
        wins ("its batteries come from Polar Cells" over "made by Northwind" for "the battery maker that
        supplies the Skua")."""
        self._holders()
        if not asked.described:
            return
        question_words = set(re.findall(r"[\w'-]+", asked.question.casefold()))
        for depth in range(1, max_depth + 1):
            self._holders()
            added = False
            for i, s in enumerate(sentences):
                field = FIELD.match(s.span.text.strip())
                if field is not None:
                    added |= self._field_bridge(i, s, field, asked, depth)
                    continue
                known = self.known_in(s, max_level=depth - 1) or self.record_about(s, max_level=depth - 1)
                cover = len({t.lemma_ for t in s.span if _matches(t, asked.cues)})
                if known is None and depth == 1 and self.topic and not asked.names and cover >= 3:
                    known = (self.topic, set())  # a name-less description, written out: "Calder found voids in …"
                if known is None or not cover:
                    continue
                self.cover[i] = cover
                name, _ = known
                near: set[int] = set()
                for t in s.span:
                    if _matches(t, asked.cues):
                        near |= set(_reach(t, 2))
                for cand in candidates(s.span):
                    key = norm(cand.text)
                    if cand.label in VALUE_LABELS or cand.label == "CODE" or key in self.depth or len(key) < 3:
                        continue
                    if set(re.findall(r"[\w'-]+", key)) <= question_words:
                        continue  # "Incident" in "Incident HB-2025-007": a bridge is what the question does not write
                    if not cand.tokens & near:
                        continue  # a name beside the description, not the one it describes
                    self.depth[key] = depth
                    self.via[key] = (*self.via[name], i)
                    self._long_forms(key)
                    added = True
                subject = norm(s.passage.name)
                if subject and subject not in self.depth and _mentions(s.span, [name]):
                    self.depth[subject] = depth
                    self.via[subject] = (*self.via[name], i)
                    added = True
            if not added:
                break

    def _holders(self) -> None:
        """The person a staff record names is the role its "Role:" field gives: "the agency's Digital Systems
        Lead" is Priya Raghunathan where her profile writes "Name: Priya Raghunathan" and "Role: Digital Systems
        Lead". Both are one bridge, at the role's depth, reached through the role's line."""
        for i, s in enumerate(self.sentences):
            field = FIELD.match(s.span.text.strip())
            if field is None or not _key_words(field["key"]) & _ROLE_KEYS:
                continue
            role = norm(field["value"].strip(" *_."))
            holder = norm(name_field(s.passage.text))
            if role in self.depth and holder and holder != role and holder not in self.depth:
                self.depth[holder] = self.depth[role]
                self.via[holder] = (*self.via[role], i)
                self.cover.setdefault(i, 0)

    def _long_forms(self, key: str) -> None:
        """"Calder" found as a bridge is "Calder Marine Engineering" where a passage about that name also writes
        it short ("Calder has worked for the agency since 2016"): the long name joins the bridge, at its depth."""
        for other in self.sentences:
            long = norm(other.passage.name.rsplit(":", 1)[-1])
            if long in self.depth or not long.startswith(key + " "):
                continue
            text = other.passage.text.casefold()
            rest = re.escape(long[len(key):])
            if re.search(rf"(?<!\w){re.escape(key)}(?!\w)(?!{rest})", text):
                self.depth[long] = self.depth[key]
                self.via[long] = self.via[key]

    def _field_bridge(self, i: int, s: Parsed, field: re.Match[str], asked: Asked, depth: int) -> bool:
        """"Contractor: Calder Marine Engineering" in the record of project PR-2024-004 leads from the project
        to Calder, for "the contractor for project PR-2024-004"."""
        if not (_key_words(field["key"]) & (asked.heads | _description_words(asked) if asked.heads else asked.cues)):
            return False  # the field names what is described ("Contractor:") or what it did ("Reported by:" for
            # "the person who reported …"), not a word near it ("Employer:")
        text = f"{s.passage.name}\n{s.passage.text}".casefold()
        known = [n for n, level in self.depth.items() if level == depth - 1 and n in text]
        value = re.split(r",\s|\s\(|;\s", field["value"].strip(" *_"), maxsplit=1)[0].strip(" .*_")
        key = norm(value)
        if not known or not value[:1].isupper() or key in self.depth or len(key) < 3:
            return False
        self.depth[key] = depth
        self.via[key] = (*self.via[known[0]], i)
        self.cover[i] = len(_key_words(field["key"]) & asked.cues)
        return True

    def record_about(self, s: Parsed, *, max_level: int) -> tuple[str, set[int]] | None:
        """The grounded name the sentence's whole record is about ("Project code: PR-2024-004" heads the
        page whose sentence says "Calder Marine Engineering is the contractor"): a bridge may start there."""
        record = _record_of(s.passage)
        for name, level in sorted(self.depth.items(), key=lambda kv: kv[1]):
            if level <= max_level and name in record:
                return name, set()
        return None

    def _stand_ins_for(self, s: Parsed, name: str) -> set[int]:
        """The pronouns and "the company"s of ``s`` that stand for ``name``: by their antecedent, or, when no
        earlier sentence has a subject to be one, because the passage named it just before."""
        out: set[int] = set()
        i = self.index[id(s)]
        for t in _stand_ins(s.span):
            found = self.discourse.antecedent(i, s.span.doc[t], fallback=False)
            if found:
                if _same_thing(norm(found), name) or (s.span.doc[t].lower_ == "there" and " " in name
                                                      and norm(found) == name.split()[0]):
                    out.add(t)  # "Kestrel has been … Our account manager there is …": Kestrel Therapy Systems
            elif _same_thing(norm(s.passage.name), name) or self._continues(i, s.span.doc[t], name):
                out.add(t)
        return out

    def _continues(self, i: int, tok: Any, name: str) -> bool:
        """Whether a stand-in with no antecedent of its own goes on about a name written just before: "it" or
        "they" may; "the agency" may mean the Merrow Harbour Agency, and "the hoist cable" the one a sentence
        about Berth 7 gave ("its hoist cable parted"); "he"/"she" only by their antecedent, and "the clean-up"
        never means Tobias Renwick because he is in the list of those present."""
        if tok.lower_ in _PERSONAL or not self.discourse.mentioned_before(i, name):
            return False
        if tok.pos_ != "NOUN" or tok.lemma_.casefold() in name.split() or tok.lower_ in name.split():
            return True
        return self.discourse.mentioned_before(i, name, with_word=tok.lemma_.casefold())

    def antecedent(self, s: Parsed, tok_i: int) -> str:
        i = self.index[id(s)]
        return self.discourse.antecedent(i, s.span.doc[tok_i])

    def _by_kind(self, s: Parsed, name: str) -> set[int]:
        """"the yard" in a passage that names Turku, for "the Turku yard"."""
        nouns = {noun for noun, n in self.kinds_of if norm(n) == name}
        if not nouns or name not in s.passage.text.casefold():
            return set()
        return {t.i for t in s.span if t.lemma_.casefold() in nouns
                and any(c.dep_ in ("det", "poss") for c in t.children)}

    def _under_heading(self, s: Parsed, name: str) -> set[int]:
        """"The final cost was £241,700" under the heading "1. Project Heron": the asked relation written as a
        definite noun of its own (no "of" or possessive saying whose), in a section whose heading names the
        question's name, is that name's; minutes and reports are written by agenda item."""
        heading = _heading_before(s)
        if not heading or name not in heading.casefold():
            return set()
        return {t.i for t in s.span if t.pos_ == "NOUN" and t.dep_ in ("nsubj", "nsubjpass")
                and _matches(t, self.relation) and any(c.dep_ == "det" and c.lower_ == "the" for c in t.children)
                and not any(c.dep_ == "poss" or (c.dep_ == "prep" and c.lower_ == "of") for c in t.children)}

    def known_in(self, s: Parsed, *, max_level: int = 9) -> tuple[str, set[int]] | None:
        """The best-grounded name ``s`` is about, with its token indexes in the sentence."""
        best: tuple[int, str, set[int]] | None = None
        for name, level in self.depth.items():
            if level > max_level:
                continue
            if name == self.topic:
                where = _topic_in(s.span, name.split())
            else:
                where = _outside_longer_names(s.span, _mentions(s.span, [name]), name)
                if not where:  # a bridge too: "Tomasz studied medicine in Kraków" on his profile
                    where = _first_word_for(s, name)
            if not where:
                where = self._stand_ins_for(s, name)
            if not where and level == 0:
                where = self._by_kind(s, name)
            if not where:  # a bridge's section too: "The budget is £410,000" under "# Project Osprey"
                where = self._under_heading(s, name)
            if not where and _subjectless(s.span) and _same_thing(norm(_document_name(s.passage)), name):
                where = {s.span.root.i}  # "Open to the public from 12 July 2025" on the exhibition's own page
            if where and (best is None or level < best[0]):
                best = (level, name, where)
        return None if best is None else (best[1], best[2])


def _subjectless(span: Any) -> bool:
    """A fragment with no subject ("Open to the public from 12 July 2025 to 4 January 2026."): what it is about
    is what its document is about."""
    root = span.root
    return root.pos_ in ("VERB", "ADJ") and not any(c.dep_ in _SUBJECT_EDGES or c.dep_ == "nsubjpass"
                                                     for c in root.children)


def _document_name(passage: Passage) -> str:
    """The name a passage's document is about: "Thread and Tide" for the page "Exhibition project – Thread and
    Tide"."""
    return kind_name(passage.name) or passage.name


_HEADING = re.compile(r"(?m)^#{1,6}[ \t]+(?P<text>[^\n]+?)[ \t#]*$")


def _heading_before(s: Parsed) -> str:
    """The Markdown heading the sentence's section opens with in its passage, "" when none is written before it
    (the sentence is parsed with its paragraph alone, so it is found in the passage by its opening words)."""
    at = s.passage.text.find(s.span.text.strip()[:60])
    headings = list(_HEADING.finditer(s.passage.text[:at])) if at > 0 else []
    return headings[-1]["text"] if headings else ""


def find_statement(asked: Asked, sentences: Sequence[Parsed], order: Sequence[int]) -> Outcome:
    """The best statement of the asked relation among ``sentences`` (tried in ``order``, the answerer's
    ranking), or why there is none."""
    asked = _names_as_written(asked, sentences)
    discourse = _Discourse(sentences)
    grounding = _Grounding(asked, sentences, max_depth=2 if asked.described else 0, discourse=discourse)
    earlier = None if asked.earlier is None else _earlier_employer(asked, sentences, order, grounding)
    if earlier is not None:  # the present employer is written beside the earlier one: what says "before" first
        return Outcome(earlier)
    found: list[tuple[int, int, bool, int, Statement]] = []
    told: set[int] = set()
    about: list[int] = []
    near: list[tuple[int, str, str]] = []
    for rank, i in enumerate(order):
        s = sentences[i]
        text = s.span.text.strip()
        row = row_fields(text)
        field = FIELD.match(text) if row is None else None
        if row is not None or field is not None:  # a record states its fields as a sentence would
            if row is not None:
                got = _row_answer(asked, s, row, grounding)
            else:
                assert field is not None
                got = _field_answer(asked, s, field, grounding)
            if got is not None and _qualified(asked, s.passage):
                name, answer = got
                depth = grounding.depth[name]
                cover = sum(grounding.cover[j] for j in grounding.via[name])
                exact = field is not None and _own_word(asked, _key_words(field["key"]))
                found.append((depth, -cover, not exact, rank, Statement(answer, i, grounding.via[name], depth)))
            elif got is None and field is not None and (miss := _field_near_miss(asked, s, field, grounding)):
                about.append(i)
                near.append((i, *miss))
            continue
        known = grounding.known_in(s)
        if known is None:
            continue
        name, where = known
        told.add(id(s.passage))
        rels = [t for t in s.span if (_matches(t, asked.relation) and not _other_spouse(asked, t)
                                      and not _modifies_another_noun(t, asked)
                                      and not _names_another_role(asked, t)) or (
            "locate" in asked.relation and t.lemma_ == "be" and t.dep_ == "ROOT")]  # "X is a shipbuilder in Turku"
        depth = grounding.depth[name]
        if asked.described and depth == 0 and not _describes(s.span, asked, rels):
            continue  # "Marta Kask founded it" is about Lumen Robotics, not "the company that acquired" it
        for rel in rels:
            answer = _slot(asked, s.span, rel, where, lambda t, i=i: discourse.antecedent(i, t, fallback=False))
            if answer and not _qualified(asked, s.passage):
                break  # the relation, for something the question does not ask about: no answer, no near miss
            if answer:
                cover = sum(grounding.cover[j] for j in grounding.via[name])
                exact = _own_word(asked, {rel.lower_, rel.lemma_.casefold()})
                found.append((depth, -cover, not exact, rank, Statement(answer, i, grounding.via[name], depth)))
                break
        else:
            stated = [rel for rel in rels if _matches(rel, asked.relation)]  # not the "is" that stands in for "based"
            if any(_other_kind_in_slot(asked, s.span, rel, where) for rel in stated):
                about.append(i)  # "(born 1961)" for "where was she born?": the relation, with another kind
            elif asked.kind is not None and not asked.light:
                miss = _near_miss(asked, s.span, where)
                if miss is not None:
                    about.append(i)
                    near.append((i, *miss))
    joined = [norm(n) for n in asked.earlier or ()]
    found = [f for f in found if not any(_same_thing(norm(f[4].answer), n) for n in joined)]  # where they went
    if found:
        return Outcome(min(found, key=lambda f: f[:4])[4])
    titled = _code_of_described_document(asked, sentences, order) or _code_after_noun(asked, sentences, order,
                                                                                       grounding)
    if titled is not None:
        return Outcome(titled)
    if not about and _never_written(asked, sentences, told):
        return Outcome(None, f"No passage about {asked.names[0]} says {asked.embedded}.")
    return _unanswered(asked, about, near)


def _unanswered(asked: Asked, about: Sequence[int], near: Sequence[tuple[int, str, str]]) -> Outcome:
    """No statement: a refusal that says what the passages give instead where they are about the question's
    names, else no short answer (a chain not followed is no proof of absence)."""
    if not about or asked.described:
        return Outcome(None)
    reason = f"No passage says {asked.embedded}"
    if near:
        value, verb = near[0][1], near[0][2]
        reason += f": {value} is given for “{verb}”, not “{asked.relation_text}”"
    return Outcome(None, reason + ".")


def _names_as_written(asked: Asked, sentences: Sequence[Parsed]) -> Asked:
    """Two of the question's names joined by "and" are one name where a passage writes them so: "the Channels and
    Dredging Coordinator" is a post ("Role: Channels and Dredging Coordinator"), not two things each sought on
    its own; "Anna Reid and Tomasz Nowak" stay two people, since no passage writes them as one name."""
    names = list(asked.names)
    texts = {id(s.passage): f"{s.passage.name}\n{s.passage.text}".casefold() for s in sentences}.values()
    for a, b in zip(asked.names, asked.names[1:], strict=False):
        joined = re.search(rf"{re.escape(a)}\s+(?:and|&)\s+{re.escape(b)}", asked.question)
        if joined is None or a not in names or b not in names:
            continue
        if any(re.search(rf"(?<!\w){re.escape(joined[0].casefold())}(?!\w)", text) for text in texts):
            names[names.index(a)] = joined[0]
            names.remove(b)
    names = [_longest_written(asked.question, n, texts) for n in names]
    return asked if names == list(asked.names) else replace(asked, names=tuple(names))


def _longest_written(question: str, name: str, texts: Iterable[str]) -> str:
    """``name`` with the capitalised words beside it in the question, where a passage writes them together: the
    tagger reads "Measured" in "the Measured Hours exhibition" as a verb, but "Exhibition project: Measured
    Hours" names the exhibition whole."""
    words = list(re.finditer(r"[\w'&.-]+", question))
    at = next((i for i, w in enumerate(words) if question[w.start():].startswith(name)), None)
    if at is None:
        return name
    end = at + len(name.split())
    left, right = at, end
    while left > 1 and words[left - 1][0][:1].isupper():  # never the question's first word
        left -= 1
    while right < len(words) and words[right][0][:1].isupper():
        right += 1
    for start, stop in sorted(((a, b) for a in range(left, at + 1) for b in range(end, right + 1)),
                              key=lambda ab: ab[0] - ab[1]):
        longer = question[words[start].start():words[stop - 1].end()]
        if (start, stop) != (at, end) and any(
                re.search(rf"(?<!\w){re.escape(longer.casefold())}(?!\w)", text) for text in texts):
            return longer
    return name


_WORKED_AS = frozenset({"work", "spend", "be", "serve", "run", "manage", "lead", "head", "employ", "join", "hold",
                        "practise", "practice"})
"""The verbs a profile says earlier work with: "spent six years as a deck officer with", "had been head
physiotherapist at", "ran facilities for"."""


def _earlier_employer(asked: Asked, sentences: Sequence[Parsed], order: Sequence[int], grounding: _Grounding
                      ) -> Statement | None:
    """Where the person worked before the move the question names: a sentence about them that says it is about
    earlier work ("before that", "previously", "having spent") and names an organisation at, with or for which
    they worked, outside its own "before" phrase ("before joining Brackenridge"); or one that says where the move
    came from ("joined the agency from Tarran Freight"). None leaves the question to the plain reading."""
    joined = {norm(n) for n in asked.earlier or ()}
    found: list[tuple[int, int, Statement]] = []
    for rank, i in enumerate(order):
        s = sentences[i]
        known = grounding.known_in(s)
        if known is None or known[0] in joined:
            continue
        name, where = known
        before = _before_phrases(s.span)
        earlier = _says_earlier(s.span)
        for cand in candidates(s.span):
            key = norm(cand.text)
            if cand.label in VALUE_LABELS or cand.tokens & (where | before) or key in joined or key == name or \
                    grounding.depth.get(key) == 0:
                continue
            if (earlier and _worked_at(cand)) or _moved_from(cand):
                found.append((grounding.depth[name], rank, Statement(cand.text, i, grounding.via[name],
                                                                     grounding.depth[name])))
                break
    return min(found, key=lambda f: f[:2])[2] if found else None


def _says_earlier(span: Any) -> bool:
    """"Before that", "previously", "had been", "having spent", or a move "after six years as …": the sentence is
    about work before the present post."""
    return any(t.lower_ in _PREVIOUSLY or t.lower_ == "before" or (
        t.lower_ in ("had", "having") and t.dep_ == "aux" and t.head.tag_ == "VBN") or (
        t.lower_ == "after" and t.dep_ == "prep" and t.head.lemma_ in _MOVES) for t in span)


def _before_phrases(span: Any) -> set[int]:
    """The tokens of the sentence's "before" phrases: "before joining Brackenridge" names the later post. A
    "before" marking the main clause itself leaves the sentence whole."""
    return {d.i for t in span if t.lower_ == "before" and (t.dep_ == "prep" or (t.dep_ == "mark" and
                                                                                t.head.dep_ != "ROOT"))
            for d in _before_phrase(t)}


def _before_phrase(before: Any) -> list[Any]:
    """What a "before" introduces: its prepositional phrase ("before joining the agency"), or the clause it
    marks ("before he came to Fellgate")."""
    return list(before.subtree) if before.dep_ == "prep" else list(before.head.subtree)


def _phrase_head(cand: _Candidate) -> Any:
    """The noun a name modifies, where it is one ("yard" in "at the Tarran Freight yard"), else the name's root:
    what a preposition takes."""
    root = cand.root
    while root.dep_ == "compound" and root.head.pos_ in ("NOUN", "PROPN"):
        root = root.head
    return root


def _moved_from(cand: _Candidate) -> bool:
    """"joined the agency in 2014 from Tarran Freight", "came to Fellgate from the Kelso clinic": where a move
    started is where the person worked until then."""
    root = _phrase_head(cand)
    return root.dep_ == "pobj" and root.head.lower_ == "from" and root.head.head.lemma_ in _MOVES


def _worked_at(cand: _Candidate) -> bool:
    """The candidate is what someone worked at, with or for: the object of such a preposition that hangs on a
    verb of work, directly or through the post ("as a deck officer with Orrin Dredging")."""
    root = _phrase_head(cand)
    if root.dep_ != "pobj" or root.head.lower_ not in ("at", "with", "for"):
        return False
    x = root.head.head
    for _ in range(4):
        if x.pos_ in ("VERB", "AUX") or x.head.i == x.i:
            break
        x = x.head
    return x.pos_ in ("VERB", "AUX") and x.lemma_ in _WORKED_AS


_SPOUSES = frozenset({"husband", "wife"})


def _modifies_another_noun(tok: Any, asked: Asked) -> bool:
    """"Head office is at Newgate House": a relation word that only qualifies another noun ("head" of "office")
    names no one's relation; "the account manager" is the relation, "account" its qualifier, and "its code
    NW-7731-X" writes the relation before the name it gives."""
    return tok.dep_ in ("compound", "amod") and tok.head.pos_ == "NOUN" and tok.head.i != tok.i and \
        not _matches(tok.head, asked.relation)


def _other_spouse(asked: Asked, tok: Any) -> bool:
    """"his wife Helene" names a wife: no answer to "who is the husband of …", though the words share a group."""
    asked_noun = asked.relation_text.casefold()
    return asked_noun in _SPOUSES and tok.lemma_.casefold() in _SPOUSES and tok.lemma_.casefold() != asked_noun


def _asks_identifier(asked: Asked) -> bool:
    return asked.kind is not None and asked.kind.name == "an identifier"


def _code_of_described_document(asked: Asked, sentences: Sequence[Parsed], order: Sequence[int]) -> Statement | None:
    """"What is the reference of the incident in which sesame was left off a label?": a report, contract or
    project is named by the identifier its heading gives it ("INCIDENT REPORT BF-INC-0231"); the one whose text
    writes every noun of the description is the one described."""
    if not _asks_identifier(asked) or asked.names or len(asked.topic) < 2:
        return None
    named = re.compile(rf"\b{re.escape(stem(asked.topic[0]))}\w*\b(?:\s+\w+)?\s+(?:no\.?\s+|number\s+)?",
                       re.IGNORECASE)  # "INCIDENT REPORT ", "Contract no. "
    seen: set[int] = set()
    for i in order:
        passage = sentences[i].passage
        if id(passage) in seen:
            continue
        seen.add(id(passage))
        if not _topic_in_text(passage.text.casefold(), asked.topic):
            continue
        heading = f"{passage.name}\n{passage.text.lstrip().splitlines()[0] if passage.text.strip() else ''}"
        for line in heading.splitlines():
            at = named.search(line)
            code = IDENTIFIER.match(line, at.end()) if at is not None else None
            if code is not None:
                return Statement(code.group(0), i)
    return None


_QUESTION_NOUN = re.compile(r"\b(?P<noun>[A-Za-z]{4,})(?:\s+(?:no\.?|number|ref\.?|reference))?\s+")
"""A word with what may come between it and the identifier it names ("contract CT-2025-006", "contract no. 44-B")."""


def _code_after_noun(asked: Asked, sentences: Sequence[Parsed], order: Sequence[int], grounding: _Grounding
                     ) -> Statement | None:
    """"What reference number does the agency's contract with Tessellate Systems carry?": English names a thing's
    identifier by writing it after the thing's noun ("appointed … under contract CT-2025-006"), so in a sentence
    about the question's subject, an identifier right after a noun the question writes is that noun's. Two
    different ones are no answer: the question does not say which."""
    if not _asks_identifier(asked) or not asked.names:
        return None
    nouns = {_singular(w) for w in re.findall(r"[A-Za-z]{4,}", asked.question)}
    written = {norm(c) for c in IDENTIFIER.findall(asked.question)}
    codes: dict[str, Statement] = {}
    for i in order:
        s = sentences[i]
        known = grounding.known_in(s)
        if known is None or grounding.depth[known[0]] != 0:
            continue
        text = s.span.text
        for at in _QUESTION_NOUN.finditer(text):
            code = IDENTIFIER.match(text, at.end())
            if code is not None and _singular(at["noun"]) in nouns and norm(code.group(0)) not in written:
                codes.setdefault(code.group(0), Statement(code.group(0), i, grounding.via[known[0]]))
    return next(iter(codes.values())) if len(codes) == 1 else None


def _singular(word: str) -> str:
    word = word.casefold()
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 4 else word


def _never_written(asked: Asked, sentences: Sequence[Parsed], told: set[int]) -> bool:
    """The passages about the question's own subject never write a word of a relation with few paraphrases
    ("where was Owen Tregarthen born?" over a profile that says where he works): not stated, so refused. Not for
    "X's husband" (the passages about X need not tell of him) nor a described subject (a chain not followed)."""
    if not told or asked.described or not asked.names or asked.relation not in _CLOSED:
        return False
    if any(re.search(rf"{re.escape(name)}\s*['’]s?\b", asked.question) for name in asked.names):
        return False
    return not any(_matches(t, asked.relation) for s in sentences if id(s.passage) in told for t in s.span)


def _own_word(asked: Asked, words: set[str]) -> bool:
    """The statement writes the question's own relation word ("the final cost" for "how much did X cost"), not a
    paraphrase of it ("Approved budget"): of two statements, the one in the question's words is the answer."""
    own = stem(asked.relation_text.casefold())
    return len(own) > 2 and any(w.startswith(own) for w in words)


ROW = re.compile(r"^(?:[^:;\n]{1,40}:\s[^;\n]*;\s){2,}[^:;\n]{1,40}:\s[^;\n]*$")
"""A table row as the CSV loader writes it (ingest.loaders): "vessel: Gannet; type: pilot boat; length_m: 14.2"."""


_REMARK_KEYS = frozenset({"note", "notes", "comment", "comments", "remark", "remarks"})
"""Columns of prose about other things ("notes: contractor Calder Marine Engineering"): a name there does not say
what the row is about. A "description" column does ("description: Harbour House roof repair")."""


_TABLE_ROW = re.compile(r"^\s*\|(?P<cells>.*)\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def table_lines(lines: Sequence[str]) -> list[str]:
    """A Markdown table (as written, or as the HTML loader writes one) as the lines a record or a CSV row is
    read from: a two-column table's rows as "Key: value" ("| Outturn | £241,700 |" → "Outturn: £241,700"), a
    wider one's rows as "column: value; …" under its header row. Other lines pass unchanged."""
    out: list[str] = []
    header: list[str] = []
    for i, line in enumerate(lines):
        row = _TABLE_ROW.match(line)
        if row is None:
            header = []
            out.append(line)
            continue
        if _TABLE_RULE.match(line):
            continue
        cells = [c.strip().strip("*_ ").replace(";", ",") for c in row["cells"].split("|")]
        if not any(cells):
            continue
        opens = not header and i + 1 < len(lines) and bool(_TABLE_RULE.match(lines[i + 1]))
        if len(cells) == 2:  # a record: its first row is one of its fields ("| Name | Priya Rahman |")
            key, value = cells
            out.append(f"{key}: {value}" if key and value and key[:1].isupper() else line)
            header = header or cells
        elif opens:
            header = cells
        elif header and len(cells) == len(header) and all(header):
            out.append("; ".join(f"{h}: {v}" for h, v in zip(header, cells, strict=True)))
        else:
            out.append(line)
    return out


def row_fields(text: str) -> list[tuple[str, str]] | None:
    """The (column, value) pairs of a table row, or None when ``text`` is not one."""
    if ROW.match(text) is None:
        return None
    return [(k.strip(), v.strip()) for k, v in (part.split(":", 1) for part in text.split("; "))]


def _row_answer(asked: Asked, s: Parsed, fields: Sequence[tuple[str, str]], grounding: _Grounding
                ) -> tuple[str, str] | None:
    """(the grounded name, the answer) when a column is the asked relation ("length_m" for "how long",
    "home_berth" for "what is the home berth") in a row another cell of which names a grounded name: the row
    states the relation for that name as a sentence would. Of several such columns, the one that writes more of
    the question's words ("budget_2025_gbp" for "budgeted in 2025")."""
    asked_words = {w.casefold() for w in re.findall(r"[A-Za-z0-9]+", asked.question)}
    keyed = [(column, _key_words(column.replace("_", " ")), value) for column, value in fields]
    best: tuple[int, int, str, str] | None = None
    for column, keys, value in keyed:
        if not _key_asked(asked, keys) or not _key_holds_role(asked, keys):
            continue
        answer = _field_value(asked, value)
        if not answer and asked.kind is not None and asked.kind.strict and re.fullmatch(r"\d[\d,.]*", value):
            answer = value  # a bare number under "length_m": the column gives its unit
        if not answer or any(norm(answer) == norm(n) for n in asked.names):
            continue
        others = " | ".join(norm(v) for c, k, v in keyed if c != column and not k & _REMARK_KEYS)
        for name, level in grounding.depth.items():
            inside = _topic_in_text(others, name.split()) if name == grounding.topic else \
                re.search(rf"(?<!\w){re.escape(name)}(?!\w)", others) is not None
            if not inside or (asked.described and level == 0 and not keys & asked.heads):
                continue
            rank = (level, -len(keys & asked_words), name, answer)
            if best is None or rank < best:
                best = rank
    return None if best is None else (best[2], best[3])


_HAPPEN = frozenset({"happen", "occur"})
_EVENTS = frozenset({"incident", "accident", "event", "occurrence"})
"""A record's "Date of incident" is when the thing it reports happened: the key names the event, not the verb."""


def _key_names(keys: set[str], relation: frozenset[str]) -> bool:
    """A record's key names the relation: a word of it, or another form of one ("Completion date" for
    "finished", which paraphrases "complete"; "Account manager" for "manages"). Forms share a prefix of at least
    five letters, so "support" is no form of "supply"."""
    if keys & relation or (relation & _HAPPEN and keys & _EVENTS):
        return True
    prefixes = {r[:max(5, len(r) - 3)] for r in relation if len(r) >= 5}
    return any(k.startswith(p) for k in keys for p in prefixes)


def _key_asked(asked: Asked, keys: set[str]) -> bool:
    """A key names the relation, or, for where a thing is, the place noun the wh-word asks with ("Town" for "in
    which town is X based?"; not "year_built" for "in what year was X founded?"), or, for an identifier, the
    noun it is asked by ("line code" for "which budget line code pays for …?")."""
    return _key_names(keys, asked.relation) or (bool(asked.wh_noun) and asked.wh_noun in keys and (
        "locate" in asked.relation or _asks_identifier(asked)))


def _key_holds_role(asked: Asked, keys: set[str]) -> bool:
    """A key writes the kind the question gives its role ("Account manager", not "Clinic lead")."""
    return all(k in keys for k in asked.role_kind)


def _key_words(key: str) -> set[str]:
    words = {w.casefold() for w in re.findall(r"[A-Za-z]+", key)}
    return words | {w[:-1] for w in words if w.endswith("s") and len(w) > 3}


_AMOUNT = re.compile(r"[$€£¥]\s?\d[\d,.]*(?:\s?(?:thousand|million|billion|bn|m|k)\b)?|"
                     r"\b\d[\d,.]*\s?(?:thousand|million|billion)?\s?(?:dollars?|euros?|pounds?)\b", re.IGNORECASE)
"""A sum of money as written, its currency and scale with it."""


def _field_value(asked: Asked, value: str) -> str:
    """The answer in a field's value: its first part ("Amara Nwosu" of "Amara Nwosu, Safety and Environment
    Officer"), when it is of the asked kind; "" otherwise."""
    first = re.split(r",\s|\s\(|;\s|\s[-–]\s", value.strip(" *_"), maxsplit=1)[0].strip(" .*_")
    if not first:
        return ""
    kind = asked.kind
    if kind is not None and kind.labels == {"MONEY"} and (amount := _AMOUNT.search(first)) is not None:
        return amount.group(0)  # "£4,000" of "£4,000 for each day the works finish late"
    if _asks_identifier(asked):
        return code.group(0) if (code := IDENTIFIER.search(first)) is not None else ""  # "52000" is no code
    if kind is not None and kind.strict:
        return first if kind.value is not None and kind.value.search(first) else ""  # "17 January" is no time
    if kind is not None and kind.labels == {"MONEY"} and re.fullmatch(r"(?:1[5-9]|20)\d\d", first):
        return ""  # "acquired: 1999" is a year, not what was paid
    if asked.role == "count" or (kind is not None and kind.value is not None):
        return first if re.search(r"\d", first) else ""
    if kind is not None and kind.labels & {"PERSON", "ORG", "GPE", "LOC", "FAC"}:
        return first if first[:1].isupper() and not re.search(r"\d", first) else ""
    return first


_ROLE_KEYS = frozenset({"role", "position", "post", "job", "title"})
"""Keys whose value is the post a staff record's person holds ("Role: Digital Systems Lead")."""
_NAME_KEYS = frozenset({"name", "title", "subject", "supplier", "company", "organisation", "organization",
                        "project", "person", "staff", "employee", "vendor", "works", "document", "reference", "ref",
                        "code", "id", "object", "item", "asset"})
"""Keys whose value names the record ("Reference: FHP-IR-2025-014" heads the report it names)."""


_DESCRIPTION_FILLERS = frozenset({"that", "which", "whose", "with", "from", "were", "have", "been", "this", "their",
                                  "into", "what"})


def _description_words(asked: Asked) -> set[str]:
    """The words the description writes ("person", "reported", "incident" in "the person who reported incident
    HB-2024-019"), as written: a record's key may name its subject by the deed ("Reported by:")."""
    words = {w.casefold() for w in re.findall(r"[A-Za-z]+", asked.description_text)}
    return {w for w in words if len(w) > 3 and w not in _DESCRIPTION_FILLERS}


def _record_of(passage: Passage) -> str:
    """What a record is about, as text to find a name in: its title, the values of its naming fields
    ("Name: Amara Nwosu" under the title "Staff profile") and its first line."""
    lines = [ln for ln in table_lines(passage.text.splitlines()) if ln.strip()]
    named = [m["value"] for ln in lines if (m := FIELD.match(ln.strip())) and _key_words(m["key"]) & _NAME_KEYS]
    return "\n".join([passage.name, *named, *lines[:1]]).casefold()


def _field_answer(asked: Asked, s: Parsed, field: re.Match[str], grounding: _Grounding) -> tuple[str, str] | None:
    """(the grounded name, the answer) when the field's key is the asked relation ("Policy owner" for "who
    owns …") in a record about a grounded name: its own passage names it in its title or opening, or, for a
    bridge, anywhere."""
    if _key_asked(asked, _key_words(field["key"])):
        if not _key_holds_role(asked, _key_words(field["key"])):
            return None  # "Role: Clinic lead" is no account manager
        answer = _field_value(asked, field["value"])
    else:
        answer = _part_naming_the_asked_noun(asked, field["key"], field["value"])
    if not answer or any(norm(answer) == norm(n) for n in asked.names):
        return None
    head = _record_of(s.passage)
    best: tuple[int, str] | None = None
    for name, level in grounding.depth.items():
        inside = _topic_in_text(head, name.split()) if name == grounding.topic else name in head
        if inside and (best is None or level < best[0]):
            best = (level, name)
    if best is None or (asked.described and best[0] == 0 and not (_key_words(field["key"]) & asked.heads)
                        and not _names_description(asked, head) and not IDENTIFIER.fullmatch(best[1].upper())):
        return None  # an identifier names one record: "the lift fault recorded as QX-IR-2026-031" is its subject
    return best[1], answer


def _field_near_miss(asked: Asked, s: Parsed, field: re.Match[str], grounding: _Grounding
                     ) -> tuple[str, str] | None:
    """(value, key) where a record about the question's own name gives a value of the asked kind under another
    key: "Approved project budget: £86,500" on the Thread and Tide page, for "what was its final cost?". A
    record states its fields as plainly as a sentence, so the value answers another relation."""
    if asked.kind is None or asked.light or asked.described or not asked.names or _key_asked(
            asked, _key_words(field["key"])):
        return None
    value = _field_value(asked, field["value"])
    if not value or not asked.kind.labels & VALUE_LABELS or not re.search(r"\d", value) or IDENTIFIER.search(value):
        return None  # only values (a sum, a date, a number): a name or a code under another key is seldom one
    if (asked.kind.value is not None and not asked.kind.value.search(value)) or (
            "MONEY" not in asked.kind.labels and _AMOUNT.search(value)) or (
            "DATE" not in asked.kind.labels and _CALENDAR.search(value)):
        return None  # "£36,500" dates nothing, and counts no referrals; nor does "January 2025"
    if not any(w in RELATIONS for w in _key_words(field["key"])):
        return None  # "Target: 75 referrals" may be what "expected to reach" asks; "budget" is another relation
    head = _record_of(s.passage)
    if not any(level == 0 and name in head for name, level in grounding.depth.items()):
        return None
    return value, field["key"].strip().casefold()


def _part_naming_the_asked_noun(asked: Asked, key: str, value: str) -> str:
    """"Which floor is Brigid Ashworth's office on?" over "Office: Old Customs House, second floor": a field the
    question names by its key ("office") answers with the part of its value that writes the noun the wh-word
    asks with ("second floor"); a value that does not write it ("which building …?") is no answer."""
    written = {w.casefold() for w in re.findall(r"[A-Za-z]+", asked.question)}
    if not asked.wh_noun or not (_key_words(key) & written - {asked.wh_noun}):
        return ""
    noun = re.compile(rf"\b{re.escape(stem(asked.wh_noun))}", re.IGNORECASE)
    parts = [p.strip(" .*_") for p in re.split(r",\s|;\s|\s[-–]\s|\s\(", value) if noun.search(p)]
    return parts[0] if len(parts) == 1 else ""


def _names_description(asked: Asked, text: str) -> bool:
    """The record writes the description whole as its name ("Works: Dock 3 renewal" for "the Dock 3 renewal"):
    then it is about the described thing itself, not about a name the description merely holds."""
    phrase = re.sub(r"^(?:the|a|an)\s+", "", asked.description_text.strip(), flags=re.IGNORECASE).casefold()
    return len(phrase.split()) > 1 and phrase in text


def _describes(span: Any, asked: Asked, rels: Sequence[Any]) -> bool:
    """The sentence writes the description's own words beside the relation ("She leads the machine vision
    team" for "who leads the team in Tallinn"), so the name it mentions is the described thing itself."""
    rel_ids = {t.i for t in rels}
    return any(_matches(t, asked.heads) for t in span if t.i not in rel_ids)


_PARTITIVE = re.compile(r"\bhow (?:many|much) of\b", re.IGNORECASE)


_MONEY_NOUNS = frozenset({"money", "cash", "funding", "fund"})


def _slot(asked: Asked, span: Any, rel: Any, about: set[int], antecedent: Any = None) -> str:
    """The answer hanging on ``rel`` in the slot the question asks, or "". A pronoun or "the yard" in the
    slot answers by the name it stands for (``antecedent``)."""
    of_place = _of_place(asked, span, about)
    if of_place:
        return of_place
    reach = _reach(rel, _MAX_LINKS)
    if not any(i in reach for i in about) and not _reaches(rel, about):
        return ""  # the relation in this sentence is about something else
    partitive = asked.role == "count" and _PARTITIVE.search(asked.question) is not None
    picked: list[tuple[bool, int, int, _Candidate]] = []
    for cand in [*_numbered(span, asked.wh_noun), *candidates(span)]:  # "Berth 7" before "Berth" alone
        if cand.tokens & about or rel.i in cand.tokens:
            continue
        if norm(cand.text) in {norm(n) for n in asked.names} or any(
                norm(cand.text) in norm(n) for n in asked.names):
            continue
        if not fits_kind(asked, cand):
            continue
        hit = min((reach[i] for i in cand.tokens if i in reach), default=None, key=lambda r: r[0])
        if hit is None or not _role_fits(_role_in(asked, rel), rel, hit[1]) or not _preposition_fits(asked, cand):
            continue
        if _scope_of_role(asked, rel, hit[1]):
            continue
        if asked.role == "count" and asked.wh_noun and not _counts(cand, asked.wh_noun, span) and not (
                cand.label == "MONEY" and asked.wh_noun in _MONEY_NOUNS):
            continue  # "how many staff" counts staff; "how much money" is any sum of money
        if partitive and cand.root.dep_ == "nummod" and \
                cand.root.head.dep_ == "pobj" and cand.root.head.head.lower_ == "of":
            continue  # "how many of them had arrived?": "of the 12 sensors ordered, 9 had been delivered" — 12 is
            # the whole the question takes its part of
        if asked.role == "count" and cand.root.head.i != cand.root.i and cand.root.head.pos_ == "PROPN" and \
                _CALENDAR.fullmatch(cand.root.head.text):
            continue  # "by 30 May": a day of a month counts nothing
        own = asked.kind is None or cand.label in asked.kind.labels or cand.label == "CODE"
        picked.append((hit[0], not own, min(cand.tokens), cand))
    if not picked and antecedent is not None and asked.role in ("subject", "object") and asked.kind is not None:
        for t in sorted(_stand_ins(span) - about, key=lambda t: t):
            tok = span.doc[t]
            hit = reach.get(t)
            name = antecedent(tok)
            if hit is None or not name or not _role_fits(asked.role, rel, hit[1]):
                continue
            if norm(name) in {norm(n) for n in asked.names}:
                continue
            person = tok.lower_ in _PERSONAL
            if ("PERSON" in asked.kind.labels and person) or (not person and asked.kind.labels & {"ORG", "GPE", "LOC",
                                                                                                  "FAC"}):
                return name
        return ""
    if not picked:
        return ""
    picked.sort(key=lambda p: p[:3])
    best = picked[0][3]
    outer = [c for c in candidates(span) if c.root.dep_ == "appos" and c.root.head.i in best.tokens
             and c.label in ("GPE", "LOC")]
    if asked.wh_noun in ("country", "nation"):  # "in Turku, Finland": the country follows the city
        best = outer[0] if outer else best
    elif outer and not asked.wh_noun and asked.kind is not None and asked.kind.name == "a place":
        return f"{best.text.strip()}, {outer[0].text.strip()}"  # "where?": "Montreal, Quebec", as written
    return _with_coordinated(best, [c for c in candidates(span) if c.tokens != best.tokens], span)


def _of_place(asked: Asked, span: Any, about: set[int]) -> str:
    """"Arncliffe Refrigeration Ltd, of Preston, has been …": a place set off by commas in an "of" phrase on the
    subject's name is where it is based (the way British business prose writes it); "" otherwise."""
    if "locate" not in asked.relation or asked.kind is None or asked.kind.name != "a place":
        return ""
    for cand in candidates(span):
        of = cand.root.head
        if cand.root.dep_ != "pobj" or of.lower_ != "of" or of.i == 0 or span.doc[of.i - 1].text != ",":
            continue
        name = of.head
        place = cand.label in ("GPE", "LOC") or (cand.label == "PERSON" and len(cand.tokens) == 1)  # NER reads
        # "of Bolton" as a person's name; an organisation there ("Jonas Meier, of Lumen Robotics") is no place
        if place and (name.i in about or any(c.i in about for c in name.children)):
            return cand.text.strip()
    return ""


def _scope_of_role(asked: Asked, rel: Any, edge: str) -> bool:
    """A person asked for by a role noun is not the noun's own "of"/"for" phrase: "its project manager for
    Merrow is Lena Varga" names the manager by the copula, Merrow is whose manager. Spouses aside ("the
    husband of Y" names Y as the wife)."""
    return (asked.role == "attribute" and edge == "prep" and rel.pos_ == "NOUN" and asked.kind is not None
            and "PERSON" in asked.kind.labels and not _matches(rel, RELATIONS["marry"]))


def _role_in(asked: Asked, rel: Any) -> Role:
    """The slot in this sentence: "who is the owner of X?" asks for the doer when a sentence writes the verb
    ("X, owned by Y"), not for whatever hangs on "owned" ("a boatbuilder in Ardlow, owned by …")."""
    doer = asked.role == "attribute" and rel.pos_ == "VERB" and asked.relation_text.casefold().endswith(
        ("er", "or")) and asked.relation_text.casefold() in RELATIONS
    return "subject" if doer else asked.role


def _other_kind_in_slot(asked: Asked, span: Any, rel: Any, about: set[int]) -> bool:
    """The sentence states the relation for the subject with a value of another kind in the asked slot ("born
    1961" for "where"; "Nigerian-born" for "when"): evidence the passages answer a neighbouring question. A
    relation whose slot holds nothing readable is no such evidence (the parse may have missed it)."""
    if asked.kind is None:
        return False
    reach = _reach(rel, _MAX_LINKS)
    if not any(i in reach for i in about) and not _reaches(rel, about):
        return False
    for cand in candidates(span):
        hit = min((reach[i] for i in cand.tokens if i in reach), default=None, key=lambda r: r[0])
        if hit is None or cand.tokens & about or rel.i in cand.tokens:
            continue
        if _role_fits(asked.role, rel, hit[1]) and not fits_kind(asked, cand):
            return True
    return False


_WHERE_PREPS = frozenset({"in", "at", "near", "on", "from", "outside", "inside", "within", "across", "around", "into",
                          "throughout"})
_WHEN_PREPS = frozenset({"in", "on", "at", "during", "around", "by", "circa"})


def _preposition_fits(asked: Asked, cand: _Candidate) -> bool:
    """A place or a date hangs on its relation by a preposition that says so: "born in Tartu", "founded in
    1998", not "born to Albertina" (a parent NER took for a place) or "directed … since 2016"."""
    if asked.role != "adverbial" or asked.kind is None or asked.kind.name not in ("a date", "a place", "a country"):
        return True
    root = cand.root
    if root.dep_ == "appos" and root.head.dep_ == "pobj":
        root = root.head  # "in Turku, Finland"
    if root.dep_ != "pobj":  # a place is written with its preposition; a date may stand alone ("born 1961")
        return asked.kind.name == "a date" and root.dep_ not in ("conj", "nsubj", "nsubjpass", "dobj", "poss")
    if asked.began and root.head.lower_ in ("since", "from"):
        return True  # "has been Harbour Master since 2017" says when she became it, "open from 12 July" when
        # it opened
    return root.head.lower_ in (_WHEN_PREPS if asked.kind.name == "a date" else _WHERE_PREPS)


def _reaches(rel: Any, about: set[int]) -> bool:
    """The subject is tied to the relation a little further off (a longer clause), still in its clause."""
    reach = _reach(rel, _MAX_ABOUT_LINKS)
    return any(i in reach for i in about)


def _counts(cand: _Candidate, noun: str, span: Any) -> bool:
    """For "how many employees": the number counts that noun (or a paraphrase of it)."""
    words = RELATIONS.get(noun, frozenset({noun}))
    head = cand.root.head
    return bool(_words(head) & (words | {noun})) or any(
        bool(_words(t) & (words | {noun})) for t in span if t.i in range(cand.root.i, cand.root.i + 4))


def _with_coordinated(best: _Candidate, others: Sequence[_Candidate], span: Any) -> str:
    """"Ingrid Halvorsen and Tomas Berg": an answer coordinated with others of its kind is all of them. A list
    ends with "and"; "Turku, Finland" is one place, not two answers."""
    doc = span.doc
    joined = [best]
    seps: list[str] = []
    for other in sorted(others, key=lambda c: min(c.tokens)):
        last = joined[-1]
        if min(other.tokens) <= max(last.tokens) or (other.label in VALUE_LABELS) != (best.label in VALUE_LABELS):
            continue
        end = doc[max(last.tokens)]
        between = doc.text[end.idx + len(end):doc[min(other.tokens)].idx]
        gap = doc[max(last.tokens) + 1:min(other.tokens)]
        if re.fullmatch(r"\s*(,|,?\s*and)\s+(the\s+)?([a-z-]+\s+)?", between) and not any(
                t.pos_ in ("VERB", "AUX") for t in gap):
            joined.append(other)
            seps.append(between)
    while seps and "and" not in seps[-1]:
        seps.pop()
        joined.pop()
    if len(joined) == 1:
        return best.text.strip()
    return ", ".join(c.text.strip() for c in joined[:-1]) + " and " + joined[-1].text.strip()


def _names_number(cand: _Candidate) -> bool:
    """"3" in "Chiller 3", "7" in "Berth 7": a number that finishes a name is no value."""
    first = min(cand.tokens)
    if cand.label != "CARDINAL" or len(cand.tokens) != 1 or first == 0:
        return False
    before = cand.root.doc[first - 1]
    return before.is_alpha and before.is_title and before.i != before.sent.start


def _counts_something(cand: _Candidate) -> bool:
    """A measured or counted amount ("340 litres", "£12,000", "fourteen staff"), not a bare number."""
    head = cand.root.head
    return cand.label in ("QUANTITY", "MONEY", "PERCENT") or (
        cand.root.dep_ == "nummod" and head.pos_ == "NOUN" and not _CALENDAR.search(head.text))


def _near_miss(asked: Asked, span: Any, about: set[int]) -> tuple[str, str] | None:
    """A value of the asked kind that this sentence about the subject gives for another relation
    ("studied … in Trondheim" for "where was … born?"): (the value, the verb it is given for)."""
    if (asked.role not in ("adverbial", "count") and asked.kind is None) or (asked.kind and asked.kind.strict):
        return None  # a length or how often hangs on an adjective or a noun as often as on a verb: no verb to blame
    for cand in candidates(span):
        if cand.tokens & about or not fits_kind(asked, cand) or _names_number(cand):
            continue
        if asked.role == "count" and not _counts_something(cand):
            continue  # "11" of "the night of 11 March" is no amount given for another verb
        if cand.label == "MONEY" and re.search(r"\bhow many\b", asked.question, re.IGNORECASE):
            continue  # "£520,000" counts no people
        if asked.wh_noun and not re.search(rf"\b{re.escape(stem(asked.wh_noun))}", cand.text.casefold()) and \
                asked.role not in ("adverbial", "count"):
            continue
        verb = cand.root
        while verb.pos_ not in ("VERB", "AUX") and verb.dep_ != "ROOT":
            verb = verb.head
        particle = next((c for c in verb.children if c.dep_ == "prt"), None)  # "took over" is no light "take"
        if verb.pos_ == "VERB" and (verb.lemma_ not in _LIGHT or particle is not None) and \
                not _matches(verb, asked.relation):
            reach = _reach(verb, 2)
            if any(i in reach for i in about) and cand.root.i in _reach(verb, 2):
                return cand.text.strip(), verb.text + (f" {particle.text}" if particle is not None else "")
    return None
