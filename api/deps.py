"""The API's shared resources and the ``Annotated`` dependencies that hand them to routes.

Everything here is created once per process and holds no request state: the runtime (pool,
embedder), the query pipeline, the answerer, the ingestor, the job runner and the artifact sync.
The REST app and the MCP server (api/mcp_server.py) build them with the same ``build_resources``
and check keys with the same ``check_api_key``, so both answer a question the same way and accept
the same keys.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from kgrag.api.jobs import JobRunner
from kgrag.api.problems import AuthError
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.answer import Answerer, answerer_for
from kgrag.retrieval.pipeline import QueryPipeline, build_pipeline
from kgrag.retrieval.sync import ArtifactSync, sync_for
from pydantic import SecretStr

log = logging.getLogger("kgrag.api")


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

    def close(self) -> None:
        """Stops the background threads; the runtime stays open (its owner closes it)."""
        self.jobs.close()
        self.sync.close()
        self.pipeline.close()


def build_resources(rt: Runtime) -> Resources:
    """Blocking (opens the pool, loads the model, checks the schema): the app runs it on a worker thread."""
    settings = rt.settings
    embedder = rt.checked_embedder()
    pipeline = build_pipeline(rt)
    pipeline.warm()  # the published BM25 index and the reranker load now, not on the first query
    sync = sync_for(rt, pipeline, start=False)
    sync.sync_once()  # a replica with an empty data home downloads the published BM25 index and graph first
    sync.start()  # then new versions load in the background; builds never run in a query
    answerer = answerer_for(settings.answer, embedder=embedder, spacy=rt.spacy)
    ingestor = Ingestor(rt.store, embedder, settings.chunking, settings.embedding, settings.ingest,
                        sandbox=rt.sandbox, activity=rt.activity)  # uploads wait while the pipeline answers
    log.info("answers by %s; signals %s", answerer.name, ",".join(settings.retrieval.signals))
    return Resources(rt, pipeline, answerer, ingestor, JobRunner(rt.db, stale_after=settings.artifacts.job_stale_after),
                     sync)


def get_resources(request: Request) -> Resources:
    return request.app.state.resources


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


_bearer = HTTPBearer(auto_error=False, description="One of api.api_keys (KGRAG_API__API_KEYS).")


def check_api_key(keys: Sequence[SecretStr], authorization: str | None) -> None:
    """Raises AuthError unless ``authorization`` (the header's value) is ``Bearer <one of keys>``; with no
    keys configured everything is allowed (and `kgrag serve` / `kgrag mcp` refuse to listen beyond
    localhost that way). The REST routes and the MCP endpoint both call this: one rule for keys."""
    if not keys:
        return
    scheme, _, token = (authorization or "").partition(" ")  # as FastAPI's HTTPBearer reads it
    if scheme.lower() != "bearer" or not token:
        raise AuthError("this API needs an API key", fix="send the header `Authorization: Bearer <key>`")
    given = token.encode()
    # Compare against every key, in constant time each, so timing says nothing about which matched.
    matched = False
    for key in keys:
        matched |= hmac.compare_digest(given, key.get_secret_value().encode())
    if not matched:
        raise AuthError("the API key is not valid", fix="use one of the keys configured in KGRAG_API__API_KEYS")


def require_api_key(
    settings: Annotated[Settings, Depends(get_settings)],
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    """Every /v1 route needs a key once any key is configured (``check_api_key``). HTTPBearer is kept as
    the dependency so the OpenAPI schema lists the bearer scheme."""
    header = f"{credentials.scheme} {credentials.credentials}" if credentials is not None else None
    check_api_key(settings.api.api_keys, header)


ResourcesDep = Annotated[Resources, Depends(get_resources)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Authorized = Depends(require_api_key)
