"""The offline answerer: the passages' sentences that answer the question, each cited like a generated answer.

Used whenever no answer model is configured, so a laptop with no key and no network still gets an
answer with citations.

* Sentences come from spaCy's sentence splitter (the graph's own pipeline, passed in), run on the
  passage with its hard line wraps joined: a line break inside a sentence is not a boundary, a
  heading or list item is.
* Each sentence is scored by cosine similarity to the question (the embedding model the process
  already has), plus lexical overlap so exact names and numbers count, plus, for graph hits, a
  bonus for naming an entity the graph reached from the question (the bridge a multi-hop answer
  turns on, which similarity to the question alone misses), plus a bonus for naming a new entity of
  the kind the question asks for (a person for "who", a place for "where"), found by the same
  pipeline's NER: the sentence most like the question often restates it without the answer.
* Two hops: the best sentences usually settle the question's first hop ("Lumen Robotics was bought
  by Northwind Dynamics") and name what the question does not (the bridge). A sentence that names a
  bridge found by another top sentence, directly or through its passage's title, ranks up: it is
  where the second hop's answer ("Northwind Dynamics: The company was founded … by Ingrid
  Halvorsen") sits, though it shares few words with the question.
* Only sentences close to the best one are quoted, so the answer is not padded with off-topic text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from kgrag.core.models import Embedder
from kgrag.core.text import heading_line
from kgrag.retrieval.answer.base import Answer, AnswerEvent, Passage, drain, finish, refusal
from kgrag.retrieval.answer.statement import (
    FIELD,
    ROW,
    Outcome,
    Parsed,
    find_statement,
    norm,
    read_question,
    table_lines,
)
from kgrag.retrieval.answer.support import ALTERNATIVES, answer_labels, irregular_forms, question_needs

SENTENCE_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter", "sentencizer",
                       "ner")
"""What the answerer runs of the shared spaCy pipeline: the parse too, since a short answer must fill the slot of
the asked relation (retrieval/answer/statement.py), not merely be an entity of the asked kind nearby."""

_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "had",
    "has", "have", "how", "in", "is", "it", "its", "of", "on", "or", "that", "the", "their",
    "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "whose", "why",
    "will", "with",
})
_BLOCK_START = re.compile(r"^\s*([-*•]|\d+[.)])\s+")
"""List items: they start a block of their own rather than continue the sentence above (marker dropped)."""
_LONE_LINE = re.compile(r"^\s*(#|\|)")
"""Headings and table rows: a block on their own, never joined to the line before or after."""
_CJK_SENTENCE_END = re.compile(r"(?<=[。！？])\s*")
"""An English sentence splitter does not know the CJK full stops: split there too."""
_CJK = re.compile(r"[\u3000-\u303f\uff00-\uffef\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_MIN_CHARS = 12
_MIN_CJK_CHARS = 6
_MIN_WORDS = 4
_MAX_SENTENCE_CHARS = 400
_LEXICAL_WEIGHT = 0.3
_RANK_PENALTY = 0.02
_BRIDGE_BONUS = 0.1
"""For a sentence naming a graph entity the question does not: the hop the question leaves unsaid."""
_LINKED_BONUS = 0.05
"""For a sentence naming a graph entity the question itself names."""
_ANSWER_TYPE_BONUS = 0.15
"""For a sentence naming an entity of the asked-for kind that the question does not already name."""

_MAX_PER_PASSAGE = 2
_KEEP_WITHIN = 0.2
"""Sentences scoring more than this below the best one are off the question's topic and left out."""

_PRONOUN_START = re.compile(r"^(It|Its|He|His|She|Her|They|Their|The company|The firm)\b")


@dataclass(frozen=True, slots=True)
class _Sentence:
    passage: Passage
    text: str
    entities: tuple[tuple[str, str], ...] = ()
    """(text, NER label) of the entities spaCy found in the sentence."""
    span: Any = None
    """The parsed spaCy span (the statement check reads its dependencies)."""

    @property
    def in_context(self) -> str:
        """The sentence with its passage's name: "Its best-known ship…" alone does not say whose."""
        name = self.passage.name
        return f"{name}: {self.text}" if name and name.lower() not in self.text.lower() else self.text

    @property
    def quoted(self) -> str:
        return self.in_context if _PRONOUN_START.match(self.text) else self.text


def text_blocks(text: str) -> list[str]:
    """Runs of text a sentence can span: hard-wrapped lines joined, headings and list items kept apart, and a
    table's rows written as the records they are (``table_lines``)."""
    blocks: list[list[str]] = []
    for line in table_lines(text.splitlines()):
        stripped = line.strip()
        if not stripped:
            blocks.append([])
        elif _LONE_LINE.match(stripped) or FIELD.match(stripped) or ROW.match(stripped):
            # a record's "Key: value" lines and a table's rows stand alone
            blocks.extend(([stripped], []))
        elif (item := _BLOCK_START.match(stripped)) is not None:
            blocks.append([stripped[item.end():]])
        elif not blocks or not blocks[-1] or (len(blocks[-1]) == 1 and _bare_heading(blocks[-1][0], stripped)):
            blocks.append([stripped])
        else:
            blocks[-1].append(stripped)
    return [_join_lines(b) for b in blocks if b]


def _bare_heading(line: str, following: str) -> bool:
    """A heading without Markdown's '#' (plain text, HTML or Word headings): the first line of a block that reads
    as a heading (core.text.heading_line's rule), followed by a line that starts a sentence and is clearly longer.
    Joined, it glued itself into the sentence below ("Who builds it The device firmware …")."""
    last = line.rsplit(None, 1)[-1].lower()
    return (heading_line(f"{line}\n{following}") == line and following[:1].isupper()
            and len(line) < 0.6 * len(following) and last not in _CONTINUES)


_CONTINUES = frozenset({"a", "an", "the", "of", "by", "to", "in", "on", "at", "for", "with", "from", "into", "and",
                        "or", "but", "nor", "that", "which", "who", "whose", "is", "was", "were", "are", "be", "been",
                        "as", "than"})
"""Words a wrapped line ends on but a heading does not ("… was developed by" / "Ada Lovelace …")."""


def _join_lines(lines: list[str]) -> str:
    """Wrapped lines joined with a space, except between CJK characters (those scripts use none)."""
    out = lines[0]
    for line in lines[1:]:
        out += line if _CJK.match(out[-1]) and _CJK.match(line[0]) else " " + line
    return out


def _worth_quoting(s: str) -> bool:
    """Headings, table rows, fragments of a few words and a chunk's cut-off first words are not answers."""
    cjk = bool(_CJK.search(s))
    if ROW.match(s):
        return True  # a table row, however its first column is spelled, states its cells as a sentence would
    if len(s) < (_MIN_CJK_CHARS if cjk else _MIN_CHARS) or s.startswith(("#", "|")) or s[0].islower():
        return False
    if FIELD.match(s):
        return True  # "Project code: PR-2025-009" is short, and states a fact as plainly as a sentence
    return cjk or len(s.split()) >= _MIN_WORDS  # CJK sentences have no spaces to count words by


Sentence = tuple[str, tuple[tuple[str, str], ...]]
"""A sentence's text and its (entity text, NER label) pairs."""


_TERMINAL = re.compile(r"[.!?。！？…:;][\"'”’)\]]*$")


def whole_sentences(doc: Any) -> list[Any]:
    """spaCy's sentences, with a piece that does not end like a sentence joined to the next one: the
    statistical splitter cuts text with odd spacing ("Poulton- le- Fylde") mid-sentence."""
    out: list[Any] = []
    start: int | None = None
    sents = list(doc.sents)
    for i, sent in enumerate(sents):
        start = sent.start if start is None else start
        if _TERMINAL.search(sent.text.rstrip()) or i == len(sents) - 1:
            out.append(doc[start:sent.end])
            start = None
    return out


def split_sentences(nlp: Any, texts: Sequence[str]) -> list[list[Sentence]]:
    """Per text, its sentences worth quoting (spaCy's sentence splitter) with their named entities."""
    return [[(text, ents) for text, ents, _ in ss] for ss in parse_sentences(nlp, texts)]


def parse_sentences(nlp: Any, texts: Sequence[str]) -> list[list[tuple[str, tuple[tuple[str, str], ...], Any]]]:
    """Per text, its sentences worth quoting with their named entities and their parsed spaCy span."""
    disable = [name for name in nlp.pipe_names if name not in SENTENCE_COMPONENTS]
    blocks = [text_blocks(t) for t in texts]
    flat = [b for bs in blocks for b in bs]
    docs = iter(nlp.pipe(flat, disable=disable))
    out: list[list[tuple[str, tuple[tuple[str, str], ...], Any]]] = []
    for bs in blocks:
        sentences: list[tuple[str, tuple[tuple[str, str], ...], Any]] = []
        for block in bs:
            doc = next(docs)
            for sent in ([doc[:]] if ROW.match(block) else whole_sentences(doc)):  # a row is one statement
                ents = [(e.text, e.label_) for e in sent.ents]
                for part in _CJK_SENTENCE_END.split(sent.text):
                    s = " ".join(part.split())
                    if not s or not _worth_quoting(s):
                        continue
                    if len(s) > _MAX_SENTENCE_CHARS:
                        s = s[: _MAX_SENTENCE_CHARS - 1].rstrip() + "…"
                    sentences.append((s, tuple(e for e in ents if e[0] in s), sent))
        out.append(sentences)
    return out


def _terms(text: str) -> set[str]:
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in _STOPWORDS}


def lexical_overlap(question: str, sentence: str) -> float:
    """Share of the question's content words the sentence contains (0..1)."""
    q = _terms(question)
    return len(q & _terms(sentence)) / len(q) if q else 0.0


def entity_bonus(question: str, sentence: str, entities: Sequence[str]) -> float:
    """The graph's say: a sentence naming a bridged entity (one the question does not name) ranks up."""
    q, s = question.casefold(), sentence.casefold()
    named = [e for e in entities if e and e.casefold() in s]
    if any(e.casefold() not in q for e in named):
        return _BRIDGE_BONUS
    return _LINKED_BONUS if named else 0.0


def answer_type_bonus(question: str, labels: frozenset[str], entities: Sequence[tuple[str, str]]) -> float:
    q = question.casefold()
    new = any(label in labels and text.casefold() not in q for text, label in entities)
    return _ANSWER_TYPE_BONUS if new else 0.0


def comparison_sides(question: str, sentences: Sequence[_Sentence], scores: np.ndarray) -> list[int]:
    """For "who was born first, A or B?": the best sentence about each side (an answer needs both)."""
    match = ALTERNATIVES.search(question.strip())
    if match is None:
        return []
    picked: list[int] = []
    for side in (match["a"], match["b"]):
        name = norm(side)
        about = [i for i, s in enumerate(sentences) if name in s.in_context.casefold()]
        if about:
            picked.append(max(about, key=lambda i: (scores[i], -i)))
    return picked


_CHOICES = re.compile(r",\s+(?P<a>.+?)\s+or\s+(?P<b>[^?]+?)\s*\?\s*$", re.IGNORECASE)


def offered_choice(question: str, answer: str) -> bool:
    """A question that offers its answers ("which film came out earlier, A Slave Of Love or Remorse, A Story
    Of The Red Plague?") is answered by one of them, never by a year or a name found beside them; a question
    that offers none takes any answer."""
    match = _CHOICES.search(question.strip())
    if match is None:
        return True
    got = norm(answer)
    if not got or re.fullmatch(r"[\d\s,.]+", got):
        return False  # "1951" of "The Last Outpost (1951 Film)" is no choice of that film
    return any(got in norm(side) or norm(side) in got for side in (match["a"], match["b"]))


_EARLIER = re.compile(r"\b(first|earlier|earliest|older|oldest|before)\b")
_LATER = re.compile(r"\b(later|latest|last|younger|youngest|after|more recent|most recently)\b")
_Y = r"\b(?P<year>1[0-9]{3}|20[0-9]{2})\b"
_YEAR = re.compile(_Y)
_BORN = (re.compile(rf"\bborn\b[^.;()]*?{_Y}"), re.compile(rf"\([^()\d]*(?:\d{{1,2}}[^()\d]*)?{_Y}[^()]*?[–—-]"))
_DIED = (re.compile(rf"\b(?:died|death)\b[^.;()]*?{_Y}"), re.compile(rf"[–—-][^()]*?{_Y}[^()]*\)"))
"""Where a side's birth or death year is written: "born … 1833", or first or last in its lifespan "(6 December
1833 – 1 August 1906)". A passage's first year is often neither ("at the 1844 convention")."""


def _event_year(text: str, patterns: Sequence[re.Pattern[str]]) -> re.Match[str] | None:
    return next((m for p in patterns for m in [p.search(text)] if m), None)


def compared_in_time(question: str, sentences: Sequence[_Sentence]) -> tuple[str, tuple[int, ...]]:
    """For "which film came out first, A or B?" (or "… later", "who is younger"): the side whose own
    passage's first year is the earlier (or later) one, with the passages that say so. Only when both
    sides have a year and they differ; a comparison through a second hop ("the film whose director was
    born first") is left to the quotes."""
    match = ALTERNATIVES.search(question.strip())
    q = question.casefold()
    earlier, later = _EARLIER.search(q), _LATER.search(q)
    if match is None or bool(earlier) == bool(later) or re.search(r"\bwhose\b|\bdirector|\bperformer|\bcomposer", q):
        return "", ()
    event = _BORN if re.search(r"\bborn\b|\bbirth", q) else _DIED if re.search(r"\bdied\b|\bdeath", q) else None
    years: list[tuple[int, str, int]] = []
    for side in (match["a"], match["b"]):
        name = norm(side)
        own = [s for s in sentences if norm(s.passage.name) == name or s.text.casefold().startswith(name)]
        found = next(((int(m.group("year")), s.passage.number) for s in own
                      for m in [_event_year(s.text, event or (_YEAR,))] if m), None)
        if found is None:
            return "", ()
        years.append((found[0], side.strip(), found[1]))
    if years[0][0] == years[1][0]:
        return "", ()
    pick = min(years) if earlier else max(years)
    return pick[1], tuple(sorted({years[0][2], years[1][2]}))


class ExtractiveAnswerer:
    """``nlp`` is the process's spaCy pipeline (the one the graph loads), shared read-only."""

    def __init__(self, embedder: Embedder | None, nlp: Any, *, max_sentences: int = 3) -> None:
        self.embedder = embedder
        self.nlp = nlp
        self.irregular = irregular_forms(nlp)
        """The lemmatizer's irregular verb forms, read once: "led" is how a sentence writes "lead"."""
        self.max_sentences = max_sentences
        self.name = "extractive"

    def score(self, question: str, sentences: Sequence[_Sentence]) -> np.ndarray:
        lexical = np.array([lexical_overlap(question, s.in_context) for s in sentences], dtype=np.float32)
        rank = np.array([s.passage.number - 1 for s in sentences], dtype=np.float32)
        graph = np.array([entity_bonus(question, s.in_context, s.passage.entities) for s in sentences],
                         dtype=np.float32)
        labels = answer_labels(question)
        typed = np.array([answer_type_bonus(question, labels, s.entities) for s in sentences], dtype=np.float32)
        if self.embedder is None:
            semantic = np.zeros_like(lexical)
        else:
            vecs = self.embedder.encode_now([question, *(s.in_context for s in sentences)])
            semantic = vecs[1:] @ vecs[0]
        return semantic + _LEXICAL_WEIGHT * lexical + graph + typed - _RANK_PENALTY * rank

    def stream(self, question: str, passages: Sequence[Passage]) -> Iterator[AnswerEvent]:
        """The short answer first when a sentence states it ("Jonas Meier. [1][2]"), then the quoted sentences
        it rests on; a refusal naming what is missing when the passages show the question is not answered
        (retrieval/answer/statement.py). No preamble: that the answer is extractive is ``Answer.mode``."""
        per_passage = parse_sentences(self.nlp, [p.text for p in passages])
        sentences = [_Sentence(p, text, ents, span) for p, ss in zip(passages, per_passage, strict=True)
                     for text, ents, span in ss]
        if not sentences:
            yield refusal("No passage had a usable sentence.", model=self.name)
            return
        scores = self.score(question, sentences)
        ranked = [int(i) for i in np.argsort(-scores, kind="stable")]
        sides = comparison_sides(question, sentences, scores)
        short, cited, needed = "", (), list(sides)
        if sides:
            short, cited = compared_in_time(question, sentences)
        else:
            outcome = self.statement(question, sentences, ranked)
            if outcome.refusal:
                yield refusal(outcome.refusal, model=self.name)
                return
            if outcome.statement is not None and offered_choice(question, outcome.statement.answer):
                st = outcome.statement
                short = st.answer
                cited = tuple(dict.fromkeys(sentences[i].passage.number for i in (*st.chain, st.sentence)))
                needed = [st.sentence, *st.chain]
        picked = self._pick(sentences, scores, needed)
        # Cited passages numbered 1, 2, ... in the order the answer cites them: numbered by retrieval rank, a
        # quote from passages 1 and 3 read as if a source [2] were missing.
        numbers: dict[int, int] = {}
        for n in [*(cited if short else ()), *(s.passage.number for s in picked)]:
            numbers.setdefault(n, len(numbers) + 1)
        quoted = [replace(p, number=numbers[p.number]) for p in passages if p.number in numbers]
        pieces: list[str] = []
        if short:
            pieces.append(f"{short.rstrip('.')}. " + "".join(f"[{numbers[n]}]" for n in cited) + "\n\n")
        pieces += [("" if i == 0 else " ") + f"{s.quoted} [{numbers[s.passage.number]}]" for i, s in enumerate(picked)]
        yield from pieces
        yield finish("".join(pieces), quoted, model=self.name, mode="extractive", short=short)

    def statement(self, question: str, sentences: Sequence[_Sentence], ranked: Sequence[int]) -> Outcome:
        """Where the passages state the answer (or say they do not), read from the parsed sentences."""
        needs = question_needs(question, self.nlp, self.irregular)
        asked = read_question(question, self.nlp, needs.entities, self.irregular)
        if asked is None:
            return Outcome(None)
        parsed = [Parsed(s.passage, s.span) for s in sentences]
        return find_statement(asked, parsed, ranked)

    def _pick(self, sentences: Sequence[_Sentence], scores: np.ndarray, needed: Sequence[int]) -> list[_Sentence]:
        """The best sentence, then the ones the answer needs (``anchors``), then the next best; at most two
        per passage (a multi-hop answer needs its second passage too), and none far below the best
        unless needed (they would only pad the answer)."""
        picked: list[_Sentence] = []
        per_passage: dict[int, int] = {}
        floor = float(scores.max()) - _KEEP_WITHIN
        order = [int(i) for i in np.argsort(-scores, kind="stable")]
        needed = list(dict.fromkeys(needed))
        order = [order[0], *(i for i in needed if i != order[0]), *(i for i in order[1:] if i not in needed)]
        for i in order:
            s = sentences[i]
            if scores[i] < floor and i not in needed:
                continue
            if per_passage.get(s.passage.number, 0) >= _MAX_PER_PASSAGE:
                continue
            per_passage[s.passage.number] = per_passage.get(s.passage.number, 0) + 1
            picked.append(s)
            if len(picked) == self.max_sentences:
                break
        return picked

    def answer(self, question: str, passages: Sequence[Passage]) -> Answer:
        return drain(self.stream(question, passages))
