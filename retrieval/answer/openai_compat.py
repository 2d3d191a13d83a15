"""Answers from any OpenAI-compatible chat-completions endpoint (Ollama, vLLM, llama.cpp, OpenAI itself).

Through the official ``openai`` client, imported lazily; the client is built once per process and
holds only the endpoint, key and an HTTP pool. Timeouts and retries (429, 5xx, connection errors,
with backoff) are the SDK's own ``timeout`` and ``max_retries`` options, set from AnswerSettings.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from kgrag.core.errors import ConfigError, ModelUnavailableError
from kgrag.core.settings import AnswerSettings
from kgrag.retrieval.answer.base import (
    SYSTEM_INSTRUCTION,
    Answer,
    AnswerEvent,
    Passage,
    Usage,
    build_prompt,
    finish,
    refusal,
)

PLACEHOLDER_KEY = "not-needed"
"""Sent when no key is configured: the SDK insists on one, local servers ignore it."""

TEMPERATURE = 0.2


def openai_configured(settings: AnswerSettings) -> bool:
    """The factory's test for "an OpenAI-compatible backend is configured": a model name is set."""
    return bool(settings.openai_model)


def openai_client(settings: AnswerSettings, environ: Mapping[str, str] | None = None) -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ModelUnavailableError("the openai package is not installed", fix="pip install openai") from exc
    env = os.environ if environ is None else environ
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key is not None else None
    key = key or env.get("OPENAI_API_KEY")
    base_url = settings.openai_base_url or env.get("OPENAI_BASE_URL") or None
    if not key and base_url is None:  # OpenAI's own endpoint with the placeholder key: a 401 after retrieval
        raise ConfigError(
            f"answer model {settings.openai_model or '(unnamed)'} would be asked at OpenAI's endpoint, but no API "
            "key is set",
            fix="set KGRAG_ANSWER__OPENAI_API_KEY (or OPENAI_API_KEY); for a local server (Ollama, vLLM, llama.cpp) "
            "set KGRAG_ANSWER__OPENAI_BASE_URL, e.g. http://127.0.0.1:11434/v1, instead",
        )
    return openai.OpenAI(
        api_key=key or PLACEHOLDER_KEY,
        base_url=base_url,
        timeout=settings.timeout_s,
        max_retries=settings.max_retries,
    )


class OpenAICompatAnswerer:
    def __init__(self, client: Any, model: str) -> None:
        self.client = client
        self.model = model
        self.name = f"openai:{model}"

    def _messages(self, system: str, prompt: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": system}, {"role": "user", "content": prompt}]

    def stream(self, question: str, passages: Sequence[Passage]) -> Iterator[AnswerEvent]:
        parts: list[str] = []
        finish_reason = ""
        usage: Usage | None = None
        try:
            chunks = self.client.chat.completions.create(
                model=self.model, messages=self._messages(SYSTEM_INSTRUCTION, build_prompt(question, passages)),
                temperature=TEMPERATURE, stream=True,
            )
            for chunk in chunks:
                usage = _usage(getattr(chunk, "usage", None)) or usage  # servers that send it on the last chunk
                for choice in chunk.choices or ():
                    delta = choice.delta.content if choice.delta is not None else None
                    if delta:
                        parts.append(delta)
                        yield delta
                    finish_reason = choice.finish_reason or finish_reason
        except Exception as exc:
            raise _model_error(exc, self.model) from exc
        yield self._final("".join(parts), finish_reason, passages, usage)

    def answer(self, question: str, passages: Sequence[Passage]) -> Answer:
        text, finish_reason, usage = self._complete(SYSTEM_INSTRUCTION, build_prompt(question, passages))
        return self._final(text, finish_reason, passages, usage)

    def generate(self, system: str, prompt: str) -> str:
        return self._complete(system, prompt)[0].strip()

    def _complete(self, system: str, prompt: str) -> tuple[str, str, Usage | None]:
        try:
            response = self.client.chat.completions.create(
                model=self.model, messages=self._messages(system, prompt), temperature=TEMPERATURE,
            )
        except Exception as exc:
            raise _model_error(exc, self.model) from exc
        usage = _usage(getattr(response, "usage", None))
        if not response.choices:
            return "", "", usage
        choice = response.choices[0]
        return choice.message.content or "", choice.finish_reason or "", usage

    def _final(self, text: str, finish_reason: str, passages: Sequence[Passage], usage: Usage | None) -> Answer:
        if not text.strip():
            why = f" (finish reason: {finish_reason})" if finish_reason else ""
            return refusal(f"The answer model returned no text{why}.", model=self.name)
        return finish(text, passages, model=self.name, usage=usage)


def _usage(reported: Any) -> Usage | None:
    """The server's own token counts (OpenAI's ``usage`` object), when it sent them."""
    prompt = getattr(reported, "prompt_tokens", None)
    completion = getattr(reported, "completion_tokens", None)
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return Usage(prompt, completion)


def _model_error(exc: Exception, model: str) -> Exception:
    """SDK and transport failures as one error type that says what to do (after the SDK's own retries)."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        if code in (401, 403):
            fix = "check KGRAG_ANSWER__OPENAI_API_KEY (or OPENAI_API_KEY) for this endpoint"
        elif code == 404:
            fix = (f"check KGRAG_ANSWER__OPENAI_MODEL ({model!r} was not found) and that "
                   "KGRAG_ANSWER__OPENAI_BASE_URL ends in /v1")
        elif code == 429:
            fix = "the endpoint is rate-limiting: retry later, or raise KGRAG_ANSWER__MAX_RETRIES"
        elif code == 400:
            fix = "the endpoint refused the request as invalid; check the model name"
        else:
            fix = "the endpoint failed on its side: retry later"
        return ModelUnavailableError(f"the OpenAI-compatible endpoint answered {code}: {_message(exc)}", fix=fix)
    if isinstance(exc, openai.APITimeoutError):
        return ModelUnavailableError(
            f"the OpenAI-compatible endpoint did not answer in time ({model!r})",
            fix="raise KGRAG_ANSWER__TIMEOUT_S, or use a smaller model",
        )
    if isinstance(exc, openai.APIConnectionError):
        return ModelUnavailableError(
            f"cannot reach the OpenAI-compatible endpoint ({exc})",
            fix="check that the server is running and KGRAG_ANSWER__OPENAI_BASE_URL (e.g. "
            "http://127.0.0.1:11434/v1); unset KGRAG_ANSWER__OPENAI_MODEL to use the offline extractive answerer",
        )
    return ModelUnavailableError(f"the OpenAI-compatible answer failed ({type(exc).__name__}: {exc})",
                                 fix="check the endpoint's logs; unset KGRAG_ANSWER__OPENAI_MODEL to answer offline")


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(exc, "message", "") or exc)


def require_model(settings: AnswerSettings) -> str:
    if not settings.openai_model:
        raise ConfigError(
            "answer.backend is 'openai' but no model is named",
            fix="set KGRAG_ANSWER__OPENAI_MODEL (e.g. llama3.1) and KGRAG_ANSWER__OPENAI_BASE_URL "
            "(e.g. http://127.0.0.1:11434/v1 for Ollama)",
        )
    return settings.openai_model
