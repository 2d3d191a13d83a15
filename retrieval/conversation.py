"""A follow-up in a conversation, turned into the standalone question retrieval can run.

Retrieval answers one question at a time, and "Where does he work?" alone retrieves nothing useful.
So the last user turn is rewritten first, using the earlier turns:

* **With an LLM** (the configured answer model): the standard way. It is given the conversation and
  asked for the last question rewritten to stand on its own; a failed or empty rewrite falls back to
  the offline way below (the conversation still gets an answer).
* **Without one**: the entities of the earlier turns (spaCy NER, most recent turn first, an answer's
  short span before its quotes) resolve the follow-up's pronouns by kind ("he", "she" → a person;
  "it" → an organisation, product or place; "there" → a place), and an elliptical follow-up ("And
  Polar Cells?", "What about the Skua?") takes the previous question with its subject swapped.

A first question, or a follow-up with nothing to resolve, runs as written. The result says which way
was taken and what was resolved, so the API and ``--explain`` can show the question actually used.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from kgrag.retrieval.answer.base import TextModel
from kgrag.retrieval.answer.support import VALUE_LABELS, question_needs

log = logging.getLogger(__name__)

Method = Literal["as-is", "llm", "entities"]


@dataclass(frozen=True, slots=True)
class Turn:
    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True, slots=True)
class Standalone:
    """The question retrieval ran on, and how it came from the last user turn."""

    question: str
    original: str
    method: Method
    resolved: dict[str, str] = field(default_factory=dict)
    """What the offline way replaced: {"he": "Jonas Meier"}."""
    note: str = ""
    """Why the LLM rewrite was not used, when it was tried and failed."""

    @property
    def rewritten(self) -> bool:
        return self.question != self.original


REWRITE_INSTRUCTION = (
    "You rewrite the last user question of a conversation so that it can be understood without the "
    "conversation: replace pronouns and references with the names they stand for, and fill in what an "
    "elliptical question leaves out. Do not answer it, do not add anything else. Reply with the rewritten "
    "question only, on one line."
)

_PERSON = ("PERSON",)
_THING = ("ORG", "PRODUCT", "FAC", "GPE", "LOC", "WORK_OF_ART", "EVENT", "LAW")
_PLACE = ("GPE", "LOC", "FAC")
_PRONOUNS: dict[str, tuple[str, ...]] = {
    "he": _PERSON, "him": _PERSON, "his": _PERSON, "she": _PERSON, "her": _PERSON, "hers": _PERSON,
    "it": _THING, "its": _THING, "they": _THING + _PERSON, "them": _THING + _PERSON, "their": _THING + _PERSON,
    "there": _PLACE,
}
_KIND_NOUNS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("company", "firm", "business", "supplier", "contractor", "organisation", "organization",
                     "agency", "vendor", "maker", "manufacturer", "project", "product"), _THING),
    **dict.fromkeys(("person", "man", "woman"), _PERSON),
    **dict.fromkeys(("place", "town", "city", "country", "site"), _PLACE),
}
"""What "that company", "this person", "that town" stand for: an earlier name of the kind the noun says."""
_ROLE_NOUNS = frozenset({"post", "role", "job", "position", "title", "office"})
"""What "that post" stands for: the role an earlier turn gave someone ("X is Head of Engineering")."""
_POSSESSIVE = frozenset({"his", "its", "their", "hers"})
_PERSONAL = frozenset({"he", "him", "his", "she", "her", "hers"})
_ELLIPSIS = re.compile(r"^\s*(?:and|what about|how about|and what about)\s+(?P<subject>[^?]+?)\s*\??\s*$",
                       re.IGNORECASE)
_WH_START = re.compile(r"^(?:how|what|which|who|whom|whose|when|where|why)\b", re.IGNORECASE)
_SOURCES = re.compile(r"\n+Sources:\n.*\Z", re.DOTALL)
_CITATION = re.compile(r"\s*\[\d+(?:\s*[,;]\s*\d+)*\]")


def standalone_question(turns: Sequence[Turn], *, nlp: Any, llm: TextModel | None = None) -> Standalone:
    """The last user turn as a question that stands on its own (see the module docstring)."""
    users = [i for i, t in enumerate(turns) if t.role == "user"]
    if not users:
        raise ValueError("the conversation has no user turn")
    last = turns[users[-1]].text.strip()
    earlier = turns[: users[-1]]
    if not any(t.role == "user" for t in earlier):
        return Standalone(last, last, "as-is")
    note = ""
    if llm is not None:
        try:
            rewritten = _first_line(llm.generate(REWRITE_INSTRUCTION, _transcript(turns[: users[-1] + 1])))
        except Exception as exc:  # the rewrite is a refinement: a model failure must not lose the answer
            log.warning("question rewrite failed: %s", exc)
            rewritten, note = "", f"the answer model could not rewrite the question ({type(exc).__name__})"
        if rewritten:
            return Standalone(rewritten, last, "llm" if rewritten != last else "as-is")
        note = note or "the answer model returned no rewrite"
    resolved_turns: list[Turn] = []
    for t in earlier:  # each earlier question resolved in turn, so a chain of follow-ups keeps its subject
        if t.role == "user" and resolved_turns:
            t = Turn("user", resolve_offline(t.text, resolved_turns, nlp)[0])
        resolved_turns.append(t)
    question, resolved = resolve_offline(last, resolved_turns, nlp)
    return Standalone(question, last, "entities" if resolved else "as-is", resolved, note)


def resolve_offline(question: str, earlier: Sequence[Turn], nlp: Any) -> tuple[str, dict[str, str]]:
    """``question`` with its pronouns replaced by the earlier turns' entities, or, when it is elliptical
    ("And Polar Cells?"), the previous question with its subject swapped; and what was replaced."""
    ellipsis = _ELLIPSIS.match(question)
    previous = next((t.text for t in reversed(earlier) if t.role == "user"), "")
    if ellipsis is not None and _WH_START.match(ellipsis["subject"]):
        ellipsis = None  # "And how many of them had arrived?" is a question of its own, not "And Polar Cells?"
    if ellipsis is not None and previous:
        subject = ellipsis["subject"].strip()
        named = question_needs(previous, nlp).entities
        if named:
            old = named[0]
            # the subject is the user's text, not a pattern: "And \1?" must not read as a group reference
            swapped = re.sub(re.escape(old), lambda _m: subject, previous, count=1, flags=re.IGNORECASE)
            if swapped != previous:
                return swapped, {old: subject}
    entities = _entities(earlier, nlp)
    counted: str | None = None  # parsed from the earlier question only for a partitive "of them"
    doc = nlp(question)
    own = {e.text.casefold() for e in doc.ents}
    out: list[str] = []
    resolved: dict[str, str] = {}
    skip: set[int] = set()
    for tok in doc:
        if tok.i in skip:
            continue
        word = tok.lower_
        kinds = _PRONOUNS.get(word)
        noun = _demonstrated(tok)
        if noun is not None:  # "that company" → the earlier organisation; "that post" → the earlier role
            name = _role(earlier, nlp) if noun.lower_ in _ROLE_NOUNS else next(
                (n for n, label in entities if label in _KIND_NOUNS[noun.lower_] and n.casefold() not in own), None)
            if name:
                role = noun.lower_ in _ROLE_NOUNS  # "held that post" → "held the post of Head of Engineering"
                out.append((f"the {noun.text} of {name}" if role else name) + noun.whitespace_)
                resolved[f"{tok.text} {noun.text}"] = name
                skip.add(noun.i)
                continue
        name = None
        if word == "them" and tok.head.lower_ == "of":  # partitive: the counted set, not a name
            counted = _counted(previous, nlp) if counted is None else counted
            if counted:
                out.append(counted + tok.whitespace_)  # "how many of them had arrived?" after "how many sensors …"
                resolved[tok.text] = counted
                continue
        if kinds is not None:
            name = next((n for n, label in entities if label in kinds and n.casefold() not in own), None)
            if name is None:
                # the small NER often mislabels a name ("Kittiwake Boatworks" as a person, "Brigid Ashworth" as a
                # building): when no name has the pronoun's own label, a non-person name stands for "it", and
                # the latest turn's first name (an answer's short span) for any pronoun
                name = next((n for n, label in entities if word not in _PERSONAL and label not in VALUE_LABELS
                             and label not in _PERSON and n.casefold() not in own), None) or next(
                    (n for n, label in entities[:1] if label not in VALUE_LABELS and n.casefold() not in own), None)
        if name is None:
            out.append(tok.text_with_ws)
            continue
        possessive = word in _POSSESSIVE or (word == "her" and tok.tag_ == "PRP$")
        out.append((f"{name}'s" if possessive else ("in " + name if word == "there" else name)) + tok.whitespace_)
        resolved[tok.text] = name
    return ("".join(out) if resolved else question), resolved


def _counted(question: str, nlp: Any) -> str:
    """What an earlier "how many …" question counted, as "the gait sensors": what a plural pronoun of the next
    question means ("and how many of them had arrived by 9 May?"), as no name can."""
    if not question or not re.match(r"^\s*how many\b", question, re.IGNORECASE):
        return ""
    doc = nlp(question)
    many = next((t for t in doc if t.lower_ == "many"), None)
    noun = None if many is None else many.head
    if noun is None or noun.pos_ != "NOUN" or noun.i < many.i:
        return ""
    return "the " + doc[many.i + 1:noun.i + 1].text


def _demonstrated(tok: Any) -> Any:
    """The noun of "that company" / "this post" when ``tok`` is its demonstrative, else None."""
    if tok.lower_ not in ("that", "this") or tok.i + 1 >= len(tok.doc):
        return None
    noun = tok.doc[tok.i + 1]
    if noun.pos_ != "NOUN" or (noun.lower_ not in _KIND_NOUNS and noun.lower_ not in _ROLE_NOUNS):
        return None
    return noun


def _role(turns: Sequence[Turn], nlp: Any) -> str:
    """The latest role an earlier turn states, as written: the complement of "X is …" or "… as …" when it is
    capitalised like a title ("Head of Engineering", with its "of" phrase), else ""."""
    for t in reversed(turns):
        for tok in nlp(_CITATION.sub("", _SOURCES.sub("", t.text))):
            if not (tok.dep_ == "attr" or (tok.dep_ == "pobj" and tok.head.lower_ == "as")) or not tok.is_title:
                continue
            end = tok.i + 1
            of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
            if of is not None:
                end = of.right_edge.i + 1
            start = min([tok.i, *(c.i for c in tok.children if c.dep_ in ("compound", "amod") and c.i < tok.i)])
            return tok.doc[start:end].text
    return ""


def _entities(turns: Sequence[Turn], nlp: Any) -> list[tuple[str, str]]:
    """(name, NER label) of the turns' entities, most recent turn first, each turn's in reading order (an
    answer's short span, which opens it, before the names in its quotes)."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for t in reversed(turns):
        text = _CITATION.sub("", _SOURCES.sub("", t.text))
        for ent in nlp(text).ents:
            name = re.sub(r"['’]s$", "", ent.text.strip())
            name = re.sub(r"^the\s+", "", name, flags=re.IGNORECASE)
            if name and name.casefold() not in seen:
                seen.add(name.casefold())
                out.append((name, ent.label_))
    return out


def _transcript(turns: Sequence[Turn]) -> str:
    lines = [f"{t.role}: {_CITATION.sub('', _SOURCES.sub('', t.text)).strip()}" for t in turns]
    return "Conversation:\n" + "\n".join(lines) + "\n\nRewrite the last user question as a standalone question."


def _first_line(text: str) -> str:
    line = next((ln.strip() for ln in text.strip().splitlines() if ln.strip()), "")
    return re.sub(r"^(rewritten question|standalone question|question)\s*:\s*", "", line, flags=re.IGNORECASE)
