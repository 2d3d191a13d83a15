"""``POST /v1/chat/completions`` and ``GET /v1/models``: kgrag as an OpenAI-compatible "model".

Chat clients (Open WebUI, the openai SDK, anything that speaks that wire format) can then ask the
corpus questions. The last user message is the question; it runs the same pipeline, gate and
answerer as ``/v1/query``. The citations appear twice: as a "Sources" list appended to the answer
text (what a plain chat client shows) and as a ``citations`` field beside ``choices`` (for clients
that know kgrag). Earlier turns are not used: retrieval answers one question at a time.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Iterator
from typing import Any, Literal

from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from kgrag.api.deps import Authorized, ResourcesDep
from kgrag.api.openapi import COMMON, errors
from kgrag.api.problems import problem, problem_for
from kgrag.api.schemas import CitationOut, QueryRequest, RewriteOut, UsageOut, UserText
from kgrag.api.service import check_conversation, retrieve, standalone_of, usage_of
from kgrag.core.errors import InvalidInputError, KgragError
from kgrag.retrieval.answer import Answer, Citation
from kgrag.retrieval.answer.grounded import answer_stream, grounded_answer
from kgrag.retrieval.conversation import Turn
from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger("kgrag.api")

MODEL = "kgrag"

router = APIRouter(prefix="/v1", tags=["chat"], dependencies=[Authorized], responses=errors(*COMMON))


class ContentPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: UserText | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    role: str
    content: UserText | list[ContentPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "\n".join(p.text for p in self.content if p.type == "text" and p.text)
        return self.content or ""


class ChatRequest(BaseModel):
    """The OpenAI fields kgrag uses; the rest (temperature, max_tokens, …) are accepted and ignored."""

    model_config = ConfigDict(extra="allow", strict=True)  # JSON's types as the schema states them
    model: UserText = MODEL
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False


class ChatChoiceMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class ChatChoice(BaseModel):
    index: int = 0
    message: ChatChoiceMessage
    finish_reason: Literal["stop"] = "stop"


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[ChatChoice]
    usage: UsageOut
    citations: list[CitationOut] = Field(description="kgrag's extra field: what each [n] in the answer cites.")
    standalone_question: str = Field(description="kgrag's extra field: the question retrieval ran on (the last "
                                     "user message, rewritten to stand alone when it was a follow-up).")
    rewrite: RewriteOut = Field(description="kgrag's extra field: how the standalone question was made.")


class ModelOut(BaseModel):
    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str


class ModelList(BaseModel):
    object: Literal["list"] = "list"
    data: list[ModelOut]


def turns_of(body: ChatRequest) -> list[Turn]:
    """The user and assistant turns with text (system and tool messages say nothing about the corpus)."""
    turns = [Turn("user" if m.role == "user" else "assistant", m.text()) for m in body.messages
             if m.role in ("user", "assistant") and m.text().strip()]
    if not any(t.role == "user" for t in turns):
        raise InvalidInputError("the conversation has no user message with text to answer",
                                fix='end `messages` with {"role": "user", "content": "your question"}')
    return turns


def sources_text(citations: tuple[Citation, ...] | list[Citation]) -> str:
    """The citations as the plain text a chat client shows under the answer."""
    if not citations:
        return ""
    lines = []
    for c in sorted(citations, key=lambda c: c.number):
        page = f", page {c.page}" if c.page is not None else ""
        lines.append(f"[{c.number}] {c.title or c.source} ({c.source}{page})")
    return "\n\nSources:\n" + "\n".join(lines)


@router.get("/models", response_model=ModelList)
def list_models() -> ModelList:
    """What chat clients list to pick from: kgrag answers as one model."""
    return ModelList(data=[ModelOut(id=MODEL, created=0, owned_by="kgrag")])


def _chunk(cid: str, created: int, model: str, delta: dict[str, Any], finish: str | None = None,
           **extra: Any) -> str:
    body = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
    return f"data: {json.dumps(body, ensure_ascii=False, separators=(',', ':'))}\n\n"


@router.post("/chat/completions", response_model=ChatCompletion,
             responses={200: {"content": {"text/event-stream": {}},
                              "description": "With `stream: true`: `chat.completion.chunk` events, then "
                                             "`data: [DONE]`."}, **errors(400)})
def chat_completions(body: ChatRequest, res: ResourcesDep) -> ChatCompletion | StreamingResponse:
    """Answer the last user message from the documents, with citations [n]; OpenAI's wire format. A
    follow-up is first rewritten into the standalone question it stands for (``standalone_question``)."""
    check_conversation(len(body.messages), sum(len(m.text()) for m in body.messages), res.settings.api)
    standalone = standalone_of(turns_of(body), res)
    result, decision = retrieve(QueryRequest(question=standalone.question), res)
    cid = f"chatcmpl-{uuid.uuid4().hex}"
    created = int(time.time())
    model = body.model or MODEL
    max_passages = res.settings.answer.max_passages
    if not body.stream:
        answer = grounded_answer(result, decision, res.answerer, res.settings)
        return ChatCompletion(
            id=cid, created=created, model=model,
            choices=[ChatChoice(message=ChatChoiceMessage(content=answer.text + sources_text(answer.citations)))],
            usage=usage_of(result, decision.verdict, answer, max_passages),
            citations=[CitationOut.of(c) for c in answer.citations],
            standalone_question=standalone.question, rewrite=RewriteOut.of(standalone),
        )

    def events() -> Iterator[str]:
        yield _chunk(cid, created, model, {"role": "assistant", "content": ""})
        answer: Answer | None = None
        try:
            for event in answer_stream(result, decision, res.answerer, res.settings):
                if isinstance(event, Answer):
                    answer = event
                elif event:
                    yield _chunk(cid, created, model, {"content": event})
        except KgragError as exc:
            yield f"data: {json.dumps({'error': problem_for(exc, '/v1/chat/completions')})}\n\n"
            return
        except Exception:
            log.exception("chat answer stream failed")
            yield f"data: {json.dumps({'error': problem(500, 'the answer failed unexpectedly', fix='retry', kind='internal')})}\n\n"  # noqa: E501
            return
        citations = answer.citations if answer is not None else ()
        if citations:
            yield _chunk(cid, created, model, {"content": sources_text(citations)})
        yield _chunk(cid, created, model, {}, "stop",
                     citations=[CitationOut.of(c).model_dump(mode="json") for c in citations],
                     usage=usage_of(result, decision.verdict, answer, max_passages).model_dump(mode="json"),
                     standalone_question=standalone.question,
                     rewrite=RewriteOut.of(standalone).model_dump(mode="json"))
        yield "data: [DONE]\n\n"

    return StreamingResponse(events(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
