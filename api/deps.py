"""The API's shared resources and the ``Annotated`` dependencies that hand them to routes.

Everything here is created once per process (per workspace) and holds no request state: the runtime
(pool, embedder), the query pipeline, the answerer, the ingestor, the job runner and the artifact sync.
A request's workspace comes from its key, or from the ``X-Kgrag-Workspace`` header checked against the
key (core.access.Principal.workspace_for); ``Tenancy`` hands out that workspace's Resources, made on
first use and kept: every workspace's corpus objects are its own, its models the process's.
The REST app and the MCP server (api/mcp_server.py) build them with the same ``build_resources``
and check keys with the same ``KeyCheck``, so both answer a question the same way and accept
the same keys.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from kgrag.api.jobs import JobRunner
from kgrag.api.problems import AuthError
from kgrag.core.access import OPEN, Audit, ForbiddenError, Keys, Principal, Role, env_principal
from kgrag.core.db import Database
from kgrag.core.errors import DatabaseError, KgragError
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.core.workspaces import DEFAULT, missing
from kgrag.ingest.loaders import PARSER_MODULES
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.answer import Answerer, answerer_for
from kgrag.retrieval.pipeline import QueryPipeline, build_pipeline
from kgrag.retrieval.sync import ArtifactSync, sync_for

log = logging.getLogger("kgrag.api")


@dataclass(frozen=True, slots=True)
class Resources:
    runtime: Runtime
    pipeline: QueryPipeline
    answerer: Answerer
    jobs: JobRunner
    sync: ArtifactSync

    @property
    def ingestor(self) -> Ingestor:
        """Made on the first upload, with ingestion's own model instance (Runtime.bulk_embedder): a replica
        that only answers never loads it. Uploads wait while the pipeline answers (core.priority)."""
        rt = self.runtime
        s = rt.settings
        return rt.shared(("ingestor",), lambda: Ingestor(
            rt.store, rt.checked_embedder(bulk=True), s.chunking, s.embedding, s.ingest,
            sandbox=rt.parser_sandbox(PARSER_MODULES), activity=rt.activity))

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    @property
    def workspace(self) -> str:
        return self.runtime.settings.workspace

    def close(self) -> None:
        """Stops the background threads; the runtime stays open (its owner closes it)."""
        self.jobs.close()
        self.sync.close()
        self.pipeline.close()


def build_resources(rt: Runtime, *, shared: Resources | None = None, listen: bool = True) -> Resources:
    """Blocking (opens the pool, loads the model, checks the schema): the app runs it on a worker thread.
    ``shared``: another workspace's resources, whose answerer and query threads this one uses (an answerer
    holds a model or a client, never a corpus; threads that ran the models once keep their native buffers,
    so a thread pool per workspace cost megabytes per workspace).
    ``listen``: whether its artifact sync holds a LISTEN connection; a process serving many workspaces
    lets the others poll (artifacts.poll_interval), so it holds one connection per workspace at most
    while busy, not one more per workspace for ever."""
    settings = rt.settings
    embedder = rt.checked_embedder()
    pipeline = build_pipeline(rt, executor=shared.pipeline.executor if shared is not None else None)
    pipeline.warm()  # the published BM25 index and the reranker load now, not on the first query
    sync = sync_for(rt, pipeline, start=False, listen=listen)
    sync.sync_once()  # a replica with an empty data home downloads the published BM25 index and graph first
    sync.start()  # then new versions load in the background; builds never run in a query
    answerer = shared.answerer if shared is not None else answerer_for(settings.answer, embedder=embedder,
                                                                        spacy=rt.spacy)
    log.info("answers by %s; signals %s", answerer.name, ",".join(settings.retrieval.signals))
    return Resources(rt, pipeline, answerer, JobRunner(rt.db, stale_after=settings.artifacts.job_stale_after),
                     sync)


class KeyCheck:
    """Who a request acts as, from its Authorization header: the one check the REST routes and the MCP
    endpoint (api/mcp_server.py) share, so a key means the same on both. Whether any stored key is active
    is read at most once per artifacts.poll_interval; the key itself on every request (a revoked key is
    refused on the next one)."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.keys = Keys(db)
        self.audit = Audit(db)
        self._checked = (-float("inf"), False)

    def stored_keys_exist(self) -> bool:
        """While the database is down the last answer stands, so an open API (no key anywhere) still reports
        the outage per stage, as it did before keys were stored."""
        checked_at, exist = self._checked
        if time.monotonic() - checked_at < self.settings.artifacts.poll_interval:
            return exist
        try:
            exist = self.keys.any_active()
        except DatabaseError:
            if checked_at == -float("inf"):
                raise
            return exist
        self._checked = (time.monotonic(), exist)
        return exist

    def principal(self, authorization: str | None) -> Principal:
        return principal_of(self.settings, self.keys, authorization, self.stored_keys_exist)

    def record_denial(self, exc: KgragError, *, principal: Principal | None, authorization: str | None,
                      workspace: str, target: str) -> None:
        """A refused request (401, 403) in the audit log: who tried (the key's id when it is one, never the
        key), where and what. An audit log that holds only successes cannot show a probe. Best effort: the
        refusal stands whether or not the row could be written."""
        try:
            self.audit.record(principal.key_id if principal is not None else anonymous_id(authorization),
                              workspace, f"denied.{exc.status_code}", target[:500])
        except DatabaseError as err:
            log.warning("could not write a denied request to the audit log: %s", err)


def anonymous_id(authorization: str | None) -> str:
    """The audit log's key id for a request whose key was not accepted: ``none`` (no key sent) or
    ``invalid`` (a key that is not active: wrong, revoked, expired or of a deleted workspace). The token
    itself is never written."""
    _, _, token = (authorization or "").partition(" ")
    return "invalid" if token else "none"


class Tenancy:
    """Every workspace's Resources in this process: the serving workspace's made at startup, any other on
    its first request (under a lock of its own, so one workspace's first load never holds up another's),
    then kept. All share the root runtime's models, pool and answerer."""

    def __init__(self, root: Resources) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._made: dict[str, tuple[threading.Lock, list[Resources]]] = {}
        self.auth = KeyCheck(root.settings, root.runtime.database)

    def get(self, name: str) -> Resources:
        if name == self.root.workspace:
            return self.root
        with self._lock:
            lock, slot = self._made.setdefault(name, (threading.Lock(), []))
        if not slot:
            with lock:
                if not slot:
                    rt = self.root.runtime.workspace(name)
                    slot.append(build_resources(rt, shared=self.root, listen=False))
        return slot[0]

    def exists(self, name: str) -> bool:
        return name == DEFAULT or self.root.runtime.workspaces.exists(name)

    def forget(self, name: str) -> None:
        """A workspace deleted (here or by another replica): stop its threads, drop its objects and its
        files in this data home."""
        with self._lock:
            entry = self._made.pop(name, None)
        if entry is not None and entry[1]:
            entry[1][0].close()
            shutil.rmtree(entry[1][0].settings.workspace_home, ignore_errors=True)
        self.root.runtime.forget_workspace(name)

    def close(self) -> None:
        with self._lock:
            made, self._made = self._made, {}
        for _, slot in made.values():
            for res in slot:
                res.close()
        self.root.close()


def get_tenancy(request: Request) -> Tenancy:
    return request.app.state.tenancy


def get_root_resources(request: Request) -> Resources:
    """The serving workspace's resources, for what is not a workspace's (the readiness probe)."""
    return request.app.state.resources


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


WORKSPACE_HEADER = "X-Kgrag-Workspace"
_bearer = HTTPBearer(auto_error=False, description="A key made by `kgrag keys create`, or one of api.api_keys "
                                                   "(KGRAG_API__API_KEYS, admin keys of every workspace).")


def principal_of(settings: Settings, keys: Keys, authorization: str | None,
                 stored_keys_exist: Callable[[], bool]) -> Principal:
    """Who the request acts as. With no key configured anywhere (no KGRAG_API__API_KEYS and no stored key)
    everything is allowed, as an admin of every workspace: a local single-user setup (`kgrag serve` refuses
    to listen beyond localhost that way). Otherwise AuthError unless the header carries a valid key."""
    scheme, _, token = (authorization or "").partition(" ")  # as FastAPI's HTTPBearer reads it
    env_keys = settings.api.api_keys
    if scheme.lower() != "bearer" or not token:
        if not env_keys and not stored_keys_exist():
            return Principal(OPEN, None, "admin")
        raise AuthError("this API needs an API key", fix="send the header `Authorization: Bearer <key>`")
    found = env_principal(env_keys, token) or keys.principal(token)  # a stored key keeps its scope, always
    if found is None and not env_keys and not stored_keys_exist():
        return Principal(OPEN, None, "admin")  # an open API ignores a key it does not know
    if found is None:
        raise AuthError("the API key is not valid",
                        fix="use a key from `kgrag keys create` (revoked and expired keys stop working at once) "
                            "or one of KGRAG_API__API_KEYS")
    return found


def _record_denial(request: Request, exc: KgragError, principal: Principal | None,
                   authorization: str | None = None) -> None:
    tenancy = get_tenancy(request)
    named = request.headers.get(WORKSPACE_HEADER, "")[:100]
    workspace = named or (principal.workspace if principal and principal.workspace else tenancy.root.workspace)
    tenancy.auth.record_denial(exc, principal=principal, authorization=authorization, workspace=workspace,
                               target=f"{request.method} {request.url.path}")


def require_api_key(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    """Every /v1 route needs a key once any key is configured (``principal_of``). HTTPBearer is kept as
    the dependency so the OpenAPI schema lists the bearer scheme. A refusal is written to the audit log."""
    header = f"{credentials.scheme} {credentials.credentials}" if credentials is not None else None
    try:
        principal = get_tenancy(request).auth.principal(header)
    except AuthError as exc:
        _record_denial(request, exc, None, header)
        raise
    request.state.principal = principal
    return principal


PrincipalDep = Annotated[Principal, Depends(require_api_key)]


def get_resources(
    request: Request, principal: PrincipalDep,
    workspace: Annotated[str | None, Header(
        alias=WORKSPACE_HEADER, description="The workspace to work in (default: the key's own, else the "
        "server's). A key scoped to another workspace gets 403.")] = None,
) -> Resources:
    """The request's workspace's resources. A key for one workspace that names another gets 403 before
    anything is looked up, so neither the answer nor its timing says whether the other one exists; an
    admin of every workspace that names a missing one gets 404. The header is a declared parameter so
    the OpenAPI schema lists it on every route that works in a workspace."""
    tenancy = get_tenancy(request)
    try:
        name = principal.workspace_for(workspace, tenancy.root.workspace)
    except ForbiddenError as exc:
        _record_denial(request, exc, principal)
        raise
    if name != tenancy.root.workspace and not tenancy.exists(name):
        tenancy.forget(name)
        raise missing(name)
    return tenancy.get(name)


def require_role(role: Role, action: str) -> Any:
    """A route dependency: 403 unless the request's key has ``role`` (reader < writer < admin)."""

    def check(request: Request, principal: PrincipalDep) -> None:
        try:
            principal.require(role, action)
        except ForbiddenError as exc:
            _record_denial(request, exc, principal)
            raise

    return Depends(check)


def audit(request: Request, res: Resources, action: str, target: str = "") -> None:
    """Record a write, delete or build done by this request: its key's id (never the key) and workspace."""
    principal: Principal = request.state.principal
    Audit(res.runtime.database).record(principal.key_id, res.workspace, action, target)


ResourcesDep = Annotated[Resources, Depends(get_resources)]
RootResourcesDep = Annotated[Resources, Depends(get_root_resources)]
TenancyDep = Annotated[Tenancy, Depends(get_tenancy)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
Authorized = Depends(require_api_key)
Writer = require_role("writer", "upload or delete documents")
Admin = require_role("admin", "start builds")

