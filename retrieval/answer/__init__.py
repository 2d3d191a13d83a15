"""Cited answers from numbered passages: Gemini or an OpenAI-compatible endpoint when configured, an offline
extractive answerer otherwise."""

from kgrag.retrieval.answer.base import (
    REFUSAL_TEXT,
    Answer,
    Answerer,
    AnswerEvent,
    Citation,
    Passage,
    TextModel,
    build_prompt,
    complete,
    number_passages,
    refusal,
    resolve_citations,
    strip_unresolved,
)
from kgrag.retrieval.answer.extractive import ExtractiveAnswerer
from kgrag.retrieval.answer.factory import answerer_for, make_answerer, make_text_model, resolve_backend
from kgrag.retrieval.answer.gemini import GeminiAnswerer, gemini_credentials
from kgrag.retrieval.answer.openai_compat import OpenAICompatAnswerer

__all__ = [
    "REFUSAL_TEXT",
    "Answer",
    "AnswerEvent",
    "Answerer",
    "Citation",
    "ExtractiveAnswerer",
    "GeminiAnswerer",
    "OpenAICompatAnswerer",
    "Passage",
    "TextModel",
    "answerer_for",
    "build_prompt",
    "complete",
    "gemini_credentials",
    "make_answerer",
    "make_text_model",
    "number_passages",
    "refusal",
    "resolve_backend",
    "resolve_citations",
    "strip_unresolved",
]
