"""The offline answerer: the passages' most relevant sentences, each cited like a generated answer.

Used whenever no Gemini credentials are configured, so a laptop with no key and no network still
gets an answer with citations. Sentences are scored against the question with the embedding model
the process already has loaded (cosine), plus lexical overlap so exact names and numbers count.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from core.models import Embedder
from retrieval.answer.base import Answer, AnswerEvent, Passage, drain, refusal, resolve_citations

EXTRACTIVE_NOTICE = "Extractive answer (no answer model is configured; these are the most relevant sentences):"

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")
_WORD = re.compile(r"\w+", re.UNICODE)
_STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "had",
    "has", "have", "how", "in", "is", "it", "its", "of", "on", "or", "that", "the", "their",
    "this", "to", "was", "were", "what", "when", "where", "which", "who", "whom", "whose", "why",
    "will", "with",
})
_MIN_CHARS = 12
_MIN_WORDS = 4
_MAX_SENTENCE_CHARS = 400
_LEXICAL_WEIGHT = 0.3
_RANK_PENALTY = 0.02
_MAX_PER_PASSAGE = 2


_PRONOUN_START = re.compile(r"^(It|Its|He|His|She|Her|They|Their|The company|The firm)\b")


@dataclass(frozen=True, slots=True)
class _Sentence:
    passage: Passage
    text: str

    @property
    def in_context(self) -> str:
        """The sentence with its passage's title: "Its best-known ship…" alone does not say whose."""
        title = self.passage.title
        return f"{title}: {self.text}" if title and title.lower() not in self.text.lower() else self.text

    @property
    def quoted(self) -> str:
        return self.in_context if _PRONOUN_START.match(self.text) else self.text


def split_sentences(text: str) -> list[str]:
    """Sentences worth quoting: headings and fragments of a few words are dropped."""
    out = []
    for raw in _SENTENCE_END.split(text):
        s = " ".join(raw.split())
        if len(s) < _MIN_CHARS or s.startswith("#") or len(s.split()) < _MIN_WORDS:
            continue
        out.append(s if len(s) <= _MAX_SENTENCE_CHARS else s[: _MAX_SENTENCE_CHARS - 1].rstrip() + "…")
    return out


def _terms(text: str) -> set[str]:
    return {w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in _STOPWORDS}


def lexical_overlap(question: str, sentence: str) -> float:
    """Share of the question's content words the sentence contains (0..1)."""
    q = _terms(question)
    return len(q & _terms(sentence)) / len(q) if q else 0.0


class ExtractiveAnswerer:
    def __init__(self, embedder: Embedder | None, *, max_sentences: int = 3) -> None:
        self.embedder = embedder
        self.max_sentences = max_sentences
        self.name = "extractive"

    def score(self, question: str, sentences: Sequence[_Sentence]) -> np.ndarray:
        lexical = np.array([lexical_overlap(question, s.in_context) for s in sentences], dtype=np.float32)
        rank = np.array([s.passage.number - 1 for s in sentences], dtype=np.float32)
        if self.embedder is None:
            semantic = np.zeros_like(lexical)
        else:
            vecs = self.embedder.encode([question, *(s.in_context for s in sentences)])
            semantic = vecs[1:] @ vecs[0]
        return semantic + _LEXICAL_WEIGHT * lexical - _RANK_PENALTY * rank

    def stream(self, question: str, passages: Sequence[Passage]) -> Iterator[AnswerEvent]:
        sentences = [_Sentence(p, s) for p in passages for s in split_sentences(p.text)]
        if not sentences:
            yield refusal("No passage had a usable sentence.", model=self.name)
            return
        scores = self.score(question, sentences)
        best = self._pick(sentences, scores)
        pieces = [EXTRACTIVE_NOTICE]
        yield EXTRACTIVE_NOTICE
        for s in best:
            piece = f" {s.quoted} [{s.passage.number}]"
            pieces.append(piece)
            yield piece
        text = "".join(pieces)
        citations, unresolved = resolve_citations(text, passages)
        yield Answer(text=text, citations=citations, mode="extractive", model=self.name, unresolved=unresolved)

    def _pick(self, sentences: Sequence[_Sentence], scores: np.ndarray) -> list[_Sentence]:
        """Best first, at most two per passage: a multi-hop answer needs its second passage too."""
        picked: list[_Sentence] = []
        per_passage: dict[int, int] = {}
        for i in np.argsort(-scores, kind="stable"):
            s = sentences[int(i)]
            if per_passage.get(s.passage.number, 0) >= _MAX_PER_PASSAGE:
                continue
            per_passage[s.passage.number] = per_passage.get(s.passage.number, 0) + 1
            picked.append(s)
            if len(picked) == self.max_sentences:
                break
        return picked

    def answer(self, question: str, passages: Sequence[Passage]) -> Answer:
        return drain(self.stream(question, passages))
