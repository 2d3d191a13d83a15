"""One factory picks the answerer from settings: Gemini, an OpenAI-compatible endpoint, or extractive.

``backend="auto"`` prefers Gemini when its credentials exist (the default model), then an
OpenAI-compatible endpoint when ``answer.openai_model`` is set, and otherwise the offline
extractive answerer, so a fresh install answers with no key and no network.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from kgrag.core.errors import ConfigError
from kgrag.core.models import Embedder
from kgrag.core.settings import AnswerSettings
from kgrag.retrieval.answer.base import Answerer, TextModel
from kgrag.retrieval.answer.extractive import ExtractiveAnswerer
from kgrag.retrieval.answer.gemini import GeminiAnswerer, gemini_client, gemini_credentials
from kgrag.retrieval.answer.openai_compat import OpenAICompatAnswerer, openai_client, openai_configured, require_model

Backend = Literal["gemini", "openai", "extractive"]


def resolve_backend(settings: AnswerSettings, environ: Mapping[str, str] | None = None) -> Backend:
    if settings.backend != "auto":
        return settings.backend
    if gemini_credentials(settings, environ):
        return "gemini"
    return "openai" if openai_configured(settings) else "extractive"


def make_answerer(
    settings: AnswerSettings, *, embedder: Embedder | None = None, nlp: Any = None,
    environ: Mapping[str, str] | None = None,
) -> Answerer:
    """``nlp``: the process's spaCy pipeline, needed only by the extractive answerer (its sentence splitter)."""
    backend = resolve_backend(settings, environ)
    if backend == "extractive":
        if nlp is None:
            raise ValueError("the extractive answerer needs the spaCy pipeline: pass nlp=rt.spacy()")
        return ExtractiveAnswerer(embedder, nlp)
    model = _generative(settings, environ)
    if model is None:  # backend forced to gemini without credentials
        raise ConfigError(
            "answer.backend is 'gemini' but no Gemini credentials are configured",
            fix="set GEMINI_API_KEY (or KGRAG_ANSWER__GEMINI_API_KEY), or Vertex AI's GOOGLE_GENAI_USE_VERTEXAI, "
            "GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION; or set KGRAG_ANSWER__BACKEND=auto",
        )
    return model


def make_text_model(settings: AnswerSettings, *, environ: Mapping[str, str] | None = None) -> TextModel | None:
    """The configured LLM (for answers and the query stages), or None when only the extractive one is."""
    return _generative(settings, environ)


def _generative(settings: AnswerSettings, environ: Mapping[str, str] | None
                ) -> GeminiAnswerer | OpenAICompatAnswerer | None:
    backend = resolve_backend(settings, environ)
    if backend == "openai":
        model = require_model(settings)  # no model is the first thing to fix, before any key
        return OpenAICompatAnswerer(openai_client(settings, environ), model)
    if backend == "gemini" and gemini_credentials(settings, environ) is not None:
        return GeminiAnswerer(gemini_client(settings), settings.gemini_model)
    return None


def answerer_for(settings: AnswerSettings, *, embedder: Embedder | None, spacy: Callable[[], Any],
                 environ: Mapping[str, str] | None = None) -> Answerer:
    """What the API, the CLI and the eval call: ``spacy`` (the runtime's, shared with the graph's linker)
    is called, so spaCy loads, only when the extractive answerer is the one that will run."""
    nlp = None
    if resolve_backend(settings, environ) == "extractive":
        nlp = spacy()
    return make_answerer(settings, embedder=embedder, nlp=nlp, environ=environ)
