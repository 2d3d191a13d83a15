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
from kgrag.retrieval.answer.support import ALTERNATIVES, answer_kind, answer_labels, question_needs

SENTENCE_COMPONENTS = ("senter", "sentencizer", "ner")
"""What the answerer runs of the shared spaCy pipeline: the cheap sentence splitter and NER, no parser."""

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

_HOP_SOURCES = 3
"""How many of the best sentences name the bridges a second-hop sentence may continue from."""
_NOT_NAMES = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "QUANTITY", "PERCENT", "NORP"})
"""NER labels that are values or nationalities, not things a second hop can be about ("Norwegian" links nothing)."""
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

    @property
    def in_context(self) -> str:
        """The sentence with its passage's name: "Its best-known ship…" alone does not say whose."""
        name = self.passage.name
        return f"{name}: {self.text}" if name and name.lower() not in self.text.lower() else self.text

    @property
    def quoted(self) -> str:
        return self.in_context if _PRONOUN_START.match(self.text) else self.text


def text_blocks(text: str) -> list[str]:
    """Runs of text a sentence can span: hard-wrapped lines joined, headings and list items kept apart."""
    blocks: list[list[str]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            blocks.append([])
        elif _LONE_LINE.match(stripped):
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
    if len(s) < (_MIN_CJK_CHARS if cjk else _MIN_CHARS) or s.startswith(("#", "|")) or s[0].islower():
        return False
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
    disable = [name for name in nlp.pipe_names if name not in SENTENCE_COMPONENTS]
    blocks = [text_blocks(t) for t in texts]
    flat = [b for bs in blocks for b in bs]
    docs = iter(nlp.pipe(flat, disable=disable))
    out: list[list[Sentence]] = []
    for bs in blocks:
        sentences: list[Sentence] = []
        for _ in bs:
            for sent in whole_sentences(next(docs)):
                ents = [(e.text, e.label_) for e in sent.ents]
                for part in _CJK_SENTENCE_END.split(sent.text):
                    s = " ".join(part.split())
                    if not s or not _worth_quoting(s):
                        continue
                    if len(s) > _MAX_SENTENCE_CHARS:
                        s = s[: _MAX_SENTENCE_CHARS - 1].rstrip() + "…"
                    sentences.append((s, tuple(e for e in ents if e[0] in s)))
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


def _norm(name: str) -> str:
    name = name.casefold().strip()
    return name[4:] if name.startswith("the ") else name


def bridges(sentence: _Sentence, question: str) -> set[str]:
    """What ``sentence`` names that the question does not: its entities and its passage's subject."""
    q = question.casefold()
    names = {_norm(text) for text, label in sentence.entities if label not in _NOT_NAMES}
    if sentence.passage.name:
        names.add(_norm(sentence.passage.name))
    return {n for n in names if len(n) > 2 and n not in q}


def comparison_sides(question: str, sentences: Sequence[_Sentence], scores: np.ndarray) -> list[int]:
    """For "who was born first, A or B?": the best sentence about each side (an answer needs both)."""
    match = ALTERNATIVES.search(question.strip())
    if match is None:
        return []
    picked: list[int] = []
    for side in (match["a"], match["b"]):
        name = _norm(side)
        about = [i for i, s in enumerate(sentences) if name in s.in_context.casefold()]
        if about:
            picked.append(max(about, key=lambda i: (scores[i], -i)))
    return picked


_EARLIER = re.compile(r"\b(first|earlier|earliest|older|oldest|before)\b")
_LATER = re.compile(r"\b(later|latest|last|younger|youngest|after|more recent|most recently)\b")
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


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
    years: list[tuple[int, str, int]] = []
    for side in (match["a"], match["b"]):
        name = _norm(side)
        own = [s for s in sentences if _norm(s.passage.name) == name or s.text.casefold().startswith(name)]
        found = next(((int(m.group(1)), s.passage.number) for s in own for m in [_YEAR.search(s.text)] if m), None)
        if found is None:
            return "", ()
        years.append((found[0], side.strip(), found[1]))
    if years[0][0] == years[1][0]:
        return "", ()
    pick = min(years) if earlier else max(years)
    return pick[1], tuple(sorted({years[0][2], years[1][2]}))


def best_chain(question: str, sentences: Sequence[_Sentence], scores: np.ndarray,
               named: Sequence[str] = (), cues: Sequence[Sequence[str]] = (), root: Sequence[str] = ()
               ) -> tuple[int, int] | None:
    """The best two-hop pair (source, answer), by the sum of their scores: the source is one of the best
    sentences; the answer names a bridge the source found and adds an entity of the asked-for kind
    that neither the question nor any other of the best sentences named. An answer sentence that
    names none of the question's own entities (``named``) is preferred: the second hop is about the
    bridge ("Project Heron is led by Jonas Meier"), while one naming the question's entity restates
    the first hop ("In 2019 Northwind acquired Lumen Robotics"); then one that writes the question's main
    verb (``root``: "studied" for "where did … study?"); then the pair that writes more of the
    question's words between them (``cues``: "Marta Kask founded it" + "born in Tartu" for "where was
    the founder of … born?"). None when no pair qualifies."""
    kind = answer_kind(question)
    if kind is None:  # without the kind of answer asked for, any two sentences of one passage would qualify
        return None
    labels = kind.labels | kind.accept
    q = question.casefold()
    own = [n.casefold() for n in named if n]
    sources = [int(i) for i in np.argsort(-scores, kind="stable")[:_HOP_SOURCES]]
    found = {j: bridges(sentences[j], question) for j in sources}
    best: tuple[bool, bool, int, float, int, int] | None = None
    for i, s in enumerate(sentences):
        known = set().union(*(names for j, names in found.items() if j != i))
        new = [n for text, label in s.entities
               if label in labels and (n := _norm(text)) not in q and not any(_same(n, k, label) for k in known)]
        if not new:
            continue
        text = s.in_context.casefold()
        # the question's own entity inside the answer's name ("Zurich" in "ETH Zurich") is no restatement
        rest = s.text.casefold()
        for name in new:
            rest = rest.replace(name, " ")
        about_bridge = not any(n in rest for n in own)
        relation = bool(root) and bool(_cues_in(s.text, [root]))
        for j in sources:
            if j != i and any(name in text for name in found[j]):
                covered = len(_cues_in(sentences[j].text, cues) | _cues_in(s.text, cues))
                key = (about_bridge, relation, covered, float(scores[j] + scores[i]), j, i)
                if best is None or key[:4] > best[:4]:
                    best = key
    return None if best is None else (best[4], best[5])


def _same(name: str, other: str, label: str) -> bool:
    """One name is the other, or most of it: the first words of a name ("northwind" and "northwind
    dynamics"), or a person's last ("halvorsen" and "ingrid halvorsen"). Not "tallinn" and "tallinn
    university of technology" (too little of it), nor "zurich" and "eth zurich" (a place's name ending
    an organisation's is another thing)."""
    if name == other:
        return True
    short, long = sorted((name, other), key=len)
    if 2 * len(short) < len(long):
        return False
    return long.startswith(short + " ") or (label == "PERSON" and long.endswith(" " + short))


def _cue_stem(word: str) -> str:
    return word[: max(4, len(word) - 3)]


def _cues_in(text: str, cues: Sequence[Sequence[str]]) -> set[int]:
    """Which of the question's content words (each its forms) the sentence writes, by stem: "founded" for
    "founder", "owned" for "owns" (through its lemma "own")."""
    low = text.casefold()
    return {n for n, forms in enumerate(cues)
            if any(re.search(rf"\b{re.escape(_cue_stem(f))}", low) for f in forms)}


_LABEL_PRIORITY = ("PERSON", "GPE", "LOC", "FAC", "DATE", "MONEY", "CARDINAL", "QUANTITY", "PERCENT", "NORP",
                   "ORG", "PRODUCT", "WORK_OF_ART", "EVENT")
"""Which entity of a sentence is the short answer when several are of the asked-for kind ("who" takes a
person before an organisation)."""


def short_answer(question: str, sentences: Sequence[_Sentence], order: Sequence[int],
                 cues: Sequence[Sequence[str]] = ()) -> tuple[str, tuple[int, ...]]:
    """The span that answers ``question``, with the passage number it comes from: in the sentences of
    ``order`` (the chain's answer sentence first), an entity of the asked-for kind that the question
    does not name. Within a sentence, one that writes the noun the question asks with ("which
    university" → "Tallinn University of Technology") comes first, then one that follows a word of the
    question (``cues``: "born in
    Tartu", "studied … at the University of Lagos") beats one that does not, and the kind's own labels
    beat the ones it merely accepts (a place before an organisation for "where"). Empty when the
    question's form names no kind, or for a comparison (its answer is one of its sides, which the
    quotes settle)."""
    kind = answer_kind(question)
    if kind is None or ALTERNATIVES.search(question.strip()):
        return "", ()
    q = question.casefold()
    asked = re.search(r"\b(?:which|what) (\w{3,})", q)
    noun = asked.group(1) if asked is not None else ""
    rank = {label: i for i, label in enumerate(_LABEL_PRIORITY)}
    for i in dict.fromkeys(order):
        s = sentences[i]
        text = s.text.casefold()
        ends = [m.end() for forms in cues for f in forms for m in re.finditer(rf"\b{re.escape(_cue_stem(f))}", text)]
        found = []
        for n, (name, label) in enumerate(s.entities):
            # "which shipyard" → "Aalto Shipyards", whatever label NER gave it
            named = bool(noun) and _cue_stem(noun) in name.casefold() and label not in _NOT_NAMES
            if (label not in kind.labels | kind.accept and not named) or not _norm(name) or _norm(name) in q:
                continue
            at = text.find(name.casefold())
            follows = any(at >= c for c in ends)
            found.append((not named, not follows, label not in kind.labels, rank.get(label, len(rank)), n, name))
        if found:
            return min(found)[-1].strip(), (s.passage.number,)
        match = kind.value.search(s.text) if kind.value is not None else None
        if match is not None and match.group(0).casefold() not in q:
            return match.group(0).strip(), (s.passage.number,)
    return "", ()


class ExtractiveAnswerer:
    """``nlp`` is the process's spaCy pipeline (the one the graph loads), shared read-only."""

    def __init__(self, embedder: Embedder | None, nlp: Any, *, max_sentences: int = 3) -> None:
        self.embedder = embedder
        self.nlp = nlp
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
        """The short answer first when one is found ("Jonas Meier. [1][2]"), then the quoted sentences it
        rests on. No preamble: that the answer is extractive is ``Answer.mode``, not part of the text."""
        per_passage = split_sentences(self.nlp, [p.text for p in passages])
        sentences = [_Sentence(p, text, ents) for p, ss in zip(passages, per_passage, strict=True)
                     for text, ents in ss]
        if not sentences:
            yield refusal("No passage had a usable sentence.", model=self.name)
            return
        scores = self.score(question, sentences)
        needs = question_needs(question, self.nlp)
        sides = comparison_sides(question, sentences, scores)
        chain = None if sides or not needs.described else best_chain(
            question, sentences, scores, needs.entities, needs.cues, needs.root)
        picked = self._pick(sentences, scores, sides or (list(chain) if chain is not None else []))
        order = [sentences.index(s) for s in picked]
        short, cited = short_answer(question, sentences, [chain[1], *order] if chain is not None else order,
                                    needs.cues)
        if sides:
            short, cited = compared_in_time(question, sentences)
        if chain is not None and short:
            cited = tuple(dict.fromkeys((sentences[chain[0]].passage.number, *cited)))
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
