"""Cross-encoder reranking of the fused candidates.

A cross-encoder reads query and passage together, so it judges relevance far better than
either first-stage signal, at a cost that only a few dozen candidates can afford. The model
loads once per process, lazily (a `--no-rerank` query never pays for it) and under a lock. When
it cannot be loaded the stage is skipped with a reason the user can act on, and that reason is
remembered, so a process without the model does not retry on every request.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kgrag.core.settings import RerankSettings
from kgrag.retrieval.base import StageStatus


class RerankerUnavailable(Exception):
    """The configured model could not be loaded; ``str()`` is the user-facing reason."""


@dataclass(frozen=True, slots=True)
class RerankOutcome:
    scores: tuple[float, ...]
    status: StageStatus


def unavailable_reason(model: str, exc: BaseException) -> str:
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (f"reranker model {model} could not be loaded ({type(exc).__name__}: {detail[:200]}): "
            f"to get its weights, run once while online with HF_HUB_OFFLINE=0: python -c \"from "
            f"sentence_transformers import CrossEncoder; CrossEncoder('{model}')\" (they are cached for offline use), "
            "or set KGRAG_RERANK__MODEL to a local cross-encoder folder")


class Reranker:
    """Scores (query, passage) pairs with a sentence-transformers CrossEncoder.

    The lock around predict() also serialises the tokenizer, which is not safe to share between
    threads ("Already borrowed"); it guards no request state.
    """

    def __init__(self, settings: RerankSettings, *, device: str = "cpu") -> None:
        self.settings = settings
        self.device = device
        self._model: Any = None
        self._error: str | None = None
        self._load_lock = threading.Lock()
        self._predict_lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self.settings.model

    def load(self) -> Any:
        """The model, loading it on first use; raises RerankerUnavailable (every time) if it cannot be."""
        with self._load_lock:
            if self._model is None and self._error is None:
                try:
                    from sentence_transformers import CrossEncoder

                    model = CrossEncoder(self.settings.model, device=self.device)
                    model.eval()
                    self._model = model
                except Exception as exc:  # offline, no cache, not a cross-encoder, corrupt weights
                    self._error = unavailable_reason(self.settings.model, exc)
            if self._error is not None:
                raise RerankerUnavailable(self._error)
            return self._model

    def score(self, query: str, passages: Sequence[str]) -> RerankOutcome:
        """One relevance score per passage (higher is better), or a skipped/failed status saying why."""
        if not passages:
            return RerankOutcome((), StageStatus.ran())
        try:
            model = self.load()
        except RerankerUnavailable as exc:
            return RerankOutcome((), StageStatus("skipped", str(exc)))
        try:
            with self._predict_lock:
                raw = model.predict([(query, p) for p in passages], batch_size=self.settings.batch_size,
                                    show_progress_bar=False, convert_to_numpy=True)
        except Exception as exc:
            return RerankOutcome((), StageStatus("failed", f"reranker {self.model_name} failed: "
                                                           f"{type(exc).__name__}: {exc}"))
        return RerankOutcome(tuple(float(s) for s in raw.reshape(len(passages), -1)[:, 0]), StageStatus.ran())
