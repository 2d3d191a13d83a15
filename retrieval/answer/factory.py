"""One factory picks the answerer from settings: Gemini when credentials exist, else extractive."""

from __future__ import annotations

from collections.abc import Mapping

from core.errors import ConfigError
from core.models import Embedder
from core.settings import AnswerSettings
from retrieval.answer.base import Answerer
from retrieval.answer.extractive import ExtractiveAnswerer
from retrieval.answer.gemini import GeminiAnswerer, gemini_client, gemini_credentials


def make_answerer(
    settings: AnswerSettings, *, embedder: Embedder | None = None, environ: Mapping[str, str] | None = None
) -> Answerer:
    """``backend="auto"`` uses Gemini when a key (or Vertex AI project) is configured, else the extractive one."""
    backend = settings.backend
    if backend == "auto":
        backend = "gemini" if gemini_credentials(settings, environ) else "extractive"
    if backend == "extractive":
        return ExtractiveAnswerer(embedder)
    if gemini_credentials(settings, environ) is None:
        raise ConfigError(
            "answer.backend is 'gemini' but no Gemini credentials are configured",
            fix="set GEMINI_API_KEY (or KGRAG_ANSWER__GEMINI_API_KEY), or Vertex AI's GOOGLE_GENAI_USE_VERTEXAI, "
            "GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION; or set KGRAG_ANSWER__BACKEND=auto",
        )
    return GeminiAnswerer(gemini_client(settings), settings.gemini_model)
