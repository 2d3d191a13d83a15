"""The API's shared resources and the ``Annotated`` dependencies that hand them to routes.

Everything here is created once in the lifespan and holds no request state: the runtime (pool,
embedder), the query pipeline, the answerer, the ingestor, the job runner and the artifact sync.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from kgrag.api.jobs import JobRunner
from kgrag.api.problems import AuthError
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.answer import Answerer
from kgrag.retrieval.pipeline import QueryPipeline
from kgrag.retrieval.sync import ArtifactSync


@dataclass(frozen=True, slots=True)
class Resources:
    runtime: Runtime
    pipeline: QueryPipeline
    answerer: Answerer
    ingestor: Ingestor
    jobs: JobRunner
    sync: ArtifactSync

    @property
    def settings(self) -> Settings:
        return self.runtime.settings


def get_resources(request: Request) -> Resources:
    return request.app.state.resources


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


_bearer = HTTPBearer(auto_error=False, description="One of api.api_keys (KGRAG_API__API_KEYS).")


def require_api_key(
    settings: Annotated[Settings, Depends(get_settings)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Every /v1 route needs a key once any key is configured; with none configured the API is open
    (and `kgrag serve` refuses to listen beyond localhost that way)."""
    keys = settings.api.api_keys
    if not keys:
        return
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise AuthError("this API needs an API key", fix="send the header `Authorization: Bearer <key>`")
    given = credentials.credentials.encode()
    # Compare against every key, in constant time each, so timing says nothing about which matched.
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(given, key.get_secret_value().encode())
    if not matched:
        raise AuthError("the API key is not valid", fix="use one of the keys configured in KGRAG_API__API_KEYS")


ResourcesDep = Annotated[Resources, Depends(get_resources)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Authorized = Depends(require_api_key)
