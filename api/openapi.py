"""The OpenAPI schema as the server really answers: every problem status a route can give, as
application/problem+json, and the bearer scheme only where keys are configured.

Generated clients and API gateways are built from /openapi.json, so a status or media type missing
there is a response they cannot handle. FastAPI documents what a route returns on success and its
own 422 (as application/json, which kgrag never sends); the error statuses come from
core.errors and api.problems, so each router and route lists its own here, through ``errors``. Every
route that takes the workspace header also answers 403 and 404 for it, added here once.
tests/test_api_fuzz.py runs schemathesis with the conformance checks to hold the two together.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from kgrag.api.deps import WORKSPACE_HEADER
from kgrag.api.problems import PROBLEM_JSON, title
from kgrag.core.settings import Settings
from pydantic import BaseModel, ConfigDict, Field

PROBLEM_REF = "#/components/schemas/Problem"

COMMON = (401, 413, 422, 500, 503)
"""What any /v1 route can answer: a missing or wrong key (when keys are configured), a body over the
limit (BodyLimitMiddleware), invalid input, a bug, the database unavailable."""


class Problem(BaseModel):
    """An RFC 9457 problem document (api/problems.py makes every one)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(description="`urn:kgrag:problem:<kind>`, stable per kind of problem.")
    title: str
    status: int
    detail: str = Field(description="What went wrong.")
    fix: str = Field(description="What to do next.")
    instance: str | None = Field(default=None, description="The request path.")
    errors: list[dict[str, Any]] | None = Field(default=None, description="422: each invalid field and why.")


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """``responses=`` entries for these problem statuses (a router's, or a route's own)."""
    return {status: {"description": title(status),
                     "content": {PROBLEM_JSON: {"schema": {"$ref": PROBLEM_REF}}}} for status in statuses}


def install(app: FastAPI, settings: Settings) -> None:
    """Replace ``app.openapi`` with one that adds the Problem schema and, when no API key is configured,
    drops the bearer requirement (the API is open then: a client that sends no key is right)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description,
                                 routes=app.routes)
            components = schema.setdefault("components", {})
            components.setdefault("schemas", {})["Problem"] = Problem.model_json_schema(
                ref_template="#/components/schemas/{model}")
            for path in schema.get("paths", {}).values():
                for operation in path.values():
                    if any(p.get("name") == WORKSPACE_HEADER for p in operation.get("parameters", [])):
                        # Another workspace than the key's (403), or one that does not exist (404).
                        for status, entry in errors(403, 404).items():
                            operation.setdefault("responses", {}).setdefault(str(status), entry)
            if not settings.api.api_keys:
                components.pop("securitySchemes", None)
                for path in schema.get("paths", {}).values():
                    for operation in path.values():
                        operation.pop("security", None)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


__all__ = ["COMMON", "Problem", "errors", "install"]
