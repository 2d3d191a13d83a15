"""Recursive chunking on paragraph → line → sentence → word boundaries, sized in model tokens.

Sizes are counted in the embedding model's own tokens: a chunk longer than the model's window
would be silently truncated at embedding time, so no chunk may exceed ``size`` tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from kgrag.core.types import ChunkDraft, Page

CountTokens = Callable[[Sequence[str]], list[int]]
TokenOffsets = Callable[[str], list[tuple[int, int]]]

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    tokens: int


def _split_keep(text: str, sep: str) -> list[str]:
    """Split after each separator so that joining the parts gives back the text."""
    if sep == "sentence":
        bounds = [m.end() for m in _SENTENCE_END.finditer(text)]
    else:
        bounds, start = [], 0
        while (i := text.find(sep, start)) != -1:
            bounds.append(i + len(sep))
            start = i + len(sep)
    parts, prev = [], 0
    for b in bounds:
        parts.append(text[prev:b])
        prev = b
    parts.append(text[prev:])
    return [p for p in parts if p]


_SEPARATORS = ("\n\n", "\n", "sentence", " ")

MAX_TOKENIZE_CHARS = 20_000
"""The most text handed to the tokenizer at once. Tokenising a 10 MB one-line file in one call (with
offsets) peaked at 4 GB; cut into blocks at the coarsest boundary first, memory stays bounded
whatever the file size, and text shorter than this is chunked exactly as before."""


def _blocks(text: str, limit: int = MAX_TOKENIZE_CHARS) -> Iterator[str]:
    """Consecutive slices of at most ``limit`` characters that join back to ``text``, each cut at the
    last paragraph break, else line break, else sentence end, else space before the limit."""
    start = 0
    while len(text) - start > limit:
        window = text[start : start + limit]
        cut = 0
        for sep in ("\n\n", "\n"):
            if (i := window.rfind(sep)) > 0:
                cut = i + len(sep)
                break
        if not cut:
            ends = [m.end() for m in _SENTENCE_END.finditer(window)]
            cut = ends[-1] if ends else window.rfind(" ") + 1
        cut = cut if cut > 0 else limit
        yield text[start : start + cut]
        start += cut
    if start < len(text):
        yield text[start:]


class Chunker:
    def __init__(self, count_tokens: CountTokens, token_offsets: TokenOffsets, *, size: int, overlap: int) -> None:
        if overlap >= size:
            raise ValueError("overlap must be smaller than size")
        self.count_tokens = count_tokens
        self.token_offsets = token_offsets
        self.size = size
        self.overlap = overlap

    def chunk_pages(self, pages: Sequence[Page]) -> list[ChunkDraft]:
        """Chunks never span pages, so each keeps the page it came from."""
        drafts: list[ChunkDraft] = []
        for page in pages:
            for text, tokens in self.chunk_text(page.text):
                drafts.append(ChunkDraft(position=len(drafts), text=text, token_count=tokens, page=page.number))
        return drafts

    def chunk_text(self, text: str) -> list[tuple[str, int]]:
        pieces = (piece for block in _blocks(text) for piece in self._atoms(block, 0))
        return [(c, n) for c, n in self._merge(pieces) if c]

    # Split until every piece fits, trying coarse boundaries first.
    def _atoms(self, text: str, level: int) -> list[_Piece]:
        (count,) = self.count_tokens([text])
        if count <= self.size:
            return [_Piece(text, count)]
        if level >= len(_SEPARATORS):
            return self._hard_split(text)
        parts = _split_keep(text, _SEPARATORS[level])
        if len(parts) == 1:
            return self._atoms(text, level + 1)
        counts = self.count_tokens(parts)
        out: list[_Piece] = []
        for part, n in zip(parts, counts, strict=True):
            out.extend([_Piece(part, n)] if n <= self.size else self._atoms(part, level + 1))
        return out

    def _hard_split(self, text: str) -> list[_Piece]:
        """A run with no usable boundary (CJK, a long URL): cut at token offsets."""
        offsets = self.token_offsets(text)
        pieces: list[_Piece] = []
        for start in range(0, len(offsets), self.size):
            window = offsets[start : start + self.size]
            begin = window[0][0] if start else 0
            end = offsets[start + self.size][0] if start + self.size < len(offsets) else len(text)
            piece = text[begin:end]
            pieces.append(_Piece(piece, len(window)))
        return pieces

    def _merge(self, pieces: Iterable[_Piece]) -> list[tuple[str, int]]:
        chunks: list[tuple[str, int]] = []
        window: list[_Piece] = []
        total = 0
        for piece in pieces:
            if window and total + piece.tokens > self.size:
                chunks.extend(self._emit(window))
                window, total = self._overlap_tail(window, piece.tokens)
            window.append(piece)
            total += piece.tokens
        if window:
            chunks.extend(self._emit(window))
        return chunks

    def _overlap_tail(self, window: list[_Piece], incoming: int) -> tuple[list[_Piece], int]:
        """The trailing pieces that fit in the overlap budget and still leave room for the next piece."""
        tail: list[_Piece] = []
        total = 0
        for piece in reversed(window):
            if total + piece.tokens > self.overlap or total + piece.tokens + incoming > self.size:
                break
            tail.insert(0, piece)
            total += piece.tokens
        return tail, total

    def _emit(self, window: list[_Piece]) -> list[tuple[str, int]]:
        text = "".join(p.text for p in window).strip()
        (n,) = self.count_tokens([text]) if text else (0,)
        if n > self.size and len(window) > 1:  # a join can tokenise differently: split rather than overflow
            half = len(window) // 2
            return self._emit(window[:half]) + self._emit(window[half:])
        return [(text, n)]


_SENTENCE_MARKS = ".!?。！？"


def _piece_edge(text: str, i: int, step: int) -> bool:
    """Whether the whitespace run at ``text[i]`` (read towards ``step``) holds a line break or follows a
    sentence's end: where Chunker cuts its pieces (an indented line's spaces open the next piece)."""
    if not text[i].isspace():
        return False
    j = i
    while 0 <= j < len(text) and text[j].isspace():
        if text[j] in "\n\r":
            return True
        j += step
    before = j if step < 0 else i - 1
    return before >= 0 and text[before] in _SENTENCE_MARKS


def _overlap(left: str, right: str) -> int:
    """Length of the longest start of ``right`` that ``left`` ends with and that is whole sentences or lines
    on both sides: the overlap Chunker repeats at the start of the next chunk is whole pieces. A repeat
    that is not ("# Samuel Okafor" ending one chunk, "Samuel Okafor is…" starting the next) must not eat
    the text; a chunk is never all overlap, so neither is the match."""
    tail = left[-len(right):] if right else ""
    probe = right + "\x00" + tail
    border = [0] * len(probe)  # KMP: border[i] = longest proper prefix of probe[:i+1] that is also its suffix
    for i in range(1, len(probe)):
        k = border[i - 1]
        while k and probe[i] != probe[k]:
            k = border[k - 1]
        border[i] = k + (probe[i] == probe[k])
    k = border[-1] if probe else 0
    while k:
        if k < len(left) and k < len(right) and _piece_edge(left, len(left) - k - 1, -1) \
                and _piece_edge(right, k, 1):
            return k
        k = border[k - 1]
    return 0


def join_chunks(chunks: Sequence[tuple[str, int | None]]) -> str:
    """The text ``(chunk text, page)`` pairs were cut from, in order, as near as stored chunks allow.

    Neighbours on one page share up to chunking.overlap tokens of whole sentences or lines, kept once
    here (one inside a sentence or line longer than a chunk, a wide table row, is kept twice: it cannot be
    told from a real repeat). Chunk edges were stripped when stored, so the whitespace between two chunks
    that no overlap joins (a new page, a piece too long to repeat) is lost: a blank line stands in for it."""
    out: list[str] = []
    prev: tuple[str, int | None] | None = None
    for text, page in chunks:
        if prev is None:
            out.append(text)
        elif page == prev[1] and (k := _overlap(prev[0], text)):
            out.append(text[k:])
        else:
            out.append("\n\n" + text)
        prev = (text, page)
    return "".join(out)
