"""Small frozen result types that travel between layers (rather than dicts that grow keys)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

DocumentStatus = Literal["pending", "indexed", "failed"]


@dataclass(frozen=True, slots=True)
class Page:
    """A unit of loaded text with its page number (1-based; None when the format has no pages)."""

    text: str
    number: int | None = None


@dataclass(frozen=True, slots=True)
class LoadedDocument:
    source: str
    title: str
    mime_type: str
    pages: tuple[Page, ...]
    content_hash: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A chunk before it is stored: text plus where it came from."""

    position: int
    text: str
    token_count: int
    page: int | None = None


@dataclass(frozen=True, slots=True)
class DocumentRecord:
    id: int
    source: str
    title: str
    mime_type: str
    content_hash: str
    chunk_count: int
    metadata: dict[str, Any] = field(default_factory=dict)
    status: DocumentStatus = "indexed"
    """pending: accepted, not yet stored whole (a crash leaves it so); indexed: chunks stored and searchable;
    failed: could not be ingested, ``status_reason`` says why."""
    status_reason: str = ""


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    id: int
    document_id: int
    position: int
    text: str
    page: int | None
    source: str
    title: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Filters:
    """Restrictions every retriever honours. All are ANDed; empty means no restriction."""

    document_ids: tuple[int, ...] = ()
    sources: tuple[str, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.document_ids or self.sources or self.metadata)


@dataclass(frozen=True, slots=True)
class Hit:
    """One retriever's ranked candidate. ``rank`` is 1-based within that retriever's list."""

    chunk_id: int
    signal: str
    rank: int
    score: float
    explanation: dict[str, Any] = field(default_factory=dict)
