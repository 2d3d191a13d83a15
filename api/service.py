"""What the REST routes and the MCP tools both do, written once.

A route and a tool that answer the same request must not drift apart (MCP's ``search`` is checked
equal to ``POST /v1/query``), so each operation lives here: it takes the process's Resources and
returns the wire model from api/schemas.py. The routes add HTTP (status codes, streaming, query
parameters); api/mcp_server.py adds MCP's tool descriptions. Neither holds logic of its own.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from kgrag.api.deps import Resources
from kgrag.api.schemas import (
    AnswerOut,
    ChunkOut,
    CitationOut,
    DocumentDetail,
    DocumentList,
    DocumentOut,
    EdgeOut,
    EntityOut,
    EvidenceOut,
    GateOut,
    GraphViewOut,
    HitOut,
    QueryRequest,
    QueryResponse,
    RetrievalOut,
    RewriteOut,
    StageOut,
    UsageOut,
)
from kgrag.core.errors import GraphMissingError, InvalidInputError
from kgrag.core.settings import ApiSettings, Settings
from kgrag.core.text import control_char
from kgrag.core.types import DocumentStatus
from kgrag.ingest.chunking import join_chunks
from kgrag.kg import browse
from kgrag.kg.holder import graph_holder
from kgrag.kg.liveness import Liveness, current_liveness
from kgrag.kg.serving import LoadedGraph
from kgrag.retrieval.answer import Answer, TextModel
from kgrag.retrieval.answer.grounded import gate, grounded_answer
from kgrag.retrieval.answer.hop import follow_bridge
from kgrag.retrieval.conversation import Standalone, Turn, standalone_question
from kgrag.retrieval.gate import GateDecision
from kgrag.retrieval.results import PipelineResult

log = logging.getLogger("kgrag.api")

# -- query -------------------------------------------------------------------------------------------------


def check_limits(body: QueryRequest, settings: Settings) -> None:
    api = settings.api
    if len(body.question) > api.max_question_chars:
        raise InvalidInputError(f"the question has {len(body.question)} characters, over the limit of "
                                f"{api.max_question_chars}", fix="shorten the question (api.max_question_chars)")
    bad = control_char(body.question, allow_whitespace=True)
    if bad is not None:
        raise InvalidInputError(f"the question contains a control character (U+{ord(bad):04X})",
                                fix="remove control characters from the question (tab and newline are fine)")
    f = body.filters
    count = len(f.document_ids) + len(f.sources) + len(f.metadata)
    if count > api.max_filters:
        raise InvalidInputError(f"the query has {count} filters, over the limit of {api.max_filters}",
                                fix="filter on fewer values (e.g. one metadata key instead of many document ids), "
                                "or raise KGRAG_API__MAX_FILTERS")
    if body.conversation:
        check_conversation(len(body.conversation) + 1,
                           len(body.question) + sum(len(t.text) for t in body.conversation), api)
    if body.top_k is not None and body.top_k > api.max_top_k:
        raise InvalidInputError(f"top_k {body.top_k} is over the limit of {api.max_top_k}",
                                fix=f"ask for at most {api.max_top_k} passages (api.max_top_k)")


def check_conversation(messages: int, chars: int, api: ApiSettings) -> None:
    """Every message is parsed and held while the request runs (chat's messages, a query's conversation):
    the count and the total text are bounded before anything reaches the retrievers or the answerer."""
    if messages > api.max_messages:
        raise InvalidInputError(f"the conversation has {messages} messages, over the limit of "
                                f"{api.max_messages}", fix="send only the recent turns (kgrag answers the last user "
                                "message), or raise KGRAG_API__MAX_MESSAGES")
    if chars > api.max_chat_chars:
        raise InvalidInputError(f"the messages hold {chars} characters of text, over the limit of "
                                f"{api.max_chat_chars}", fix="send only the recent turns, or raise "
                                "KGRAG_API__MAX_CHAT_CHARS")


def standalone_of(turns: list[Turn], res: Resources) -> Standalone:
    """The last user turn as a standalone question: rewritten by the answer model when there is one, else by
    the earlier turns' entities (retrieval.conversation)."""
    llm = res.answerer if isinstance(res.answerer, TextModel) else None
    return standalone_question(turns, nlp=res.runtime.spacy(), llm=llm)


def standalone_request(body: QueryRequest, res: Resources) -> tuple[QueryRequest, Standalone | None]:
    """With earlier turns, the question rewritten to stand alone (the chat route's way); else as sent."""
    if not body.conversation:
        return body, None
    check_limits(body, res.settings)
    turns = [Turn(t.role, t.text) for t in body.conversation if t.text.strip()]
    standalone = standalone_of([*turns, Turn("user", body.question)], res)
    return body.model_copy(update={"question": standalone.question, "conversation": []}), standalone


def retrieve(body: QueryRequest, res: Resources) -> tuple[PipelineResult, GateDecision]:
    check_limits(body, res.settings)
    def run(question: str) -> PipelineResult:
        return res.pipeline.run(question, signals=body.signals, top_k=body.top_k, filters=body.filters.to_core(),
                                rerank=body.rerank)

    result = run(body.question)
    if not body.answer:  # the second hop and the support check read the passages with spaCy: only for answers
        return result, gate(result, res.settings)
    nlp = res.runtime.spacy()
    result = follow_bridge(result, run, nlp, res.settings)
    return result, gate(result, res.settings, nlp)


def retrieval_out(result: PipelineResult, decision: GateDecision, answer_stage: StageOut,
                  standalone: Standalone | None = None) -> RetrievalOut:
    stages = {name: StageOut.of(s) for name, s in result.statuses.items()}
    stages["gate"] = StageOut(state="ran", reason=decision.reason)
    stages["answer"] = answer_stage
    return RetrievalOut(question=result.question,
                        rewrite=RewriteOut.of(standalone) if standalone is not None else None,
                        hits=[HitOut.of(h) for h in result.hits], stages=stages,
                        timings=dict(result.timings), gate=GateOut.of(decision),
                        fusion_weights=dict(result.fusion_weights),
                        explanations={k: dict(v) for k, v in result.explanations.items()}, hop=result.hop)


def answer_stage(wanted: bool, decision: GateDecision) -> StageOut:
    if not wanted:
        return StageOut(state="skipped", reason="answers turned off for this query (answer=false)")
    if decision.verdict == "refuse":
        return StageOut(state="skipped", reason=f"refused by the confidence gate: {decision.reason}")
    return StageOut(state="ran")


def usage_of(result: PipelineResult, verdict: str, answer: Answer | None, max_passages: int) -> UsageOut:
    """The response's ``usage``: the answerer saw no passage when there was no answer or the gate refused."""
    answered_from = 0 if answer is None or verdict == "refuse" else min(len(result.hits), max_passages)
    return UsageOut.of(result, answer, answered_from)


def query_response(retrieval: RetrievalOut, result: PipelineResult, answer: Answer | None, answer_seconds: float,
                   max_passages: int) -> QueryResponse:
    timings = dict(retrieval.timings)
    if answer is not None:
        timings["answer"] = answer_seconds
    warnings = list(result.warnings)
    if answer is not None and answer.warning:
        warnings.append(f"weak evidence: {answer.warning}")
    if answer is not None and answer.unresolved:
        warnings.append(answer.unresolved_note)
    if answer is not None and answer.unsupported:
        warnings.append(answer.unsupported_note)
    return QueryResponse(
        **retrieval.model_dump(exclude={"timings"}), timings=timings,
        answer=AnswerOut.of(answer) if answer is not None else None,
        citations=[CitationOut.of(c) for c in answer.citations] if answer is not None else [],
        warnings=warnings, usage=usage_of(result, retrieval.gate.verdict, answer, max_passages),
    )


def run_query(body: QueryRequest, res: Resources) -> QueryResponse:
    """``POST /v1/query`` and MCP's ``search`` (answer off) and ``ask`` (answer on). With a ``conversation``,
    a follow-up is first rewritten into the standalone question it stands for."""
    body, standalone = standalone_request(body, res)
    result, decision = retrieve(body, res)
    retrieval = retrieval_out(result, decision, answer_stage(body.answer, decision), standalone)
    answer: Answer | None = None
    t0 = time.perf_counter()
    if body.answer:
        answer = grounded_answer(result, decision, res.answerer, res.settings)
    return query_response(retrieval, result, answer, time.perf_counter() - t0, res.settings.answer.max_passages)


# -- documents ---------------------------------------------------------------------------------------------

MAX_CHUNK_PAGE = 1000
"""Most chunks one document request returns; a long document is read a page at a time with chunk_offset."""


def list_documents(res: Resources, *, limit: int = 100, offset: int = 0,
                   status: DocumentStatus | None = None) -> DocumentList:
    docs = res.runtime.store.list_documents(limit=limit, offset=offset, status=status)
    return DocumentList(documents=[DocumentOut.of(d) for d in docs], limit=limit, offset=offset)


def document_detail(res: Resources, document_id: int, *, text: bool = False, chunks: bool = False,
                    chunk_offset: int = 0, chunk_limit: int = 100) -> DocumentDetail:
    """The document's record, and on request its text and a page of its chunks. The text is rebuilt from
    the chunks (the original file is not kept), so it is exactly what retrieval searches."""
    store = res.runtime.store
    record = DocumentOut.of(store.document(document_id))
    body = page = None
    if text:
        every = store.document_chunks(document_id)
        body = join_chunks([(c.text, c.page) for c in every])
        if chunks:
            page = every[chunk_offset: chunk_offset + chunk_limit]
    if chunks and page is None:
        page = store.document_chunks(document_id, offset=chunk_offset, limit=chunk_limit)
    return DocumentDetail(**record.model_dump(), text=body,
                          chunks=[ChunkOut.of(c) for c in page] if page is not None else None)


# -- graph views -------------------------------------------------------------------------------------------


def preload_graph(res: Resources) -> None:
    """Load the graph file in the background at startup: at 30k entities that takes seconds, which
    would otherwise be the first Graph page's (or neighbourhood tool's) wait. A failure here is
    reported by the views instead."""
    holder = graph_holder(res.runtime)
    if not holder.path.exists():
        return

    def load() -> None:
        try:
            holder.current()
        except Exception:
            log.warning("preloading the graph for browsing failed; the graph views will report why", exc_info=True)

    threading.Thread(target=load, name="kgrag-graph-preload", daemon=True).start()


def loaded_graph(res: Resources) -> LoadedGraph:
    """The runtime's graph, the one the query pipeline and the sync use (one copy in memory)."""
    graph = graph_holder(res.runtime).current()
    if graph is None:
        raise GraphMissingError("no graph has been built yet",
                                fix="start a build with POST /v1/graph/build (or `kgrag graph build`), then retry")
    return graph


def live(graph: LoadedGraph, res: Resources) -> Liveness | None:
    """What of ``graph`` is still stored, for the views to hide the rest (kg.liveness.current_liveness)."""
    store = res.runtime.store
    return current_liveness(graph, store.corpus_state(), store.gone_chunk_ids)


def entity_out(e: browse.EntityView) -> EntityOut:
    return EntityOut(key=e.key, name=e.name, label=e.label, degree=e.degree, chunks=e.chunks, usefulness=e.usefulness)


ChunkTexts = Callable[[list[int]], dict[int, tuple[str, str, str]]]
"""Chunk ids → (title, source, text): GraphStore.chunk_texts, or anything that answers the same."""


GENERIC_RELATIONS = ("mentions", "co-occurs")
"""Edge labels that say only that two things are near each other: a sentence behind the edge says more."""


def relation_labels(graph: LoadedGraph, view: browse.GraphView, parse: Callable[[], Any]) -> dict[int, str]:
    """Edge index → the relation its sentence states ("bought by"), for the view's generic edges that have a
    sentence (documents' mention links). Each phrase is read once per loaded graph; ``parse`` (the spaCy
    pipeline's loader) is called only when some edge needs reading."""
    cache: dict[tuple[str, str, str], str] = graph.derived("relation-phrases", lambda _: {})
    names = {n.key: n.name for n in view.nodes}
    out = {}
    for i, e in enumerate(view.edges):
        if not e.sentence or e.label not in GENERIC_RELATIONS:
            continue
        key = (e.sentence, names[e.target], names[e.source])
        if key not in cache:
            cache[key] = browse.relation_phrase(parse(), e.sentence, [key[1], key[2]])
        if cache[key]:
            out[i] = cache[key]
    return out


def view_out(graph: LoadedGraph, view: browse.GraphView, chunk_texts: ChunkTexts,
             evidence_per_edge: int = browse.EVIDENCE_PER_EDGE, *,
             parse: Callable[[], Any] | None = None) -> GraphViewOut:
    """A view with the sentences behind each of its evidence-carrying edges (also used by the HTML export).
    ``parse``: a spaCy pipeline's loader, to label mention links by the relation their sentence states."""
    labels = relation_labels(graph, view, parse) if parse is not None else {}
    wanted = sorted({c for e in view.edges for c in e.evidence_chunks[:evidence_per_edge]})
    texts = chunk_texts(wanted) if wanted else {}
    names = {n.key: n.name for n in view.nodes}
    edges = []
    for i, e in enumerate(view.edges):
        evidence = [EvidenceOut(chunk_id=c, title=texts[c][0], source=texts[c][1],
                                sentences=browse.evidence_sentences(texts[c][2], [names[e.source], names[e.target]]))
                    for c in e.evidence_chunks[:evidence_per_edge] if c in texts]
        edges.append(EdgeOut(source=e.source, target=e.target, label=labels.get(i, e.label), weight=e.weight,
                             evidence=evidence, sentence=e.sentence or None))
    return GraphViewOut(nodes=[entity_out(n) for n in view.nodes], edges=edges, center=view.center,
                        total_neighbours=view.total_neighbours, stats=browse.graph_stats(graph))


def live_view_out(graph: LoadedGraph, view: browse.GraphView, res: Resources) -> GraphViewOut:
    from kgrag.kg.store import GraphStore

    return view_out(graph, view, GraphStore(res.runtime.db).chunk_texts, parse=res.runtime.spacy)


def search_entities(res: Resources, q: str, limit: int) -> list[EntityOut]:
    graph = loaded_graph(res)
    return [entity_out(e) for e in browse.search(graph, q, limit, live(graph, res))]


def neighbourhood(res: Resources, entity: str, limit: int) -> GraphViewOut:
    """``GET /v1/graph/neighbourhood`` and MCP's ``graph_neighbourhood``."""
    graph = loaded_graph(res)
    return live_view_out(graph, browse.neighbourhood(graph, entity, limit, live(graph, res)), res)


def overview(res: Resources, limit: int) -> GraphViewOut:
    graph = loaded_graph(res)
    return live_view_out(graph, browse.overview(graph, limit, live(graph, res)), res)
