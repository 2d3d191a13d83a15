"""The retriever interface every signal (dense, BM25, graph) implements.

A retriever is built once per process from long-lived resources and holds no request state:
everything about one query travels in its arguments and comes back in a fresh RetrievalResult,
so concurrent requests can never see each other's results.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
from kgrag.core.types import Filters, Hit


class QueryVector:
    """One question's embedding, computed once for all the retrievers of one request.

    Dense searches with it and the graph weighs its hops with it; they run in parallel, so whichever
    asks first embeds and the other waits for that result instead of running the model again. It
    belongs to one request (the pipeline makes a new one per question), so nothing leaks between users.
    """

    __slots__ = ("_lock", "_vector")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._vector: np.ndarray | None = None

    def get(self, embed: Callable[[], np.ndarray]) -> np.ndarray:
        """The vector, made by ``embed`` on the first call only."""
        with self._lock:
            if self._vector is None:
                self._vector = embed()
            return self._vector


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    filters: Filters = field(default_factory=Filters)
    k: int = 20
    vector: QueryVector = field(default_factory=QueryVector, compare=False, repr=False)
    """Shared by the retrievers of one request for the same text (see QueryVector)."""


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
    lead: tuple[int, ...] = ()
    """This list's leading tiers (retrieval.fusion.lead_with): (2, 5) puts its first 2 hits first, then its
    first 5, each in fused order; (): it does not lead."""
    lead_shared: int = 0
    """Set when the list leads without being sure: its first tier also admits a chunk that every other list
    (at least two) ranks within its first ``lead_shared`` (retrieval.fusion.agreed). 0: it leads alone."""


@runtime_checkable
class Retriever(Protocol):
    name: str

    def retrieve(self, query: Query) -> RetrievalResult: ...
