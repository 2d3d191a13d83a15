"""``POST /v1/query`` and its streaming twin: retrieval, the confidence gate and a cited answer.

The work is api/service.py's (MCP's ``search`` and ``ask`` run the same); this adds the stream.

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
from kgrag.api.deps import Authorized, ResourcesDep
from kgrag.api.openapi import COMMON, errors
from kgrag.api.problems import problem, problem_for
from kgrag.api.schemas import QueryRequest, QueryResponse
from kgrag.api.service import answer_stage, query_response, retrieval_out, retrieve, run_query, standalone_request
from kgrag.core.errors import KgragError
from kgrag.retrieval.answer import Answer
from kgrag.retrieval.answer.grounded import answer_stream

log = logging.getLogger("kgrag.api")

router = APIRouter(prefix="/v1", tags=["query"], dependencies=[Authorized], responses=errors(*COMMON))


@router.post("/query", response_model=QueryResponse, responses=errors(400))
def query(body: QueryRequest, res: ResourcesDep) -> QueryResponse:
    """Retrieve passages and, unless ``answer`` is false, answer from them with citations [n]. With a
    ``conversation``, a follow-up is first rewritten into the standalone question it stands for."""
    return run_query(body, res)


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
    result, decision = retrieve(body, res)
    retrieval = retrieval_out(result, decision, answer_stage(body.answer, decision), standalone)

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
        yield sse("done", query_response(retrieval, result, answer, time.perf_counter() - t0,
                                         res.settings.answer.max_passages).model_dump(mode="json"))

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
