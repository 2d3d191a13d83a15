"""Document upload (multipart file or JSON text), listing and deletion.

Upload goes through the same loaders and Ingestor as `kgrag ingest`, so a document stored over
HTTP is chunked, embedded and stored exactly like one ingested from disk.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import PurePath
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError
from starlette.datastructures import UploadFile

from api.deps import Authorized, Resources, ResourcesDep
from api.problems import RequestTooLargeError
from api.schemas import DocumentList, DocumentOut, IngestOut, TextDocumentIn
from core.errors import IngestError, InvalidInputError
from core.types import LoadedDocument
from ingest.loaders import SUPPORTED_SUFFIXES, content_hash, load_bytes, load_text

router = APIRouter(prefix="/v1/documents", tags=["documents"], dependencies=[Authorized])

_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {"schema": {"type": "object", "required": ["file"], "properties": {
                "file": {"type": "string", "format": "binary"},
                "title": {"type": "string"}, "source": {"type": "string"},
                "metadata": {"type": "string", "description": "A JSON object of string values."},
            }}},
            "application/json": {"schema": TextDocumentIn.model_json_schema()},
        },
    }
}


def _too_large(size: int, limit: int) -> RequestTooLargeError:
    return RequestTooLargeError(f"the document is {size} bytes, over the limit of {limit}",
                                fix="split it, or raise KGRAG_API__MAX_UPLOAD_BYTES")


def _metadata(raw: Any) -> dict[str, Any]:
    if raw in (None, ""):
        return {}
    try:
        value = json.loads(str(raw))
    except json.JSONDecodeError as exc:
        raise InvalidInputError("the metadata field is not valid JSON", fix='send e.g. {"team": "ops"}') from exc
    if not isinstance(value, dict):
        raise InvalidInputError("metadata must be a JSON object", fix='send e.g. {"team": "ops"}')
    return value


async def _from_multipart(request: Request, limit: int) -> LoadedDocument:
    form = await request.form(max_files=1, max_fields=8)
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise InvalidInputError("the form has no file", fix="send the document as the multipart field `file`")
    data = await upload.read(limit + 1)
    if len(data) > limit:
        raise _too_large(len(data), limit)
    name = PurePath(upload.filename).name
    suffix = PurePath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise IngestError(f"{name} has an unsupported type {suffix or '(no extension)'}",
                          fix=f"upload one of {', '.join(sorted(SUPPORTED_SUFFIXES))}")
    source = str(form.get("source") or f"upload:{name}")
    meta = _metadata(form.get("metadata"))
    doc = await run_in_threadpool(load_bytes, data, source=source, suffix=suffix, default_title=PurePath(name).stem)
    title = str(form.get("title") or "").strip()
    return replace(doc, title=title[:500] or doc.title, metadata={**doc.metadata, **meta})


async def _from_json(request: Request, limit: int) -> LoadedDocument:
    raw = await request.body()
    try:
        body = TextDocumentIn.model_validate_json(raw)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_input=False)) from exc
    size = len(body.text.encode())
    if size > limit:
        raise _too_large(size, limit)
    source = body.source or f"text:{content_hash(body.text.encode())[:16]}"
    return load_text(body.text, source=source, title=body.title or source, metadata=body.metadata)


def _ingest(res: Resources, doc: LoadedDocument) -> IngestOut:
    report = res.ingestor.ingest_documents([doc])
    if report.failed:
        _, reason = report.failed[0]
        raise IngestError(f"{doc.source} could not be ingested: {reason}", fix="check the document and retry")
    doc_id = report.document_ids[doc.source]
    outcome = "added" if report.added else "replaced" if report.replaced else "unchanged"
    record = res.runtime.store.document(doc_id)
    return IngestOut(outcome=outcome, document=DocumentOut.of(record), chunks_written=report.chunks_written,
                     seconds=dict(report.stage_seconds))


@router.post("", status_code=201, response_model=IngestOut, openapi_extra=_UPLOAD_BODY)
async def upload_document(request: Request, res: ResourcesDep) -> IngestOut:
    """A file as multipart field ``file`` (pdf, md, txt, html), or JSON ``{"text", "title", "source"}``.

    The same ``source`` again replaces the stored document (or leaves it if unchanged)."""
    limit = res.settings.api.max_upload_bytes
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "multipart/form-data":
        doc = await _from_multipart(request, limit)
    elif content_type == "application/json":
        doc = await _from_json(request, limit)
    else:
        raise InvalidInputError(f"unsupported content type {content_type or '(none)'}",
                                fix="send multipart/form-data with a `file` field, or application/json text")
    return await run_in_threadpool(_ingest, res, doc)


@router.get("", response_model=DocumentList)
def list_documents(res: ResourcesDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                   offset: Annotated[int, Query(ge=0)] = 0) -> DocumentList:
    docs = res.runtime.store.list_documents(limit=limit, offset=offset)
    return DocumentList(documents=[DocumentOut.of(d) for d in docs], limit=limit, offset=offset)


@router.get("/{document_id}", response_model=DocumentOut)
def get_document(document_id: int, res: ResourcesDep) -> DocumentOut:
    return DocumentOut.of(res.runtime.store.document(document_id))


@router.delete("/{document_id}", response_model=DocumentOut)
def delete_document(document_id: int, res: ResourcesDep) -> DocumentOut:
    """Deletes the document, its chunks and (by cascade) its graph evidence; returns what was deleted."""
    return DocumentOut.of(res.runtime.store.delete_document(document_id))
