"""Concurrent query embeddings are batched: same vectors as one at a time, failures reach every caller."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from kgrag.core.models import Embedder


class _SlowModel:
    """Embeds a text as a one-hot of its length; slow enough that callers pile up behind the lock."""

    max_seq_length = 256

    def __init__(self, *, fail_on: str | None = None) -> None:
        self.calls: list[list[str]] = []
        self.fail_on = fail_on
        self.gate = threading.Event()

    def get_sentence_embedding_dimension(self) -> int:
        return 32

    def encode(self, texts: Sequence[str], **_: object) -> np.ndarray:
        self.gate.wait(5)
        self.calls.append(list(texts))
        if self.fail_on in texts:
            raise ValueError("model failed")
        out = np.zeros((len(texts), 32), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, len(t) % 32] = 1.0
        return out


def test_concurrent_queries_share_a_batch_and_get_their_own_vectors() -> None:
    model = _SlowModel()
    embedder = Embedder(model, "fake")
    texts = [f"q{'x' * i}" for i in range(8)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(embedder.encode_query, t) for t in texts]
        threading.Timer(0.3, model.gate.set).start()
        vectors = [f.result(timeout=10) for f in futures]
    for t, v in zip(texts, vectors, strict=True):
        assert int(np.argmax(v)) == len(t) % 32
    assert sum(len(c) for c in model.calls) == len(texts)
    assert len(model.calls) < len(texts)  # at least some were encoded together


def test_a_lone_query_is_encoded_at_once() -> None:
    model = _SlowModel()
    model.gate.set()
    embedder = Embedder(model, "fake")
    assert int(np.argmax(embedder.encode_query("abc"))) == 3
    assert model.calls == [["abc"]]


def test_a_failed_batch_fails_every_query_in_it() -> None:
    model = _SlowModel(fail_on="bad")
    embedder = Embedder(model, "fake")
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(embedder.encode_query, t) for t in ("bad", "a", "bb", "ccc")]
        threading.Timer(0.3, model.gate.set).start()
        outcomes = []
        for f in futures:
            try:
                outcomes.append(f.result(timeout=10))
            except (ValueError, RuntimeError) as exc:
                outcomes.append(exc)
    failed = [o for o in outcomes if isinstance(o, Exception)]
    assert failed, "the failing query must raise"
    batch_with_bad = next(c for c in model.calls if "bad" in c)
    assert len(failed) == len(batch_with_bad)  # everyone batched with it fails; the rest succeed


def test_real_model_batched_vectors_match_single_ones(embedder: Embedder) -> None:
    texts = ["Who founded Harlow Biotech?", "capital of Estonia", "a sleeping cat on a mat", "x"]
    single = np.stack([embedder.encode([t])[0] for t in texts])
    with ThreadPoolExecutor(max_workers=4) as pool:
        batched = np.stack(list(pool.map(embedder.encode_query, texts)))
    np.testing.assert_allclose(batched, single, atol=1e-5)




def test_a_querys_own_texts_take_one_model_call_while_bulk_work_steps() -> None:
    """Stepping lets queries in between an upload's texts; a query's link or answer sentences taken that way
    paid a forward pass each (the 1M graph stage's p95 went from 74 to 493 ms)."""
    model = _SlowModel()
    model.gate.set()
    embedder = Embedder(model, "fake", yield_every=1)
    texts = [f"sentence {'x' * i}" for i in range(6)]
    now = embedder.encode_now(texts)
    assert model.calls == [texts]
    stepped = embedder.encode(texts, batch_size=64)
    assert model.calls[1:] == [[t] for t in texts]
    np.testing.assert_allclose(np.linalg.norm(now, axis=1), 1.0, atol=1e-6)  # unit vectors, as encode's
    np.testing.assert_allclose(now, stepped, atol=1e-6)
    assert embedder.encode_now([]).shape == (0, 32)


def test_a_query_is_not_held_up_by_a_whole_documents_embedding(embedder: Embedder) -> None:
    """Ingestion takes the model one batch at a time and lets waiting queries go first."""
    texts = [f"Paragraph {i} about the shipyards of Turku and the drones built in Tallinn." for i in range(256)]
    started, done = threading.Event(), threading.Event()

    def ingest() -> None:
        started.set()
        embedder.encode(texts, batch_size=16)
        done.set()

    worker = threading.Thread(target=ingest)
    worker.start()
    started.wait()
    threading.Event().wait(0.3)  # the document's embedding is under way
    assert not done.is_set(), "the ingest embedding must take longer than this test's head start"
    vector = embedder.encode_query("Which shipyard built the Kelpie?")
    answered_while_ingesting = not done.is_set()
    worker.join()
    assert vector.shape == (embedder.dim,)
    assert answered_while_ingesting, "the query waited for the whole document's embedding"
