"""The three-signal ablation: every non-empty subset of {dense, bm25, graph}, with and without rerank.

A run ingests the dataset's corpus (a no-op for what is already stored unchanged), brings the
graph up to date, then asks every question through the real query pipeline once per
configuration. The results file keeps the raw per-question output (ranked units, latency,
graph flags, refusals) next to a stamp naming the corpus fingerprint, the full config and its
hash, the git commit and the model versions; reports are recomputed from the raw rows.
"""

from __future__ import annotations

import datetime as dt
import itertools
import platform
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from kgrag.core.runtime import Runtime
from kgrag.eval.datasets import Dataset, EvalQuestion, unit_of_source
from kgrag.eval.metrics import dedupe, exact_match, keyword_recall, token_f1
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.answer.base import Answer, TextModel, complete
from kgrag.retrieval.answer.factory import answerer_for
from kgrag.retrieval.answer.grounded import answer_passages, gate
from kgrag.retrieval.answer.hop import follow_bridge
from kgrag.retrieval.conversation import Standalone, Turn, standalone_question
from kgrag.retrieval.pipeline import QueryPipeline, build_pipeline
from kgrag.retrieval.results import PipelineResult

SIGNALS = ("dense", "bm25", "graph")
RESULTS_FORMAT = 1
RANKED_DEPTH = 10
"""Units kept per question: enough for every metric (the deepest is @10)."""
CHUNK_DEPTH = 30
"""Chunks asked of the pipeline per question, so that ``RANKED_DEPTH`` distinct units remain."""

Progress = Callable[[str, int, int], None]
"""(stage description, done, total)."""


@dataclass(frozen=True, slots=True)
class RunConfig:
    signals: tuple[str, ...]
    rerank: bool

    @property
    def name(self) -> str:
        return "+".join(self.signals) + (" +rerank" if self.rerank else "")


def run_configs(*, ablate: bool, rerank_available: bool, default_signals: Sequence[str]) -> list[RunConfig]:
    """All 7 signal subsets (×2 with a reranker) under --ablate; else just the default configuration."""
    subsets = (
        [tuple(c) for n in range(1, 4) for c in itertools.combinations(SIGNALS, n)] if ablate
        else [tuple(s for s in SIGNALS if s in default_signals)]
    )
    reranks = [False, True] if rerank_available else [False]
    return [RunConfig(s, r) for s in subsets for r in reranks]


def prepare_corpus(rt: Runtime, dataset: Dataset, progress: Progress | None = None) -> dict[str, Any]:
    """Ingest (unchanged documents are skipped cheaply) and bring the graph up to date."""
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore

    ingestor = Ingestor.from_runtime(rt, allow_duplicates=True)  # every judged unit is kept, even a twin
    docs = list(dataset.documents())
    done = 0

    def on_file(_source: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress("ingesting corpus", done, len(docs))

    report = ingestor.ingest_documents(docs, on_file=on_file)
    if report.failed:
        raise RuntimeError(f"{len(report.failed)} documents of {dataset.name} failed to ingest: {report.failed[:3]}")
    total = 0

    def on_total(n: int) -> None:
        nonlocal total
        total = n

    built = 0

    def on_graph(n: int) -> None:
        nonlocal built
        built += n
        if progress:
            progress("building graph", built, total)

    nlp = rt.spacy()
    graph = build_graph(GraphStore(rt.db), rt.settings.graph, rt.settings.graph_path, nlp,
                        on_total=on_total, on_progress=on_graph, embedder=rt.embedder)
    return {
        "documents": len(docs), "documents_ingested_now": len(report.added) + len(report.replaced),
        "skipped": [{"source": u.source, "reason": u.reason} for u in dataset.skipped],
        "chunks": rt.store.count_chunks(), "corpus_version": rt.store.corpus_version(),
        "graph": {"entities": graph.entities, "edges": graph.edges, "relations": graph.relations,
                  "file_bytes": graph.file_bytes, "build_seconds_now": round(graph.seconds, 2)},
        "spacy_model": f"{rt.settings.graph.spacy_model} {nlp.meta.get('version', '?')}",
    }


def reranker_available(pipeline: QueryPipeline) -> tuple[bool, str]:
    if pipeline.reranker is None:
        return False, "reranking is disabled in the settings"
    outcome = pipeline.reranker.score("probe", ["probe"])
    return outcome.status.state == "ran", outcome.status.reason


def question_row(q: EvalQuestion, result: PipelineResult, refused: bool | None, answer_text: str | None,
                 answer: Answer | None = None, refusal_reason: str = "",
                 standalone: Standalone | None = None) -> dict[str, Any]:
    """The raw output kept per question: everything a metric is computed from, nothing aggregated."""
    units = dedupe(unit_of_source(h.source) for h in result.hits)[:RANKED_DEPTH]
    top5 = result.hits[:5]
    graph_status = result.statuses.get("graph")
    linked = result.explanations.get("graph", {}).get("linked_entities", [])
    row: dict[str, Any] = {
        "id": q.id, "ranked": units,
        "latency_ms": round(result.timings.get("total", 0.0) * 1000, 2),
        "stage_ms": {k: round(v * 1000, 2) for k, v in result.timings.items() if "." not in k},
    }
    if standalone is not None:  # a follow-up: what it was read as decides everything after it
        row["question_used"] = standalone.question
        row["rewrite"] = standalone.method
    if "graph" in result.signals:
        row["graph_fired"] = bool(graph_status and graph_status.state == "ran" and linked
                                  and result.hit_counts.get("graph", 0) > 0)
        row["graph_only_top5"] = any(set(h.ranks) == {"graph"} for h in top5)
        if "graph" in result.fusion_weights:  # what fusion gave the graph's list for this question (0: no say)
            row["graph_weight"] = round(result.fusion_weights["graph"], 4)
    if q.keywords:
        text = answer_text if answer_text is not None else " ".join(h.text for h in top5)
        row["keyword_recall"] = round(keyword_recall(text, q.keywords), 4)
    if refused is not None:
        row["refused"] = refused
        if refused:
            row["refusal_reason"] = refusal_reason
    if answer is not None:
        row["answer"] = answer.text
        row["short_answer"] = answer.short
        if q.golds:
            row["answer_em"] = exact_match(answer.short, q.golds)
            row["answer_f1"] = round(token_f1(answer.short, q.golds), 4)
    elif refused and q.golds:
        row["answer_em"], row["answer_f1"] = 0.0, 0.0
    return row


def standalone_of(q: EvalQuestion, nlp: Any, llm: TextModel | None) -> Standalone | None:
    """A follow-up read with its earlier turns, as `/v1/query` and `/v1/chat/completions` read one (the
    answer model rewrites it when it is an LLM, else the earlier turns' entities resolve its pronouns);
    None for a question that stands alone."""
    if not q.conversation:
        return None
    return standalone_question([*q.conversation, Turn("user", q.text)], nlp=nlp, llm=llm)


def run_eval(rt: Runtime, dataset: Dataset, *, ablate: bool, answers: bool | None = None,
             progress: Progress | None = None, dataset_path: str | None = None) -> dict[str, Any]:
    """``answers`` (default: only for golden sets) also runs the gate and the answerer per question."""
    answers = dataset.format == "golden" if answers is None else answers
    corpus = prepare_corpus(rt, dataset, progress)
    pipeline = build_pipeline(rt, builder=True)
    try:
        pipeline.warm()  # model and index loading must not count as the first question's latency
        pipeline.run("warm-up", rerank=False)
        rerank_ok, rerank_reason = reranker_available(pipeline)
        configs = run_configs(ablate=ablate, rerank_available=rerank_ok,
                              default_signals=rt.settings.retrieval.signals)
        answerer = (answerer_for(rt.settings.answer, embedder=rt.embedder, spacy=rt.spacy)
                    if answers else None)
        llm = answerer if isinstance(answerer, TextModel) else None
        standalones = {q.id: standalone_of(q, rt.spacy(), llm) for q in dataset.questions if q.conversation}
        runs = []
        total = len(configs) * len(dataset.questions)
        done = 0
        for cfg in configs:
            rows = []
            for q in dataset.questions:
                standalone = standalones.get(q.id)
                asked = standalone.question if standalone else q.text
                result = pipeline.run(asked, signals=cfg.signals, top_k=CHUNK_DEPTH, rerank=cfg.rerank)
                refused, text, answer, reason = None, None, None, ""
                if answerer is not None:
                    result = follow_bridge(
                        result, lambda q, c=cfg: pipeline.run(q, signals=c.signals, top_k=CHUNK_DEPTH, rerank=c.rerank),
                        rt.spacy(), rt.settings)
                    decision = gate(result, rt.settings, rt.spacy())
                    refused = decision.verdict == "refuse"
                    text, reason = "", decision.reason  # a refused answer holds no keyword (not the passages)
                    if not refused:
                        passages = answer_passages(result, rt.settings)
                        answer = complete(answerer, asked, passages)
                        refused, text, reason = answer.refused, answer.text, answer.text
                rows.append(question_row(q, result, refused, text, answer, reason, standalone))
                done += 1
                if progress:
                    progress(f"asking ({cfg.name})", done, total)
            runs.append({"name": cfg.name, "signals": list(cfg.signals), "rerank": cfg.rerank, "questions": rows})
    finally:
        pipeline.close()
    return {
        "format": RESULTS_FORMAT,
        "stamp": stamp(rt, dataset, dataset_path=dataset_path, corpus=corpus,
                       reranker={"model": rt.settings.rerank.model, "available": rerank_ok, "reason": rerank_reason},
                       answerer=type(answerer).__name__ if answerer else None),
        "qrels": {q.id: qrel(q) for q in dataset.questions},
        "runs": runs,
    }


def qrel(q: EvalQuestion) -> dict[str, Any]:
    """What the report judges a question by; the answer-set fields only where the set has them, so a
    2Wiki results file does not carry a thousand empty ones."""
    out: dict[str, Any] = {"relevant": sorted(q.relevant), "should_refuse": q.should_refuse, "kind": q.kind,
                           "keywords": list(q.keywords)}
    if q.answers:
        out["answers"] = list(q.answers)
    if q.split:
        out["split"] = q.split
    if q.conversation:
        out["conversation"] = [{"role": t.role, "text": t.text} for t in q.conversation]
    return out


EVAL_OUTPUTS = (":(exclude)eval/results", ":(exclude)README.md", ":(exclude)docs/eval-*.png")
"""What `make eval` itself rewrites: a run after the first would otherwise always be stamped dirty."""


def git_commit(repo: Path) -> dict[str, Any]:
    """The commit that ran, and whether code or config differed from it (eval outputs do not count)."""
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                             check=True).stdout.strip()
        dirty = bool(subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                                     *EVAL_OUTPUTS], cwd=repo, capture_output=True, text=True,
                                    check=True).stdout.strip())
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}
    return {"commit": sha, "dirty": dirty}


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def stamp(rt: Runtime, dataset: Dataset, *, dataset_path: str | None, corpus: dict[str, Any],
          reranker: dict[str, Any], answerer: str | None) -> dict[str, Any]:
    settings = rt.settings
    return {
        "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "dataset": {"name": dataset.name, "format": dataset.format, "path": dataset_path or str(dataset.path),
                    "fingerprint": dataset.fingerprint(), "questions": len(dataset.questions)},
        "corpus": corpus,
        "config": settings.fingerprint_config(),
        "config_hash": settings.config_hash(),
        "git": git_commit(Path(__file__).resolve().parent.parent),
        "models": {"embedding": {"name": settings.embedding.model, "dim": rt.embedder.dim},
                   "spacy": corpus.get("spacy_model"), "reranker": reranker, "answerer": answerer},
        "versions": {"python": platform.python_version(),
                     **{d: _version(d) for d in ("kgrag", "torch", "sentence-transformers", "spacy", "bm25s",
                                                 "networkx", "psycopg", "pgvector")}},
    }
