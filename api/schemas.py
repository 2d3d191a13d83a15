"""Request and response bodies of the REST API (pydantic), and their conversion from core types.

Kept apart from the routes so the wire format is visible in one file and the core's frozen
types never need to know about JSON.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from kgrag.core.text import SURROGATE_FIX, surrogate_char, surrogate_problem
from kgrag.core.types import ChunkRecord, DocumentRecord, Filters
from kgrag.retrieval.answer import Answer, Citation
from kgrag.retrieval.base import StageStatus
from kgrag.retrieval.conversation import Standalone
from kgrag.retrieval.gate import GateDecision
from kgrag.retrieval.results import PassageHit, PipelineResult
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, StringConstraints, field_validator

Signal = Literal["dense", "bm25", "graph"]


def _no_lone_surrogate(value: object) -> object:
    """Runs before pydantic's own str check, which says only "unable to parse raw data as a unicode string" where
    it looks, and lets one through where it does not (a conversation turn, a filter): then the text failed in
    the database (a 200 whose every stage failed) or in encoding the response (a 500)."""
    if isinstance(value, str) and (bad := surrogate_char(value)) is not None:
        raise ValueError(f"the text holds {surrogate_problem(bad)}: {SURROGATE_FIX}")
    return value


UserText = Annotated[str, BeforeValidator(_no_lone_surrogate)]
"""Text a client sends that is used, stored or sent back: a question, a turn, a filter, a chat message or model
name, a document's text. A lone surrogate in it is a 422 naming the field, whatever route it came by."""


DocumentId = Annotated[int, Strict()] | Annotated[str, StringConstraints(pattern=r"^[0-9]{1,18}$")]
"""An id as a number or as its digits (clients that keep ids as strings); never a boolean or a float."""


class FiltersIn(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON's types as the schema states them: `0` is not `false`

    document_ids: list[DocumentId] = Field(default_factory=list, description="Numbers, or strings of digits.")
    sources: list[UserText] = Field(default_factory=list)
    metadata: dict[UserText, UserText] = Field(default_factory=dict, description="Exact matches on document metadata.")

    @field_validator("sources")
    @classmethod
    def _no_nul_in_sources(cls, v: list[str]) -> list[str]:
        """These reach Postgres as text parameters, which cannot hold NUL: a clear 422, not a failed signal."""
        if any("\x00" in s for s in v):
            raise ValueError("a source contains a NUL character (\\u0000), which no stored source can")
        return v

    @field_validator("metadata")
    @classmethod
    def _no_nul_in_metadata(cls, v: dict[str, str]) -> dict[str, str]:
        if any("\x00" in k or "\x00" in s for k, s in v.items()):
            raise ValueError("a metadata key or value contains a NUL character (\\u0000), which stored metadata cannot")
        return v

    def to_core(self) -> Filters:
        return Filters(tuple(int(d) for d in self.document_ids), tuple(self.sources),
                       tuple(sorted(self.metadata.items())))


class TurnIn(BaseModel):
    model_config = ConfigDict(strict=True)

    role: Literal["user", "assistant"]
    text: UserText


class QueryRequest(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON's types as the schema states them: `0` is not `false`

    question: UserText = Field(min_length=1, description="Limited to api.max_question_chars characters.")
    conversation: list[TurnIn] = Field(
        default_factory=list, description="The earlier turns, oldest first (the web UI's Ask page sends them): a "
        "follow-up (\"Where does he work?\") is rewritten into the standalone question it stands for, as "
        "/v1/chat/completions does; `rewrite` says how. Bounded by api.max_messages and api.max_chat_chars.")
    top_k: int | None = Field(default=None, ge=1, description="Passages returned (default retrieval.top_k).")
    signals: list[Signal] | None = Field(default=None, description="Default: retrieval.signals.")
    filters: FiltersIn = Field(default_factory=FiltersIn)
    rerank: bool = True
    answer: bool = True


class StageOut(BaseModel):
    state: Literal["ran", "skipped", "failed"]
    reason: str = ""
    permanent: bool = False
    """True when the stage cannot run in this server at all (no reranker weights): it is reported here, not
    repeated in every response's ``warnings``."""

    @classmethod
    def of(cls, status: StageStatus) -> StageOut:
        return cls(state=status.state, reason=status.reason, permanent=status.permanent)


class HitOut(BaseModel):
    rank: int
    chunk_id: int
    document_id: int
    source: str
    title: str
    page: int | None
    position: int | None = Field(default=None, description="The chunk's place in its document, 0-based (chunk_id "
                                 "is a database id: show position + 1 to people).")
    text: str
    fused_score: float
    rerank_score: float | None
    ranks: dict[str, int] = Field(description="Signal → 1-based rank in that signal's list.")
    scores: dict[str, float] = Field(description="Signal → that signal's own score (dense: cosine similarity).")
    explanations: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="List → why it returned this passage. graph: the chain from the question's linked node to "
                    "this passage's document (path, relations, evidence sentences, chain). Lists of the query "
                    "stages are named signal@label, e.g. dense@hyde.")

    @classmethod
    def of(cls, h: PassageHit) -> HitOut:
        return cls(rank=h.rank, chunk_id=h.chunk_id, document_id=h.document_id, source=h.source, title=h.title,
                   page=h.page, position=h.position, text=h.text, fused_score=h.fused_score,
                   rerank_score=h.rerank_score, ranks=dict(h.ranks), scores=dict(h.scores),
                   explanations=dict(h.explanations))


class CitationOut(BaseModel):
    number: int
    chunk_id: int
    document_id: int
    source: str
    title: str
    page: int | None
    position: int | None
    quote: str

    @classmethod
    def of(cls, c: Citation) -> CitationOut:
        return cls(number=c.number, chunk_id=c.chunk_id, document_id=c.document_id, source=c.source,
                   title=c.title, page=c.page, position=c.position, quote=c.quote)


class AnswerOut(BaseModel):
    text: str
    mode: Literal["generative", "extractive", "refused"]
    model: str
    short_answer: str = Field(default="", description="The answer's span alone (\"Jonas Meier\"), when the "
                              "answerer found one; the extractive answerer's text opens with it.")
    warning: str = ""
    unresolved_citations: list[int] = Field(
        default_factory=list, description="Citation numbers the model wrote that match no passage: removed from "
        "`text` (the streamed tokens are the model's raw output and still show them).")

    unsupported_claims: list[str] = Field(
        default_factory=list, description="Names and numbers a generated sentence states that the passages it "
        "cites do not contain (also said in `warnings`): the citation does not carry that claim.")

    @classmethod
    def of(cls, a: Answer) -> AnswerOut:
        return cls(text=a.text, mode=a.mode, model=a.model, short_answer=a.short, warning=a.warning,
                   unresolved_citations=list(a.unresolved), unsupported_claims=list(a.unsupported))


class GateCheckOut(BaseModel):
    name: str
    value: float | None
    threshold: float
    passed: bool


class GateOut(BaseModel):
    verdict: Literal["pass", "refuse", "warn"]
    reason: str
    checks: list[GateCheckOut]

    @classmethod
    def of(cls, d: GateDecision) -> GateOut:
        return cls(verdict=d.verdict, reason=d.reason,
                   checks=[GateCheckOut(name=c.name, value=c.value, threshold=c.threshold, passed=c.passed)
                           for c in d.checks])


class RewriteOut(BaseModel):
    method: Literal["as-is", "llm", "entities"] = Field(
        description="as-is: the last message ran as written; llm: the answer model rewrote it from the "
        "conversation; entities: the earlier turns' entities resolved its pronouns or ellipsis.")
    original: str = Field(description="The last user message as sent.")
    resolved: dict[str, str] = Field(
        default_factory=dict, description="With method entities: what was replaced, e.g. {\"he\": \"Jonas Meier\"}.")
    note: str = Field(default="", description="Why the LLM rewrite was not used, when it was tried and failed.")

    @classmethod
    def of(cls, s: Standalone) -> RewriteOut:
        return cls(method=s.method, original=s.original, resolved=dict(s.resolved), note=s.note)


class RetrievalOut(BaseModel):
    """What the stream's first event carries: everything known before the answer starts."""

    question: str = Field(description="The question retrieval ran on: the one sent, or, with a `conversation`, "
                          "the follow-up rewritten to stand alone.")
    rewrite: RewriteOut | None = Field(default=None, description="How `question` came from the one sent; null "
                                       "when no conversation was sent.")
    hits: list[HitOut]
    stages: dict[str, StageOut]
    timings: dict[str, float]
    gate: GateOut
    fusion_weights: dict[str, float] = Field(
        default_factory=dict, description="The RRF weight each signal got for this question (configured weight × "
        "the retriever's confidence: the graph weighs more when the question names a document title).")
    explanations: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="Per signal or query stage, what it did for this question: the graph's "
        "linked entities, BM25's query tokens, and the sub-questions (decompose) or hypothetical passage (hyde) "
        "the LLM wrote.")
    hop: str = Field(default="", description="The second hop's question, when one ran: the described subject "
                     "replaced by the bridge the first passages name (its passages are in `hits`, after the first "
                     "answer.max_passages).")


class UsageOut(BaseModel):
    """What a request used. Token counts are the answer model's own (OpenAI's ``usage``, Gemini's
    ``usage_metadata``); where none was reported (the extractive answerer, a refusal by the gate, a server
    that sends none) they are 0 and ``tokens_reported`` is false, and the retrieval counts say what the
    request did instead."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    tokens_reported: bool = Field(description="Whether the token counts came from the answer model.")
    candidates: dict[str, int] = Field(description="Candidates each retriever list returned, before fusion.")
    passages: int = Field(description="Passages returned after fusion and rerank.")
    passages_answered_from: int = Field(description="Passages given to the answerer (0 when it did not run).")

    @classmethod
    def of(cls, result: PipelineResult, answer: Answer | None, answered_from: int) -> UsageOut:
        used = answer.usage if answer is not None else None
        return cls(
            prompt_tokens=used.prompt_tokens if used else 0, completion_tokens=used.completion_tokens if used else 0,
            total_tokens=used.total_tokens if used else 0, tokens_reported=used is not None,
            candidates=dict(result.hit_counts), passages=len(result.hits), passages_answered_from=answered_from,
        )


class QueryResponse(RetrievalOut):
    answer: AnswerOut | None
    citations: list[CitationOut]
    warnings: list[str]
    usage: UsageOut


class TextDocumentIn(BaseModel):
    model_config = ConfigDict(strict=True)  # JSON's types as the schema states them: `0` is not `false`

    text: UserText = Field(min_length=1)
    title: UserText = Field(default="", max_length=500)
    source: UserText | None = Field(default=None, max_length=2000,
                               description="Stable identity: re-sending the same source replaces the document.")
    metadata: dict[str, Any] = Field(default_factory=dict)


class DocumentOut(BaseModel):
    id: int
    source: str
    title: str
    mime_type: str
    content_hash: str
    chunk_count: int
    metadata: dict[str, Any]
    status: Literal["pending", "indexed", "failed"] = Field(
        description="pending: accepted, not stored whole yet (or the ingest stopped); indexed: searchable; "
        "failed: could not be ingested (see status_reason).")
    status_reason: str = Field(description="Why it failed, or that a newer version failed; empty otherwise.")

    @classmethod
    def of(cls, d: DocumentRecord) -> DocumentOut:
        return cls(id=d.id, source=d.source, title=d.title, mime_type=d.mime_type, content_hash=d.content_hash,
                   chunk_count=d.chunk_count, metadata=dict(d.metadata), status=d.status,
                   status_reason=d.status_reason)


class ChunkOut(BaseModel):
    chunk_id: int = Field(description="The id hits and citations name (a database id).")
    position: int = Field(description="The chunk's place in its document, 0-based: show position + 1 to people.")
    page: int | None
    text: str

    @classmethod
    def of(cls, c: ChunkRecord) -> ChunkOut:
        return cls(chunk_id=c.id, position=c.position, page=c.page, text=c.text)


class DocumentDetail(DocumentOut):
    text: str | None = Field(
        default=None, description="With include=text: the document's text as kgrag stores it, rebuilt from its "
        "chunks in order with the overlap between neighbours kept once (pages, and chunks no overlap joins, "
        "are separated by a blank line). The original file is not kept. Null without include=text.")
    chunks: list[ChunkOut] | None = Field(
        default=None, description="With include=chunks: the chunks from chunk_offset on, in document order, at "
        "most chunk_limit of them (chunk_count says how many there are). Null without include=chunks.")


class AskOut(BaseModel):
    """MCP's ``ask``: the answer and what it cites, without the passages' full text (``search`` has those)."""

    question: str
    answer: AnswerOut | None = Field(description="mode \"refused\" when the documents do not say; the text then "
                                     "names what was missing.")
    citations: list[CitationOut]
    gate: GateOut
    warnings: list[str]
    usage: UsageOut

    @classmethod
    def of(cls, r: QueryResponse) -> AskOut:
        return cls(question=r.question, answer=r.answer, citations=r.citations, gate=r.gate, warnings=r.warnings,
                   usage=r.usage)


class IngestOut(BaseModel):
    outcome: Literal["added", "replaced", "unchanged"]
    document: DocumentOut
    chunks_written: int
    seconds: dict[str, float]


class DocumentList(BaseModel):
    documents: list[DocumentOut]
    limit: int
    offset: int


class JobOut(BaseModel):
    id: str
    kind: str
    state: Literal["queued", "running", "succeeded", "failed"]
    created_at: float
    started_at: float | None
    finished_at: float | None
    result: dict[str, Any] | None
    error: dict[str, Any] | None = Field(default=None, description="A problem document when the job failed.")


class ArtifactOut(BaseModel):
    corpus_version: int = Field(description="The corpus version the artifact was built from (for BM25 with a "
                                            "delta: the delta's, which is what it answers for).")
    sha256: str | None = Field(description="Digest of the published artifact: equal on replicas serving the same one.")
    behind: int = Field(default=0, description="Corpus changes since the version served (0: current). Dense "
                                               "search reads the database, so it is never behind.")
    base_version: int | None = Field(default=None, description="The corpus version of the base (BM25 index or graph) "
                                                               "a delta is served beside.")
    chunks: int | None = Field(default=None, description="BM25: chunks searched (the base's, less those the delta "
                                                         "retires, plus the delta's).")
    delta_version: int | None = Field(default=None, description="The corpus version of the delta served beside the "
                                                                "base (null: none).")
    delta_chunks: int | None = Field(default=None, description="Chunks written since the base, in the delta.")
    hidden_nodes: int | None = Field(default=None, description="Graph: nodes that only documents deleted since the "
                                                               "build supported, hidden from its rankings and views "
                                                               "until the next build (kg.liveness).")
    retired_chunks: int | None = Field(default=None, description="BM25: base chunks the delta retires (deleted or "
                                                                 "replaced): never returned; their words leave at "
                                                                 "the next compaction.")


class GraphBuildOut(BaseModel):
    pending: bool = Field(description="Documents changed since the published graph (added, replaced or deleted): "
                                      "the graph signal does not see the change yet.")
    state: Literal["off", "idle", "scheduled", "building", "waiting"] = Field(
        description="This replica's background graph builder: off (artifacts.background_graph_builds), scheduled "
                    "(starts once uploads pause for artifacts.graph_build_delay), building, waiting (no build is "
                    "due: see reason), idle.")
    reason: str = Field(description="Why the graph is or is not behind, and how it catches up.")
    builds: int = Field(description="Background graph builds this replica has run since it started.")
    last_seconds: float | None = Field(default=None, description="How long the last background build took.")
    last_error: str | None = Field(default=None, description="Why the last background build failed (the loaded "
                                                             "graph serves; the next upload retries).")


class ArtifactsOut(BaseModel):
    database_id: str = Field(description="Stamped into every artifact; a replica refuses any other database's.")
    corpus_version: int
    bm25: ArtifactOut | None = Field(description="The BM25 index this replica serves (null: none published yet).")
    graph: ArtifactOut | None = Field(description="The graph this replica serves (null: none built yet).")
    last_error: str | None = Field(default=None, description="Why the last sync failed (the loaded versions serve).")
    graph_build: GraphBuildOut | None = Field(default=None, description="Whether a graph build is pending and what "
                                                                        "this replica's background builder does about "
                                                                        "it (null: the graph signal is off here).")


class CheckOut(BaseModel):
    name: str
    ok: bool
    detail: str
    fix: str
    required: bool


class ReadyOut(BaseModel):
    ready: bool
    checks: list[CheckOut] | None = Field(
        default=None, description="What was checked, with the fix for a failure: only for a caller with a valid "
        "key once API keys are configured (absent otherwise: they name the database and the model's path).")


class EntityOut(BaseModel):
    key: str = Field(description="Stable id: pass it as `entity` to the neighbourhood route.")
    name: str
    label: str
    degree: int = Field(description="Distinct neighbours.")
    chunks: int = Field(description="Chunks that mention the entity.")
    usefulness: float = Field(description="log(1+degree) × log(chunks in corpus / chunks mentioning it) × label "
                                          "weight (titles up, nationality and language words down).")


class EvidenceOut(BaseModel):
    chunk_id: int
    title: str
    source: str
    sentences: list[str]


class EdgeOut(BaseModel):
    source: str
    target: str
    label: str = Field(description="The relation: a verb phrase its sentence states (\"bought by\") where one "
                       "does, else \"mentions\" (a document names the other) or \"co-occurs\" (named in one sentence).")
    weight: float
    evidence: list[EvidenceOut] = Field(default_factory=list)
    sentence: str | None = Field(None, description="For a document's mention link, the sentence that makes it.")


class EntityList(BaseModel):
    entities: list[EntityOut]


class GraphViewOut(BaseModel):
    nodes: list[EntityOut]
    edges: list[EdgeOut]
    center: str | None = None
    total_neighbours: int = 0
    stats: dict[str, int] = Field(description="The whole graph's size (the view is bounded).")
