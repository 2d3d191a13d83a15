"""``POST /v1/query`` and its streaming twin: retrieval, the confidence gate and a cited answer.

Both are plain ``def`` routes, so retrieval and generation run on the threadpool and never
block the event loop; the stream's generator is iterated there too.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from kgrag.api.deps import Authorized, Resources, ResourcesDep
from kgrag.api.openapi import COMMON, errors
from kgrag.api.problems import problem, problem_for
from kgrag.api.schemas import (
    AnswerOut,
    CitationOut,
    GateOut,
    HitOut,
    QueryRequest,
    QueryResponse,
    RetrievalOut,
    RewriteOut,
    StageOut,
    UsageOut,
)
from kgrag.core.errors import InvalidInputError, KgragError
from kgrag.core.settings import Settings
from kgrag.core.text import control_char
from kgrag.retrieval.answer import Answer, TextModel
from kgrag.retrieval.answer.grounded import answer_stream, gate, grounded_answer
from kgrag.retrieval.conversation import Standalone, Turn, standalone_question
from kgrag.retrieval.gate import GateDecision
from kgrag.retrieval.results import PipelineResult

log = logging.getLogger("kgrag.api")

router = APIRouter(prefix="/v1", tags=["query"], dependencies=[Authorized], responses=errors(*COMMON))


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
    if len(body.conversation) + 1 > api.max_messages:
        raise InvalidInputError(f"the conversation has {len(body.conversation) + 1} turns, over the limit of "
                                f"{api.max_messages}", fix="send only the recent turns, or raise "
                                "KGRAG_API__MAX_MESSAGES")
    chars = len(body.question) + sum(len(t.text) for t in body.conversation)
    if body.conversation and chars > api.max_chat_chars:
        raise InvalidInputError(f"the conversation holds {chars} characters of text, over the limit of "
                                f"{api.max_chat_chars}", fix="send only the recent turns, or raise "
                                "KGRAG_API__MAX_CHAT_CHARS")
    if body.top_k is not None and body.top_k > api.max_top_k:
        raise InvalidInputError(f"top_k {body.top_k} is over the limit of {api.max_top_k}",
                                fix=f"ask for at most {api.max_top_k} passages (api.max_top_k)")


def standalone_request(body: QueryRequest, res: Resources) -> tuple[QueryRequest, Standalone | None]:
    """With earlier turns, the question rewritten to stand alone (the chat route's way); else as sent."""
    if not body.conversation:
        return body, None
    check_limits(body, res.settings)
    turns = [Turn(t.role, t.text) for t in body.conversation if t.text.strip()]
    llm = res.answerer if isinstance(res.answerer, TextModel) else None
    standalone = standalone_question([*turns, Turn("user", body.question)], nlp=res.runtime.spacy(), llm=llm)
    return body.model_copy(update={"question": standalone.question, "conversation": []}), standalone


def _retrieve(body: QueryRequest, res: Resources) -> tuple[PipelineResult, GateDecision]:
    check_limits(body, res.settings)
    result = res.pipeline.run(body.question, signals=body.signals, top_k=body.top_k,
                              filters=body.filters.to_core(), rerank=body.rerank)
    # the support check reads the passages with spaCy: only worth it when an answer is wanted
    return result, gate(result, res.settings, res.runtime.spacy() if body.answer else None)


def _retrieval_out(result: PipelineResult, decision: GateDecision, answer_stage: StageOut,
                   standalone: Standalone | None = None) -> RetrievalOut:
    stages = {name: StageOut.of(s) for name, s in result.statuses.items()}
    stages["gate"] = StageOut(state="ran", reason=decision.reason)
    stages["answer"] = answer_stage
    return RetrievalOut(question=result.question,
                        rewrite=RewriteOut.of(standalone) if standalone is not None else None,
                        hits=[HitOut.of(h) for h in result.hits], stages=stages,
                        timings=dict(result.timings), gate=GateOut.of(decision),
                        fusion_weights=dict(result.fusion_weights),
                        explanations={k: dict(v) for k, v in result.explanations.items()})


def _answer_stage(wanted: bool, decision: GateDecision) -> StageOut:
    if not wanted:
        return StageOut(state="skipped", reason="answers turned off for this query (answer=false)")
    if decision.verdict == "refuse":
        return StageOut(state="skipped", reason=f"refused by the confidence gate: {decision.reason}")
    return StageOut(state="ran")


def _response(retrieval: RetrievalOut, result: PipelineResult, answer: Answer | None, answer_seconds: float,
              max_passages: int) -> QueryResponse:
    timings = dict(retrieval.timings)
    if answer is not None:
        timings["answer"] = answer_seconds
    warnings = list(result.warnings)
    if answer is not None and answer.warning:
        warnings.append(f"weak evidence: {answer.warning}")
    if answer is not None and answer.unresolved:
        warnings.append(answer.unresolved_note)
    return QueryResponse(
        **retrieval.model_dump(exclude={"timings"}), timings=timings,
        answer=AnswerOut.of(answer) if answer is not None else None,
        citations=[CitationOut.of(c) for c in answer.citations] if answer is not None else [],
        warnings=warnings, usage=usage_of(result, retrieval.gate.verdict, answer, max_passages),
    )


def usage_of(result: PipelineResult, verdict: str, answer: Answer | None, max_passages: int) -> UsageOut:
    """The response's ``usage``: the answerer saw no passage when there was no answer or the gate refused."""
    answered_from = 0 if answer is None or verdict == "refuse" else min(len(result.hits), max_passages)
    return UsageOut.of(result, answer, answered_from)


@router.post("/query", response_model=QueryResponse, responses=errors(400))
def query(body: QueryRequest, res: ResourcesDep) -> QueryResponse:
    """Retrieve passages and, unless ``answer`` is false, answer from them with citations [n]. With a
    ``conversation``, a follow-up is first rewritten into the standalone question it stands for."""
    body, standalone = standalone_request(body, res)
    result, decision = _retrieve(body, res)
    retrieval = _retrieval_out(result, decision, _answer_stage(body.answer, decision), standalone)
    answer: Answer | None = None
    t0 = time.perf_counter()
    if body.answer:
        answer = grounded_answer(result, decision, res.answerer, res.settings)
    return _response(retrieval, result, answer, time.perf_counter() - t0, res.settings.answer.max_passages)


def sse(event: str, data: object) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"


@router.post("/query/stream", response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "Server-sent events: `hits`, then `token`s, then `done` "
                                             "(or `error`)."}, **errors(400)})
def query_stream(body: QueryRequest, res: ResourcesDep) -> StreamingResponse:
    """Retrieval runs before the response starts (so bad input is still a plain problem response);
    then the stream sends ``hits``, the answer as ``token`` events, and a final ``done``."""
    body, standalone = standalone_request(body, res)
    result, decision = _retrieve(body, res)
    retrieval = _retrieval_out(result, decision, _answer_stage(body.answer, decision), standalone)

    def events() -> Iterator[str]:
        yield sse("hits", retrieval.model_dump(mode="json"))
        answer: Answer | None = None
        t0 = time.perf_counter()
        if body.answer:
            try:
                for event in answer_stream(result, decision, res.answerer, res.settings):
                    if isinstance(event, Answer):
                        answer = event
                    else:
                        yield sse("token", {"text": event})
            except KgragError as exc:
                yield sse("error", problem_for(exc, "/v1/query/stream"))
                return
            except Exception:
                log.exception("answer stream failed")
                yield sse("error", problem(500, "the answer failed unexpectedly", fix="retry; if it persists, "
                                           "report it with the server log", kind="internal"))
                return
        yield sse("done", _response(retrieval, result, answer, time.perf_counter() - t0,
                                    res.settings.answer.max_passages).model_dump(mode="json"))

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
