"""Published artifacts: the derived indexes (BM25, graph) stored in Postgres under a version.

Replicas are stateless: one configured with nothing but the database URL must serve all three
signals, so what a builder makes is not left on its own disk. A build writes its files into
``kgrag_artifact_parts`` and switches ``kgrag_artifact_current`` in the same transaction, then
notifies ``kgrag_artifacts``; every replica downloads the new version into its data home (a cache
keyed by the artifact's digest), loads it beside the old one and swaps a reference. A builder killed
at any point before the commit leaves nothing behind: the transaction rolls back and every replica
keeps serving the version it had.

Every artifact carries the id of the database it was built against (``kgrag_meta.database_id``,
made when the schema is created) and the embedding model of its corpus; a reader refuses one whose
database id differs from its own, so a data home pointed at another database never serves that
database's chunk ids, whatever the corpus versions say.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgrag.core.db import Database, database_id
from kgrag.core.errors import KgragError
from psycopg.types.json import Jsonb

if TYPE_CHECKING:
    from kgrag.core.store import Store

BM25, GRAPH = "bm25", "graph"
BM25_DELTA = "bm25-delta"
"""The chunks written since the current BM25 base (retrieval/bm25_delta.py); its manifest names that base."""
GRAPH_DELTA = "graph-delta"
"""The documents added since the current graph base (kg/delta.py); its manifest names that base."""
CHANNEL = "kgrag_artifacts"
"""NOTIFY channel: the payload is the artifact kind that has a new current version."""
CORPUS_CHANNEL = "kgrag_corpus"
"""NOTIFY channel raised by every corpus change: background builders wake on it."""
DEFAULT_PART_BYTES = 8 * 1024 * 1024


class _Superseded(Exception):
    """Rolls back a publish whose artifact is already current, or older than the current one."""


class ArtifactRefusedError(KgragError):
    """An artifact that must not be served here (another database, a damaged download)."""

    status_code = 409


@dataclass(frozen=True, slots=True)
class Artifact:
    id: int
    kind: str
    variant: str
    corpus_version: int
    sha256: str
    bytes: int
    manifest: dict[str, Any]

    @property
    def label(self) -> str:
        """Short identity for logs, health and explanations: ``bm25#12@v40``."""
        return f"{self.kind}#{self.id}@v{self.corpus_version}"


Payload = bytes | Path
"""A file to publish: its bytes, or a path to stream it from."""


class ArtifactStore:
    """Publishes artifacts into Postgres and downloads them; shared by builders and replicas."""

    def __init__(self, db: Database, *, part_bytes: int = DEFAULT_PART_BYTES) -> None:
        self.db = db
        self.part_bytes = part_bytes

    def database_id(self) -> str:
        return database_id(self.db)

    def _embedding_model(self) -> dict[str, Any] | None:
        """The model the corpus's vectors came from (core.db.check_embedding_model records it)."""
        with self.db.connection() as conn:
            row = conn.execute("SELECT value FROM kgrag_meta WHERE key = 'embedding_model'").fetchone()
        return json.loads(row[0]) if row else None

    def current(self, kind: str, variant: str = "") -> Artifact | None:
        with self.db.connection() as conn:
            row = conn.execute(
                "SELECT a.id, a.kind, a.variant, a.corpus_version, a.sha256, a.bytes, a.manifest"
                " FROM kgrag_artifact_current c JOIN kgrag_artifacts a ON a.id = c.artifact_id"
                " WHERE c.kind = %s AND c.variant = %s", (kind, variant)).fetchone()
        return _artifact(row) if row else None

    def publish(self, kind: str, variant: str, corpus_version: int, files: Mapping[str, Payload],
                manifest: Mapping[str, Any]) -> Artifact:
        """Write the files and make them current, all in one transaction; returns what is current after.

        An artifact built from an older corpus than the current one is not published (two builders
        raced and the other finished first): the current one is returned. Older versions are deleted
        in the same transaction, so a deleted document's words do not outlive the rebuild that drops
        them; a replica still downloading one reads from its own snapshot and finishes.
        """
        digests = {name: _digest(payload) for name, payload in sorted(files.items())}
        sha = hashlib.sha256("".join(f"{n}:{d}\n" for n, d in digests.items()).encode()).hexdigest()
        total = sum(_size(p) for p in files.values())
        stamped = {**manifest, "database_id": self.database_id(), "embedding_model": self._embedding_model(),
                   "kind": kind, "variant": variant,
                   "corpus_version": corpus_version, "files": {n: {"sha256": d, "bytes": _size(files[n])}
                                                               for n, d in digests.items()}}
        try:
            with self.db.transaction() as conn:
                artifact_id = int(conn.execute(
                    "INSERT INTO kgrag_artifacts (kind, variant, corpus_version, sha256, bytes, manifest)"
                    " VALUES (%s, %s, %s, %s, %s, %s) RETURNING id",
                    (kind, variant, corpus_version, sha, total, Jsonb(stamped))).fetchone()[0])
                for name in sorted(files):
                    for seq, part in enumerate(_parts(files[name], self.part_bytes)):
                        conn.execute("INSERT INTO kgrag_artifact_parts (artifact_id, file, seq, data)"
                                     " VALUES (%s, %s, %s, %s)", (artifact_id, name, seq, part))
                # Only now is the pointer row locked: readers never wait on the upload.
                current = conn.execute(
                    "SELECT a.corpus_version, a.sha256 FROM kgrag_artifact_current c JOIN kgrag_artifacts a"
                    " ON a.id = c.artifact_id WHERE c.kind = %s AND c.variant = %s FOR UPDATE OF c",
                    (kind, variant)).fetchone()
                if current is not None and (int(current[0]) > corpus_version or current[1] == sha):
                    raise _Superseded  # newer, or these very bytes: roll the upload back
                conn.execute(
                    "INSERT INTO kgrag_artifact_current (kind, variant, artifact_id) VALUES (%s, %s, %s)"
                    " ON CONFLICT (kind, variant) DO UPDATE SET artifact_id = EXCLUDED.artifact_id,"
                    " published_at = now()", (kind, variant, artifact_id))
                conn.execute(
                    "DELETE FROM kgrag_artifacts a WHERE a.kind = %s AND a.id <> %s"
                    " AND NOT EXISTS (SELECT 1 FROM kgrag_artifact_current c WHERE c.artifact_id = a.id)",
                    (kind, artifact_id))
                conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, kind))
        except _Superseded:
            return self.current(kind, variant) or _missing(kind)
        return Artifact(artifact_id, kind, variant, corpus_version, sha, total, stamped)

    def oldest_current_version(self, kinds: tuple[str, ...]) -> int | None:
        """The lowest corpus version among the current artifacts of ``kinds`` (every variant); None if none."""
        with self.db.connection() as conn:
            row = conn.execute("SELECT min(a.corpus_version) FROM kgrag_artifact_current c JOIN kgrag_artifacts a"
                               " ON a.id = c.artifact_id WHERE c.kind = ANY(%s)", (list(kinds),)).fetchone()
        return None if row[0] is None else int(row[0])

    def retire(self, kind: str, variant: str = "") -> None:
        """Delete the current artifact of a kind (a delta folded into a new base): replicas stop finding it."""
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM kgrag_artifact_current WHERE kind = %s AND variant = %s", (kind, variant))
            conn.execute("DELETE FROM kgrag_artifacts WHERE kind = %s AND variant = %s", (kind, variant))

    def download(self, artifact: Artifact, folder: Path) -> Path:
        """The artifact's files in ``folder`` (made atomically: complete or absent), digests checked."""
        if folder.is_dir():
            return folder
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = folder.parent / f".tmp-{folder.name}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            hashes: dict[str, Any] = {}
            cursor_name = f"kgrag_dl_{uuid.uuid4().hex}"
            with self.db.connection() as conn, conn.transaction(), conn.cursor(name=cursor_name) as cur:
                cur.itersize = 4
                cur.execute("SELECT file, data FROM kgrag_artifact_parts WHERE artifact_id = %s ORDER BY file, seq",
                            (artifact.id,))
                handle = None
                name = None
                for file, data in cur:
                    if file != name:
                        if handle is not None:
                            handle.close()
                        name = file
                        handle = (tmp / _safe_name(file)).open("wb")
                        hashes[file] = hashlib.sha256()
                    assert handle is not None
                    handle.write(data)
                    hashes[file].update(data)
                if handle is not None:
                    handle.close()
            expected = artifact.manifest.get("files", {})
            got = {n: h.hexdigest() for n, h in hashes.items()}
            if set(got) != set(expected) or any(expected[n]["sha256"] != d for n, d in got.items()):
                raise ArtifactRefusedError(
                    f"the downloaded {artifact.label} does not match its digests (it was deleted or replaced "
                    "while being read)", fix="nothing to do: the next sync downloads the current version")
            try:
                tmp.rename(folder)
            except OSError:
                if not folder.is_dir():
                    raise
                # Another thread downloaded the same artifact meanwhile (a sync and a builder in one
                # process): its folder was renamed in whole, so it is complete; this copy goes.
                shutil.rmtree(tmp, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return folder


def check_database(manifest: Mapping[str, Any], expected: str, what: str, fix: str) -> None:
    """Refuse an artifact made against another database (or before artifacts carried the id)."""
    got = manifest.get("database_id")
    if got != expected:
        origin = f"another database (id {got})" if got else "an unknown database (it predates database ids)"
        raise ArtifactRefusedError(f"{what} was built against {origin}, not this one (id {expected}); "
                                   "it is not served", fix=fix)


def _artifact(row: Any) -> Artifact:
    return Artifact(int(row[0]), row[1], row[2], int(row[3]), row[4], int(row[5]), dict(row[6]))


def _missing(kind: str) -> Artifact:
    raise KgragError(f"the current {kind} artifact vanished while publishing", fix="retry the build")


def _digest(payload: Payload) -> str:
    h = hashlib.sha256()
    for part in _parts(payload, DEFAULT_PART_BYTES):
        h.update(part)
    return h.hexdigest()


def _size(payload: Payload) -> int:
    return len(payload) if isinstance(payload, bytes) else payload.stat().st_size


def _parts(payload: Payload, size: int) -> Any:
    if isinstance(payload, bytes):
        for start in range(0, max(len(payload), 1), size):
            yield payload[start : start + size]
        return
    with payload.open("rb") as fh:
        first = True
        while True:
            part = fh.read(size)
            if not part and not first:
                return
            yield part
            first = False
            if len(part) < size:
                return


def _safe_name(name: str) -> str:
    """Artifact file names come from the database: never let one climb out of its folder."""
    if "/" in name or "\\" in name or name in ("", ".", "..") or name.startswith("."):
        raise ArtifactRefusedError(f"artifact file name {name!r} is not a plain name", fix="rebuild the artifact")
    return name


def forget_published_deletions(store: Store, artifacts: ArtifactStore) -> None:
    """After a base is published: deletion-log rows older than every published base are read by no replica
    that has synced (core.store.Store.deleted_since), so the log stays as small as the deletes since."""
    oldest = artifacts.oldest_current_version((BM25, GRAPH))
    if oldest is not None:
        store.forget_deletions_through(oldest)
