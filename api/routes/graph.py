"""Graph build as a background job, job status, and graph export (the graph code lives in kg/)."""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from kgrag.api.deps import Admin, Authorized, Resources, ResourcesDep, audit
from kgrag.api.jobs import Job
from kgrag.api.openapi import COMMON, errors
from kgrag.api.schemas import ArtifactOut, ArtifactsOut, GraphBuildOut, JobOut
from kgrag.core.errors import GraphMissingError

log = logging.getLogger("kgrag.api")

router = APIRouter(prefix="/v1", tags=["graph"], dependencies=[Authorized], responses=errors(*COMMON))


def job_out(job: Job) -> JobOut:
    return JobOut(id=job.id, kind=job.kind, state=job.state, created_at=job.created_at, started_at=job.started_at,
                  finished_at=job.finished_at, result=job.result, error=job.error)


def _build(res: Resources, rebuild: bool, full: bool) -> dict[str, Any]:
    """Runs on the job thread, through the sync, so a background build in progress is waited for, not a 409."""
    report = res.sync.build_graph(rebuild=rebuild, full=full)  # loads the new graph here, not in the next query
    log.info("graph build wrote %s", report.path)  # the server's file layout stays in its log, not the job result
    return {name: getattr(report, name) for name in report.__dataclass_fields__ if name != "path"}


@router.post("/graph/build", status_code=202, response_model=JobOut, responses=errors(403, 409),
             dependencies=[Admin])
def build_graph(res: ResourcesDep, request: Request, response: Response, rebuild: bool = False,
                full: bool = False) -> JobOut:
    """Queue a graph build (incremental unless ``rebuild``; on a large graph, additions go out as a delta unless
    ``full``: docs/deploy.md); poll the returned job at ``Location``."""
    job = res.jobs.submit("graph-build", lambda: _build(res, rebuild, full))
    audit(request, res, "graph.build", job.id)
    response.headers["Location"] = f"/v1/jobs/{job.id}"
    return job_out(job)


@router.get("/artifacts", response_model=ArtifactsOut)
def artifacts(res: ResourcesDep) -> ArtifactsOut:
    """The BM25 index and graph this replica serves, and the database's corpus version: replicas behind
    one load balancer report the same digests once they have synced."""
    status = res.sync.status()
    now = status["corpus_version"]

    def served(signal: dict[str, Any] | None) -> ArtifactOut | None:
        if not signal:
            return None
        fields = {k: v for k, v in signal.items() if k in ArtifactOut.model_fields}
        return ArtifactOut(**fields, behind=max(0, now - int(signal["corpus_version"])))

    build = status.get("graph_build")
    return ArtifactsOut(database_id=status["database_id"], corpus_version=now, bm25=served(status["bm25"]),
                        graph=served(status["graph"]), last_error=status.get("last_error"),
                        graph_build=GraphBuildOut(**build) if build else None)


@router.get("/jobs/{job_id}", response_model=JobOut, responses=errors(404))
def get_job(job_id: str, res: ResourcesDep) -> JobOut:
    return job_out(res.jobs.get(job_id))


_MEDIA = {"graphml": "application/graphml+xml", "json": "application/json", "html": "text/html; charset=utf-8"}


def _export(res: Resources, fmt: str, entity: str | None, hops: int, top: int | None, by: str) -> bytes:
    """B's exporters write files; a temporary one keeps this route a thin wrapper over them."""
    from kgrag.kg import export as ex
    from kgrag.kg.holder import read_served_networkx
    from kgrag.kg.store import GraphStore

    path = res.settings.graph_path
    if not path.exists():
        raise GraphMissingError("no graph has been built yet",  # the server's file layout is not the client's business
                                fix="start a build with POST /v1/graph/build, then poll its job")
    g = ex.live_view(read_served_networkx(path), res.runtime.store)  # nothing from a document deleted since the build
    if fmt == "html":  # the web UI's Graph page with its views inlined (api/ui_export.py)
        from kgrag.api.ui_export import live_page

        return live_page(g, path, GraphStore(res.runtime.db).chunk_texts, entity=entity, hops=hops,
                         top=top, document_edge_weight=res.settings.graph.document_edge_weight)[0].encode()
    sub = ex.subgraph(g, entity=entity, hops=hops, top=top, by=by)
    with tempfile.TemporaryDirectory(prefix="kgrag-export-") as tmp:
        out = Path(tmp) / f"graph.{fmt}"
        if fmt == "graphml":
            ex.write_graphml(sub, out)
        else:
            ex.write_json(sub, out)
        return out.read_bytes()


@router.get("/graph/export", response_class=Response,
            responses={200: {"content": {m.split(";")[0]: {} for m in _MEDIA.values()}}, **errors(404, 409)})
def export_graph(
    res: ResourcesDep,
    format: Annotated[Literal["graphml", "json", "html"], Query(description="graphml, json (node-link) or html.")],
    entity: Annotated[str | None, Query(description="Only this entity's neighbourhood.")] = None,
    hops: Annotated[int, Query(ge=1, le=4)] = 1,
    top: Annotated[int | None, Query(ge=1, description="Only the N most important entities.")] = None,
    by: Annotated[Literal["pagerank", "degree"], Query()] = "pagerank",
) -> Response:
    """The built graph (or a subgraph) as a download; html is a self-contained offline viewer."""
    data = _export(res, format, entity, hops, top, by)
    return Response(data, media_type=_MEDIA[format],
                    headers={"Content-Disposition": f'attachment; filename="graph.{format}"'})
