"""Every error the API returns is an RFC 9457 problem document with a ``fix``, mapped here in one place.

KgragError already carries its HTTP status and the next step, so the mapping is mechanical;
anything else is a bug, logged with its traceback on the server and answered with a bare 500.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from kgrag.core.errors import KgragError
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("kgrag.api")

PROBLEM_JSON = "application/problem+json"
TYPE_PREFIX = "urn:kgrag:problem:"


class AuthError(KgragError):
    """A missing or wrong API key."""

    status_code = 401


class RequestTooLargeError(KgragError):
    status_code = 413


_TITLES = {
    400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found", 405: "Method not allowed",
    409: "Conflict", 413: "Content too large", 415: "Unsupported media type", 422: "Invalid input",
    500: "Internal server error", 502: "Bad gateway", 503: "Service unavailable",
}


def title(status: int) -> str:
    return _TITLES.get(status, "Error")


def _slug(name: str) -> str:
    name = name.removesuffix("Error") or name
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def problem(status: int, detail: str, *, fix: str | None, kind: str, instance: str | None = None,
            **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + kind, "title": title(status), "status": status,
        "detail": detail, "fix": fix or "",
    }
    if instance:
        body["instance"] = instance
    body.update(extra)
    return body


def problem_for(exc: KgragError, instance: str | None = None) -> dict[str, Any]:
    return problem(exc.status_code, exc.message, fix=exc.fix, kind=_slug(type(exc).__name__), instance=instance,
                   **exc.details)


OPENAI_PATHS = ("/v1/chat/completions", "/v1/models")
"""Routes an OpenAI client calls: their errors also carry OpenAI's ``{"error": {"message", ...}}`` member."""


def openai_error(body: dict[str, Any]) -> dict[str, Any]:
    """The problem as OpenAI's error object. The openai client reads only ``error.message``: without it a wrong
    key showed "Error code: 401" and nothing of what to do (issue 46)."""
    detail = str(body["detail"]).rstrip(".")
    message = f"{detail}. Fix: {body['fix']}" if body.get("fix") else detail
    return {"message": message, "type": body["type"].removeprefix(TYPE_PREFIX), "param": None, "code": body["status"]}


def problem_response(body: dict[str, Any], headers: dict[str, str] | None = None,
                     path: str | None = None) -> JSONResponse:
    """The problem document; on an OpenAI-compatible route it also holds ``error`` (an RFC 9457 extension
    member, so problem readers are unaffected)."""
    if path is not None and path.rstrip("/") in OPENAI_PATHS:
        body = {**body, "error": openai_error(body)}
    return JSONResponse(body, status_code=body["status"], media_type=PROBLEM_JSON, headers=headers)


async def _kgrag_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, KgragError)
    headers = {"WWW-Authenticate": 'Bearer realm="kgrag"'} if isinstance(exc, AuthError) else {}
    if exc.retry_after_s is not None:
        headers["Retry-After"] = str(exc.retry_after_s)
    if exc.status_code >= 500:
        log.warning("%s %s failed: %s", request.method, request.url.path, exc)
    return problem_response(problem_for(exc, request.url.path), headers or None, request.url.path)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    # Only where and what: the offending input is not echoed back (it may be large or private).
    errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
    detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors) or "invalid request"
    return problem_response(problem(422, detail, fix="correct the request fields named in `errors` "
                                    "(the schema is at /docs)", kind="validation", instance=request.url.path,
                                    errors=errors), path=request.url.path)


def allowed_methods(request: Request) -> list[str]:
    """The methods the OpenAPI schema lists for this path. Starlette's 405 names only the route that
    matched first (one route per method here), so its Allow header would leave the others out."""
    for template, operations in request.app.openapi().get("paths", {}).items():
        pattern = "".join("[^/]+" if part.startswith("{") else re.escape(part)
                          for part in re.split(r"(\{[^}]+\})", template))
        if re.fullmatch(pattern, request.url.path):
            return sorted(method.upper() for method in operations)
    return []


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    fixes = {404: "check the path; the API is described at /docs", 405: "check the HTTP method at /docs"}
    detail = exc.detail if isinstance(exc.detail, str) else _TITLES.get(exc.status_code, "error")
    headers = dict(exc.headers or {})
    if exc.status_code == 405 and (allowed := allowed_methods(request)):
        headers["Allow"] = ", ".join(allowed)
    return problem_response(problem(exc.status_code, detail, fix=fixes.get(exc.status_code, ""), kind="http",
                                    instance=request.url.path), headers, request.url.path)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    log.exception("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return problem_response(problem(500, "the server hit an unexpected error", fix="retry; if it persists, "
                                    "report it with the server log", kind="internal", instance=request.url.path),
                            path=request.url.path)


def install(app: FastAPI) -> None:
    app.add_exception_handler(KgragError, _kgrag_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
