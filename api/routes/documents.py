"""Document upload (multipart file or JSON text), listing, reading (text and chunks) and deletion.

Upload goes through the same loaders and Ingestor as `kgrag ingest`, so a document stored over
HTTP is chunked, embedded and stored exactly like one ingested from disk.
"""

from __future__ import annotations

import json
import math
import unicodedata
from dataclasses import replace
from pathlib import PurePath
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from kgrag.api import service
from kgrag.api.deps import Authorized, Resources, ResourcesDep, Writer, audit
from kgrag.api.openapi import COMMON, errors
from kgrag.api.problems import RequestTooLargeError
from kgrag.api.schemas import DocumentDetail, DocumentList, DocumentOut, IngestOut, TextDocumentIn
from kgrag.core.errors import DuplicateDocumentError, IngestError, InvalidInputError
from kgrag.core.text import SURROGATE_FIX, control_char, invisible_char, surrogate_char, surrogate_problem
from kgrag.core.types import DocumentStatus, LoadedDocument
from kgrag.ingest.loaders import SUPPORTED_SUFFIXES, clean_title, content_hash, load_text
from kgrag.retrieval.maintenance import delete_document_everywhere
from pydantic import ValidationError
from starlette.datastructures import UploadFile

router = APIRouter(prefix="/v1/documents", tags=["documents"], dependencies=[Authorized],
                   responses=errors(*COMMON))

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
                                fix="split it, or raise KGRAG_API__MAX_UPLOAD_BYTES",
                                details={"limit": limit, "setting": "KGRAG_API__MAX_UPLOAD_BYTES"})


MAX_NAME_CHARS = 255
MAX_OFFSET = 2**63 - 1
"""Postgres OFFSET is a bigint: anything larger was a 500 (found by tests/test_api_fuzz.py)."""
MAX_SOURCE_CHARS = 2000
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format (bidi overrides, zero-width), surrogate, private-use, unassigned, line/paragraph separators."""


def safe_filename(raw: str) -> str:
    """The client's file name reduced to one plain name: it becomes the stored source and title, and
    clients send anything here (``../../etc/passwd.txt``, ``C:\\x\\y.pdf``, NUL, bidi overrides).
    Nothing is ever written under this name, but a source is shown to people and matched in
    filters, so it must not look like a path, hide behind a leading dot, or carry invisible characters."""
    name = unicodedata.normalize("NFC", raw).replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(" " if ch.isspace() else ch for ch in name
                   if ch.isspace() or unicodedata.category(ch) not in _UNSAFE_CATEGORIES)
    name = " ".join(name.split()).lstrip(".").strip()
    if len(name) > MAX_NAME_CHARS:  # keep the extension: it picks the loader
        stem, dot, suffix = name.rpartition(".")
        name = stem[: MAX_NAME_CHARS - len(suffix) - 1] + dot + suffix if dot and len(suffix) < 16 \
            else name[:MAX_NAME_CHARS]
    return name


def _refuse_unsafe(field: str, value: str, *, allow_whitespace: bool = False) -> str:
    """Postgres text and jsonb cannot hold NUL, and other C0/C1 controls (ESC, CSI, BEL) are terminal
    commands once a listing prints them: refused here, and the client learns which field. So is a lone
    surrogate (a JSON "\\ud800" in the metadata field), which nothing can encode."""
    if (half := surrogate_char(value)) is not None:
        raise InvalidInputError(f"the {field} holds {surrogate_problem(half)}", fix=SURROGATE_FIX)
    bad = control_char(value, allow_whitespace=allow_whitespace)
    if bad == "\x00":
        raise InvalidInputError(f"the {field} contains a NUL character", fix=f"remove NUL (\\u0000) from the {field}")
    if bad is not None:
        raise InvalidInputError(f"the {field} contains a control character (U+{ord(bad):04X})",
                                fix=f"remove control characters from the {field}; only tab and newline are "
                                "allowed, and only in titles and metadata values")
    hidden = invisible_char(value)
    if hidden is not None:  # a name shown to people must read as what it is
        raise InvalidInputError(f"the {field} contains an invisible formatting character (U+{ord(hidden):04X})",
                                fix=f"remove bidi overrides and zero-width characters from the {field}")
    return value


def _title(value: str) -> str:
    """Tabs and newlines in a title are folded to spaces (a title is one line); other controls are refused."""
    return clean_title(_refuse_unsafe("title", value, allow_whitespace=True))


def check_metadata(value: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Metadata is stored as jsonb, which takes neither NUL in strings nor NaN/Infinity, and is returned with
    the document in every listing, so it is bounded (``max_bytes`` of JSON).

    Walked with an explicit stack: a client decides how deep the JSON nests."""
    stack: list[tuple[Any, str]] = [(value, "metadata")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            _refuse_unsafe(where, item, allow_whitespace=True)
        elif isinstance(item, float) and not math.isfinite(item):
            raise InvalidInputError(f"the {where} is {item}, which JSON storage cannot hold",
                                    fix="send a finite number, or the value as a string")
        elif isinstance(item, dict):
            for key, sub in item.items():
                _refuse_unsafe("metadata key", str(key))
                stack.append((sub, f"metadata value of {str(key)[:40]!r}"))
        elif isinstance(item, list):
            stack.extend((sub, where) for sub in item)
    try:
        size = len(json.dumps(value, ensure_ascii=False).encode())
    except RecursionError as exc:
        raise InvalidInputError("the metadata is nested too deeply", fix="flatten the metadata") from exc
    if size > max_bytes:
        raise InvalidInputError(f"the metadata is {size} bytes as JSON, over the limit of {max_bytes}",
                                fix="send long values as the document's text, or raise "
                                    "KGRAG_INGEST__MAX_METADATA_BYTES")
    return value


def _metadata(raw: Any, max_bytes: int) -> dict[str, Any]:
    if raw in (None, ""):
        return {}
    try:
        value = json.loads(str(raw))
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InvalidInputError("the metadata field is not valid JSON", fix='send e.g. {"team": "ops"}') from exc
    if not isinstance(value, dict):
        raise InvalidInputError("metadata must be a JSON object", fix='send e.g. {"team": "ops"}')
    return check_metadata(value, max_bytes)


async def _from_multipart(request: Request, limit: int, res: Resources) -> LoadedDocument:
    form = await request.form(max_files=1, max_fields=8)
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise InvalidInputError("the form has no file", fix="send the document as the multipart field `file`")
    data = await upload.read(limit + 1)
    if len(data) > limit:
        raise _too_large(len(data), limit)
    name = safe_filename(upload.filename)
    suffix = PurePath(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise IngestError(f"{name or '(a file name with nothing left once cleaned)'} has an unsupported type "
                          f"{suffix or '(no extension)'}", fix=f"upload one of {', '.join(sorted(SUPPORTED_SUFFIXES))}")
    source = _refuse_unsafe("source", str(form.get("source") or f"upload:{name}"))
    if len(source) > MAX_SOURCE_CHARS:
        raise InvalidInputError(f"the source has {len(source)} characters, over the limit of {MAX_SOURCE_CHARS}",
                                fix="send a shorter source (it is the document's identity, not its content)")
    meta = _metadata(form.get("metadata"), res.settings.ingest.max_metadata_bytes)
    title = _title(str(form.get("title") or ""))
    doc = await run_in_threadpool(res.ingestor.parse, data, source=source, suffix=suffix,
                                  default_title=PurePath(name).stem)
    return replace(doc, title=title[:500] or doc.title, metadata={**doc.metadata, **meta})


async def _from_json(request: Request, limit: int, max_metadata_bytes: int) -> LoadedDocument:
    raw = await request.body()
    try:
        # Parsed as FastAPI parses the other routes' bodies, so a JSON "\\ud800" reaches the model's check and
        # the client learns which field holds it (pydantic's own parser says only "invalid JSON" for it).
        parsed = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise RequestValidationError([{"type": "json_invalid", "loc": ("body",), "msg": "the body is not valid "
                                       f"JSON ({type(exc).__name__})"}]) from exc
    try:
        body = TextDocumentIn.model_validate(parsed)
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_input=False)) from exc
    size = len(body.text.encode())
    if size > limit:
        raise _too_large(size, limit)
    title = _title(body.title)
    check_metadata(body.metadata, max_metadata_bytes)
    source = _refuse_unsafe("source", body.source or f"text:{content_hash(body.text.encode())[:16]}")
    return load_text(body.text, source=source, title=title or source, metadata=body.metadata)


def _ingest(res: Resources, doc: LoadedDocument, allow_duplicates: bool) -> IngestOut:
    report = res.ingestor.ingest_documents([doc], allow_duplicates=allow_duplicates)
    res.sync.kick()  # BM25 and the graph catch up in the background (one build for a burst of uploads)
    if report.duplicates:
        _, twin = report.duplicates[0]
        raise DuplicateDocumentError(f"the same content is already stored as {twin!r}; not stored twice",
                                     fix="use the stored document, or send allow_duplicates=true to store a copy")
    if report.failed:
        _, reason = report.failed[0]
        raise IngestError(f"{doc.source} could not be ingested: {reason}", fix="check the document and retry")
    doc_id = report.document_ids[doc.source]
    outcome = "added" if report.added else "replaced" if report.replaced else "unchanged"
    record = res.runtime.store.document(doc_id)
    return IngestOut(outcome=outcome, document=DocumentOut.of(record), chunks_written=report.chunks_written,
                     seconds=dict(report.stage_seconds))


@router.post("", status_code=201, response_model=IngestOut, openapi_extra=_UPLOAD_BODY,
             responses=errors(400, 403, 409), dependencies=[Writer])
async def upload_document(
    request: Request, res: ResourcesDep,
    allow_duplicates: Annotated[bool, Query(description="Store it even when another source holds the same "
                                            "content (otherwise 409).")] = False,
) -> IngestOut:
    """A file as multipart field ``file`` (pdf, docx, md, txt, html, csv), or JSON ``{"text", "title", "source"}``.

    The same ``source`` again replaces the stored document (or leaves it if unchanged); the same content
    under another source is refused with 409 unless ``allow_duplicates=true``."""
    limit = res.settings.api.max_upload_bytes
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "multipart/form-data":
        doc = await _from_multipart(request, limit, res)
    elif content_type == "application/json":
        doc = await _from_json(request, limit, res.settings.ingest.max_metadata_bytes)
    else:
        raise InvalidInputError(f"unsupported content type {content_type or '(none)'}",
                                fix="send multipart/form-data with a `file` field, or application/json text")
    out = await run_in_threadpool(_ingest, res, doc, allow_duplicates)
    if out.outcome != "unchanged":
        await run_in_threadpool(audit, request, res, f"document.{out.outcome}", str(out.document.id))
    return out


@router.get("", response_model=DocumentList)
def list_documents(res: ResourcesDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                   offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
                   status: Annotated[DocumentStatus | None, Query(description="Only documents with this status.")]
                   = None) -> DocumentList:
    return service.list_documents(res, limit=limit, offset=offset, status=status)


INCLUDE_PATTERN = r"^(text|chunks)(,(text|chunks))*$"


@router.get("/{document_id}", response_model=DocumentDetail, responses=errors(404))
def get_document(
    document_id: int, res: ResourcesDep,
    include: Annotated[str | None, Query(
        pattern=INCLUDE_PATTERN, max_length=64, examples=["text,chunks"],
        description="Comma-separated: `text` adds the document's text, `chunks` its chunks (a page of them, "
                    "see chunk_offset and chunk_limit).")] = None,
    chunk_offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="With include=chunks: skip this many "
                                       "chunks first.")] = 0,
    chunk_limit: Annotated[int, Query(ge=1, le=service.MAX_CHUNK_PAGE, description="With include=chunks: at "
                                      "most this many chunks.")] = 100,
) -> DocumentDetail:
    """The document's record; with ``include=text,chunks`` also its text and chunks, as MCP's
    ``get_document`` returns them."""
    parts = set(include.split(",")) if include else set()
    return service.document_detail(res, document_id, text="text" in parts, chunks="chunks" in parts,
                                   chunk_offset=chunk_offset, chunk_limit=chunk_limit)


@router.delete("/{document_id}", response_model=DocumentOut, responses=errors(403, 404), dependencies=[Writer])
def delete_document(document_id: int, res: ResourcesDep, request: Request) -> DocumentOut:
    """Deletes the document, its chunks, its graph evidence and the entities only it mentioned, and the
    BM25 index holding its words; returns what was deleted."""
    record = delete_document_everywhere(res.runtime, document_id)
    audit(request, res, "document.delete", str(record.id))
    res.sync.sync_once()  # swap to the index published without it before answering
    res.sync.kick()  # the graph drops its words in the background, once deletes pause
    return DocumentOut.of(record)
