"""The retriever interface every signal (dense, BM25, graph) implements.

A retriever is built once per process from long-lived resources and holds no request state:
everything about one query travels in its arguments and comes back in a fresh RetrievalResult,
so concurrent requests can never see each other's results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from kgrag.core.types import Filters, Hit


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    filters: Filters = field(default_factory=Filters)
    k: int = 20


StageState = Literal["ran", "skipped", "failed"]


@dataclass(frozen=True, slots=True)
class StageStatus:
    """Whether a stage ran; when it did not, why (shown in the API response and the CLI, never hidden)."""

    state: StageState
    reason: str = ""
    permanent: bool = False
    """The same for every query of this process (no reranker weights): said once, not on every answer."""

    @classmethod
    def ran(cls) -> StageStatus:
        return cls("ran")


@dataclass(frozen=True, slots=True)
class RetrievalResult:
    signal: str
    hits: tuple[Hit, ...]
    status: StageStatus
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds per sub-stage, e.g. {"embed": 0.02, "search": 0.007}."""
    explanation: dict[str, Any] = field(default_factory=dict)
    """Signal-wide details for --explain (e.g. the graph retriever's linked entities)."""
    weight: float | None = None
    """How far the retriever trusts its own list for this query (None: fully). Fusion multiplies the
    signal's configured weight by it, so a signal with nothing precise to say cannot push others down."""


@runtime_checkable
class Retriever(Protocol):
    name: str

    def retrieve(self, query: Query) -> RetrievalResult: ...
