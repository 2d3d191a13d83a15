"""Liveness and readiness probes (open: no API key, so an orchestrator can call them).

Once keys are configured, /readyz tells a caller without a valid key only whether the service is ready: its
checks name the database's folder or host and the model's path, which are no one else's business."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from kgrag.api.deps import RootResourcesDep, get_tenancy
from kgrag.api.doctor import check_database, check_embedding_model
from kgrag.api.schemas import CheckOut, ReadyOut
from kgrag.core.errors import KgragError

router = APIRouter(tags=["health"])

READY_CHECKS = (check_database, check_embedding_model)
"""What a query needs to succeed; the spaCy and graph checks stay in `kgrag doctor` (graph is optional)."""


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up and serving (touches nothing, so it stays cheap under load)."""
    return {"status": "ok"}


@router.get("/readyz", response_model=ReadyOut, response_model_exclude_none=True,
            responses={503: {"model": ReadyOut}})
def readyz(request: Request, res: RootResourcesDep) -> JSONResponse:
    """Ready when the database answers and the embedding model is loaded; 503 otherwise. The checks, with
    their fixes, come only with a valid key once keys are configured (or always, on an API with no keys)."""
    checks = [check(res.runtime) for check in READY_CHECKS]
    ready = all(c.ok or not c.required for c in checks)
    body = ReadyOut(ready=ready)
    if _may_see_details(request):
        body.checks = [CheckOut(name=c.name, ok=c.ok, detail=c.detail, fix=c.fix, required=c.required)
                       for c in checks]
    return JSONResponse(body.model_dump(exclude_none=True), status_code=200 if ready else 503)


def _may_see_details(request: Request) -> bool:
    """Whether the caller would be let into /v1 (``KeyCheck.principal``). A wrong key is not refused here, as a
    probe must answer without one; a database that cannot say whether keys exist shows nothing."""
    try:
        get_tenancy(request).auth.principal(request.headers.get("authorization"))
    except KgragError:
        return False
    return True
