"""The numpy MiniLM (core/numpy_encoder.py) against the sentence-transformers one it stands in for."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kgrag.core.errors import ModelUnavailableError
from kgrag.core.models import Embedder, embedding_dim_without_loading, load_embedder, resolve_embedding_model
from kgrag.core.numpy_encoder import NumpySentenceEncoder, supported
from kgrag.core.settings import EmbeddingSettings

from tests.conftest import EXAMPLES_DIR

TEXTS = [
    "Who founded the company that acquired Lumen Robotics?",
    "hi",
    "Lumen Robotics was bought by Northwind Dynamics in 2019. " * 40,  # past the 256-token window: truncated alike
    "日本語のテキスト café naïve Zürich",
    "",
]


@pytest.fixture(scope="module")
def numpy_embedder() -> Embedder:
    return load_embedder(EmbeddingSettings(), light=True)


def test_numpy_vectors_equal_the_torch_ones(numpy_embedder: Embedder, embedder: Embedder) -> None:
    """Same weights, tokenizer and float32 arithmetic: query vectors from either path fit one database."""
    assert isinstance(numpy_embedder.model, NumpySentenceEncoder)
    texts = TEXTS + [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES_DIR.glob("*.md"))]
    ours, theirs = numpy_embedder.encode(texts, batch_size=4), embedder.encode(texts, batch_size=4)
    assert ours.shape == theirs.shape == (len(texts), 384)
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    query = numpy_embedder.encode_query(TEXTS[0])
    assert float(query @ embedder.encode_query(TEXTS[0])) > 0.99999


def test_numpy_path_counts_tokens_and_names_the_weights_like_torch(numpy_embedder: Embedder,
                                                                     embedder: Embedder) -> None:
    """Chunking counts tokens with it, and the corpus records the weights' revision (core.db)."""
    assert numpy_embedder.count_tokens(TEXTS) == embedder.count_tokens(TEXTS)
    assert numpy_embedder.token_offsets(TEXTS[3]) == embedder.token_offsets(TEXTS[3])
    assert numpy_embedder.identity() == embedder.identity()
    assert (numpy_embedder.dim, numpy_embedder.max_tokens) == (embedder.dim, embedder.max_tokens)
    assert embedding_dim_without_loading(EmbeddingSettings()) == embedder.dim


def test_backend_setting_chooses_and_refuses_what_numpy_cannot_compute(tmp_path: Path) -> None:
    folder = Path(resolve_embedding_model(EmbeddingSettings().model))
    assert supported(folder)
    assert not isinstance(load_embedder(EmbeddingSettings(backend="torch"), light=True).model, NumpySentenceEncoder)
    assert isinstance(load_embedder(EmbeddingSettings(backend="numpy")).model, NumpySentenceEncoder)
    odd = tmp_path / "cls-pooled"
    odd.mkdir()
    for name in ("modules.json", "config.json", "tokenizer.json", "model.safetensors"):
        (odd / name).write_bytes((folder / name).read_bytes())
    (odd / "1_Pooling").mkdir()
    (odd / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true}')
    assert not supported(odd)  # another pooling: torch computes it
    with pytest.raises(ModelUnavailableError) as refused:
        load_embedder(EmbeddingSettings(model=str(odd), backend="numpy"))
    assert "KGRAG_EMBEDDING__BACKEND=auto" in (refused.value.fix or "")
