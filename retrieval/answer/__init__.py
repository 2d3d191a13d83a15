"""Cited answers from numbered passages: Gemini when configured, an offline extractive answerer otherwise."""

from retrieval.answer.base import (
    REFUSAL_TEXT,
    Answer,
    Answerer,
    AnswerEvent,
    Citation,
    Passage,
    build_prompt,
    complete,
    number_passages,
    refusal,
    resolve_citations,
)
from retrieval.answer.extractive import ExtractiveAnswerer
from retrieval.answer.factory import make_answerer
from retrieval.answer.gemini import GeminiAnswerer, gemini_credentials

__all__ = [
    "REFUSAL_TEXT",
    "Answer",
    "AnswerEvent",
    "Answerer",
    "Citation",
    "ExtractiveAnswerer",
    "GeminiAnswerer",
    "Passage",
    "build_prompt",
    "complete",
    "gemini_credentials",
    "make_answerer",
    "number_passages",
    "refusal",
    "resolve_citations",
]
