"""Chunking with the real embedding tokenizer: boundaries, token limits, overlap, no lost text."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import pytest
from kgrag.core.errors import ConfigError
from kgrag.core.models import Embedder
from kgrag.core.settings import ChunkingSettings, EmbeddingSettings
from kgrag.core.types import Page
from kgrag.ingest.chunking import MAX_TOKENIZE_CHARS, Chunker, join_chunks
from kgrag.ingest.pipeline import Ingestor

from tests.conftest import EXAMPLES_DIR


def make_chunker(embedder: Embedder, size: int, overlap: int) -> Chunker:
    return Chunker(embedder.count_tokens, embedder.token_offsets, size=size, overlap=overlap)


def paragraph(topic: str, n: int) -> str:
    return " ".join(f"The {topic} report number {i} describes a finding about {topic}." for i in range(n))


def test_no_chunk_exceeds_the_token_budget(embedder: Embedder) -> None:
    text = "\n\n".join(paragraph(t, 12) for t in ("river", "glacier", "harbour", "forest"))
    chunker = make_chunker(embedder, size=64, overlap=8)
    chunks = chunker.chunk_text(text)
    assert len(chunks) > 4
    for chunk_text, tokens in chunks:
        assert tokens <= 64
        assert embedder.count_tokens([chunk_text])[0] == tokens


def test_paragraphs_that_fit_are_kept_whole(embedder: Embedder) -> None:
    paras = [paragraph(t, 3) for t in ("river", "glacier", "harbour")]
    sizes = embedder.count_tokens(paras)
    chunker = make_chunker(embedder, size=max(sizes) + 5, overlap=0)
    chunks = [c for c, _ in chunker.chunk_text("\n\n".join(paras))]
    assert chunks == paras


def test_long_paragraph_splits_on_sentence_boundaries(embedder: Embedder) -> None:
    text = paragraph("volcano", 20)  # one paragraph, no newlines
    chunks = [c for c, _ in make_chunker(embedder, size=48, overlap=0).chunk_text(text)]
    assert len(chunks) > 2
    assert all(c.endswith(".") for c in chunks), chunks


def test_overlap_repeats_the_tail_of_the_previous_chunk(embedder: Embedder) -> None:
    text = paragraph("meadow", 20)
    chunks = [c for c, _ in make_chunker(embedder, size=60, overlap=20).chunk_text(text)]
    assert len(chunks) > 2
    for prev, nxt in itertools.pairwise(chunks):
        last_sentence = re.split(r"(?<=\.)\s+", prev)[-1]
        assert nxt.startswith(last_sentence)
        assert embedder.count_tokens([last_sentence])[0] <= 20


def test_text_without_spaces_is_cut_without_dropping_characters(embedder: Embedder) -> None:
    cjk = "知识图谱增强检索生成系统在本地运行并引用来源" * 30  # no spaces, no punctuation
    chunks = make_chunker(embedder, size=50, overlap=0).chunk_text(cjk)
    assert len(chunks) > 1
    assert all(tokens <= 50 for _, tokens in chunks)
    assert "".join(c for c, _ in chunks) == cjk


def test_every_word_survives_chunking(embedder: Embedder) -> None:
    text = "\n\n".join(paragraph(t, 9) for t in ("alpha", "beta", "gamma", "delta", "epsilon"))
    chunks = " ".join(c for c, _ in make_chunker(embedder, size=40, overlap=10).chunk_text(text))
    assert set(text.split()) <= set(chunks.split())


def test_pages_are_kept_and_chunks_never_span_them(embedder: Embedder) -> None:
    pages = [Page(paragraph("page one", 10), 1), Page(paragraph("page two", 10), 2)]
    drafts = make_chunker(embedder, size=50, overlap=5).chunk_pages(pages)
    assert [d.position for d in drafts] == list(range(len(drafts)))
    assert {d.page for d in drafts} == {1, 2}
    for d in drafts:
        assert ("page one" in d.text) == (d.page == 1)


def test_chunk_size_beyond_the_model_window_is_refused(embedder: Embedder, runtime) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="silently truncated"):
        Ingestor(runtime.store, embedder, ChunkingSettings(size=embedder.max_tokens, overlap=0), EmbeddingSettings())


def test_a_huge_one_line_text_is_tokenised_in_bounded_pieces(embedder: Embedder) -> None:
    """Memory stays bounded whatever the file size: the tokenizer never sees the whole text at once."""
    seen: list[int] = []

    def counting(texts: Sequence[str]) -> list[int]:
        seen.extend(len(t) for t in texts)
        return embedder.count_tokens(texts)

    def offsets(text: str) -> list[tuple[int, int]]:
        seen.append(len(text))
        return embedder.token_offsets(text)

    words = " ".join(f"token{i % 997}" for i in range(15_000))  # ~130 KB, one line, no sentence ends
    chunker = Chunker(counting, offsets, size=200, overlap=32)
    chunks = chunker.chunk_text(words)
    assert max(seen) <= MAX_TOKENIZE_CHARS < len(words)
    assert all(n <= 200 for _, n in chunks)
    assert chunks[0][0].startswith("token0 token1 ") and chunks[-1][0].endswith(f"token{14_999 % 997}")
    assert {w for c, _ in chunks for w in c.split()} == set(words.split())


def test_joined_chunks_give_back_the_text_with_each_overlap_once(embedder: Embedder) -> None:
    """GET /v1/documents/{id}?include=text and MCP's get_document rebuild the text from the stored chunks (the
    file is not kept). At these sizes a chunk of the examples ends "# Samuel Okafor" and the next, with no
    overlap, starts "Samuel Okafor is…": a heading repeated as the next words is text, not overlap."""
    text = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(EXAMPLES_DIR.glob("*.md")))
    for size, overlap in ((30, 10), (40, 8), (64, 16), (200, 32)):
        chunks = make_chunker(embedder, size=size, overlap=overlap).chunk_text(text)
        joined = join_chunks([(c, 1) for c, _ in chunks])
        assert " ".join(joined.split()) == " ".join(text.split()), (size, overlap)
    two_pages = join_chunks([("Page one ends here.", 1), ("Page one ends here. Two.", 2)])
    assert two_pages == "Page one ends here.\n\nPage one ends here. Two."  # no overlap across pages
