"""Liveness and readiness probes (open: no API key, so an orchestrator can call them)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from kgrag.api.deps import RootResourcesDep
from kgrag.api.doctor import check_database, check_embedding_model
from kgrag.api.schemas import CheckOut, ReadyOut

router = APIRouter(tags=["health"])

READY_CHECKS = (check_database, check_embedding_model)
"""What a query needs to succeed; the spaCy and graph checks stay in `kgrag doctor` (graph is optional)."""


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up and serving (touches nothing, so it stays cheap under load)."""
    return {"status": "ok"}


@router.get("/readyz", response_model=ReadyOut, responses={503: {"model": ReadyOut}})
def readyz(res: RootResourcesDep) -> JSONResponse:
    """Ready when the database answers and the embedding model is loaded; 503 with the fix otherwise."""
    checks = [check(res.runtime) for check in READY_CHECKS]
    ready = all(c.ok or not c.required for c in checks)
    body = ReadyOut(ready=ready, checks=[CheckOut(name=c.name, ok=c.ok, detail=c.detail, fix=c.fix,
                                                  required=c.required) for c in checks])
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)
