"""Cross-encoder reranking of the fused candidates.

A cross-encoder reads query and passage together, so it judges relevance far better than
either first-stage signal, at a cost that only a few dozen candidates can afford. The model
loads once per process, lazily (a `--no-rerank` query never pays for it) and under a lock. When
it cannot be loaded the stage is skipped with a reason the user can act on, and that reason is
remembered, so a process without the model does not retry on every request.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from kgrag.core.settings import RerankSettings
from kgrag.retrieval.base import StageStatus

log = logging.getLogger(__name__)


class RerankerUnavailable(Exception):
    """The configured model could not be loaded: ``problem`` and ``fix``; ``str()`` is both, for users."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}: {fix}")
        self.problem = problem
        self.fix = fix


@dataclass(frozen=True, slots=True)
class RerankOutcome:
    scores: tuple[float, ...]
    status: StageStatus


def is_local_folder(model: str) -> bool:
    """A model setting that names a folder on this machine rather than a hub repository ("org/name")."""
    return model.startswith(("/", ".", "~")) or Path(model).expanduser().exists()


def reranker_fix(model: str) -> str:
    """The one fix text for missing cross-encoder weights: the query's status and `kgrag doctor` both say it."""
    return (f"to get its weights, run once while online with HF_HUB_OFFLINE=0: python -c \"from "
            f"sentence_transformers import CrossEncoder; CrossEncoder('{model}')\" (they are cached for offline use), "
            "or set KGRAG_RERANK__MODEL to a local cross-encoder folder")


def unavailable(model: str, exc: BaseException) -> RerankerUnavailable:
    """What ``stages.rerank`` says (to API clients too), so never a local path or the loader's raw text, which
    quotes paths and internals (both go to the server log). The fix fits what the setting names: a hub model
    needs its weights downloaded once, a local folder needs to hold a whole cross-encoder."""
    if is_local_folder(model):
        missing = not Path(model).expanduser().exists()
        problem = "does not exist" if missing else f"does not hold a loadable cross-encoder ({type(exc).__name__})"
        return RerankerUnavailable(
            f"the reranker's local model folder (KGRAG_RERANK__MODEL) {problem}",
            "point KGRAG_RERANK__MODEL at a folder saved by CrossEncoder.save_pretrained (config.json, the weights "
            "and the tokenizer files), or at a hub name such as cross-encoder/ms-marco-MiniLM-L6-v2; the server "
            "log names the folder and the error")
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return RerankerUnavailable(f"reranker model {model} could not be loaded ({type(exc).__name__}: {detail[:200]})",
                               reranker_fix(model))


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in {"1", "true", "yes", "on"}


def weights_on_disk(model: str) -> bool | None:
    """Whether the model is a local folder or in the hub cache (None: a name the hub would refuse)."""
    if Path(model).expanduser().is_dir():
        return True
    from huggingface_hub import try_to_load_from_cache

    try:
        return isinstance(try_to_load_from_cache(model, "config.json"), str)
    except Exception:  # an invalid repo id: the real loader says why
        return None


HUB_PROBE_TIMEOUT = 3.0
"""Seconds to wait for the hub's TCP port. Unreachable, the hub client retries each file for about 25 s."""


def hub_unreachable() -> str | None:
    """The hub endpoint (HF_ENDPOINT) when nothing answers on its port: a machine without a network and
    without HF_HUB_OFFLINE=1 spent about 50 s in the hub client's retries before the stage was skipped. None
    when it answers, or when a proxy is configured (only the proxy can say)."""
    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return None
    endpoint = os.environ.get("HF_ENDPOINT", "").strip() or "https://huggingface.co"
    url = urlsplit(endpoint)
    if not url.hostname:
        return None
    try:
        with socket.create_connection((url.hostname, url.port or (443 if url.scheme == "https" else 80)),
                                      timeout=HUB_PROBE_TIMEOUT):
            return None
    except OSError:
        return endpoint


def missing_weights(model: str) -> RerankerUnavailable | None:
    """Why the model certainly cannot load, found without importing torch (seconds of a CLI query's start):
    neither a local folder nor in the hub cache, and offline (HF_HUB_OFFLINE=1, or no answer from the hub).
    None when loading is worth trying."""
    if weights_on_disk(model) is not False:
        return None
    if _offline():
        return RerankerUnavailable(f"reranker model {model} has no weights on this machine, and HF_HUB_OFFLINE=1 "
                                   "forbids downloading them", reranker_fix(model))
    endpoint = hub_unreachable()
    if endpoint is None:
        return None
    return RerankerUnavailable(f"reranker model {model} has no weights on this machine, and the hub ({endpoint}) "
                               "cannot be reached to download them", reranker_fix(model))


class Reranker:
    """Scores (query, passage) pairs with a sentence-transformers CrossEncoder.

    The lock around predict() also serialises the tokenizer, which is not safe to share between
    threads ("Already borrowed"); it guards no request state.
    """

    def __init__(self, settings: RerankSettings, *, device: str = "cpu") -> None:
        self.settings = settings
        self.device = device
        self._model: Any = None
        self._error: RerankerUnavailable | None = None
        self._load_lock = threading.Lock()
        self._predict_lock = threading.Lock()

    @property
    def model_name(self) -> str:
        return self.settings.model

    def load(self) -> Any:
        """The model, loading it on first use; raises RerankerUnavailable (every time) if it cannot be."""
        with self._load_lock:
            if self._model is None and self._error is None:
                self._error = missing_weights(self.settings.model)
                if self._error is None:
                    try:
                        from sentence_transformers import CrossEncoder

                        model = CrossEncoder(self.settings.model, device=self.device)
                        model.eval()
                        self._model = model
                    except Exception as exc:  # offline, no cache, not a cross-encoder, corrupt weights
                        log.warning("reranker model %s could not be loaded: %s: %s", self.settings.model,
                                    type(exc).__name__, exc)
                        self._error = unavailable(self.settings.model, exc)
            if self._error is not None:  # a fresh exception each time: a raised one keeps its traceback
                raise RerankerUnavailable(self._error.problem, self._error.fix)
            return self._model

    def unavailable_problem(self) -> str | None:
        """Why the model cannot be loaded (without the fix), or None when it loads: a client can show reranking
        as off before any query instead of offering a choice that does nothing. Tries the load, once per process
        like a query would (a server has done so at startup)."""
        try:
            self.load()
        except RerankerUnavailable as exc:
            return exc.problem
        return None

    def score(self, query: str, passages: Sequence[str]) -> RerankOutcome:
        """One relevance score per passage (higher is better), or a skipped/failed status saying why."""
        if not passages:
            return RerankOutcome((), StageStatus.ran())
        try:
            model = self.load()
        except RerankerUnavailable as exc:
            return RerankOutcome((), StageStatus("skipped", str(exc), permanent=True))
        try:
            with self._predict_lock:
                raw = model.predict([(query, p) for p in passages], batch_size=self.settings.batch_size,
                                    show_progress_bar=False, convert_to_numpy=True)
        except Exception as exc:  # the text may quote paths and inputs: the log has it, the client the kind
            log.exception("reranker %s failed", self.model_name)
            return RerankOutcome((), StageStatus("failed", f"the reranker failed ({type(exc).__name__}; "
                                                           "the server log has the details)"))
        return RerankOutcome(tuple(float(s) for s in raw.reshape(len(passages), -1)[:, 0]), StageStatus.ran())
