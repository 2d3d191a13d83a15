"""API keys with a workspace and a role, and the audit log: both in the shared ``kgrag_registry`` schema.

A key is ``kgr_<id>_<secret>``: the id is its public handle (listed, revoked and written into the audit
log by it); the secret is 256 random bits. Only the SHA-256 of the whole key is stored, so the database
never holds a usable key and the plain key is shown once, at creation. A request's key is looked up on
every request (one indexed read): a revoked or expired key is refused by every replica at once, well
within the artifact poll interval the issue allows.

Roles are ordered: a reader may query, ask, chat, browse and export; a writer may also upload and delete
documents; an admin may also start builds and manage keys and workspaces. The keys in
``KGRAG_API__API_KEYS`` stay what they were before workspaces: admin keys of every workspace.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, cast

from kgrag.core.db import Database
from kgrag.core.errors import InvalidInputError, KgragError, NotFoundError
from kgrag.core.schema import REGISTRY
from kgrag.core.workspaces import check_name, missing
from pydantic import SecretStr

Role = Literal["reader", "writer", "admin"]
ROLES: tuple[Role, ...] = ("reader", "writer", "admin")
KEY_PREFIX = "kgr_"
CLI = "cli"
"""The audit log's key id for changes made with the command line (on the database host, no key)."""
OPEN = "open"
"""The key id of a request to an API with no keys at all (a local, single-user setup)."""


class ForbiddenError(KgragError):
    status_code = 403


def role_of(text: str) -> Role:
    if text not in ROLES:
        raise InvalidInputError(f"{text!r} is not a role", fix="use reader, writer or admin")
    return cast(Role, text)


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts as: a key's id, its workspace (None: every workspace) and its role."""

    key_id: str
    workspace: str | None
    role: Role

    def allows(self, role: Role) -> bool:
        return ROLES.index(self.role) >= ROLES.index(role)

    def require(self, role: Role, action: str) -> None:
        if not self.allows(role):
            raise ForbiddenError(f"this key's role ({self.role}) may not {action}",
                                 fix=f"use a key with the {role} role (`kgrag keys create --workspace W "
                                     f"--role {role}`)")

    def workspace_for(self, requested: str | None, default: str) -> str:
        """The workspace a request works in: the one it names, else the key's, else ``default``. A key for
        one workspace that names another is refused with the same words whether that one exists or not."""
        if self.workspace is None:
            return check_name(requested) if requested else default
        if requested and requested != self.workspace:
            raise ForbiddenError("this key is not valid for the workspace the request names",
                                 fix="send the request without a workspace (the key's own is used), or use a "
                                     "key made for that workspace")
        return self.workspace


@dataclass(frozen=True, slots=True)
class KeyInfo:
    id: str
    workspace: str
    role: Role
    label: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None

    @property
    def state(self) -> str:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= datetime.now(self.expires_at.tzinfo):
            return "expired"
        return "active"


_KEY_COLUMNS = "id, workspace, role, label, created_at, expires_at, revoked_at"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Keys:
    """Creates, lists, revokes and checks the keys stored in Postgres."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, workspace: str, role: Role, *, expires_at: datetime | None = None,
               label: str = "") -> tuple[str, KeyInfo]:
        """A new key: (the plain key, shown once and never stored; its record)."""
        check_name(workspace)
        key_id = secrets.token_hex(6)
        plain = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
        with self.db.transaction() as conn:
            if conn.execute(f"SELECT 1 FROM {REGISTRY}.workspaces WHERE name = %s", (workspace,)).fetchone() is None:
                raise missing(workspace)
            row = conn.execute(
                f"INSERT INTO {REGISTRY}.api_keys (id, key_sha256, workspace, role, label, expires_at)"
                f" VALUES (%s, %s, %s, %s, %s, %s) RETURNING {_KEY_COLUMNS}",
                (key_id, _digest(plain), workspace, role, label, expires_at)).fetchone()
        return plain, _key(row)

    def list(self, workspace: str | None = None) -> list[KeyInfo]:
        with self.db.connection() as conn:
            rows = conn.execute(
                f"SELECT {_KEY_COLUMNS} FROM {REGISTRY}.api_keys WHERE %s::text IS NULL OR workspace = %s"
                " ORDER BY workspace, created_at", (workspace, workspace)).fetchall()
        return [_key(r) for r in rows]

    def revoke(self, key_id: str) -> KeyInfo:
        with self.db.transaction() as conn:
            row = conn.execute(
                f"UPDATE {REGISTRY}.api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = %s"
                f" RETURNING {_KEY_COLUMNS}", (key_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"there is no key with id {key_id!r}", fix="list the keys with `kgrag keys list`")
        return _key(row)

    def any_active(self) -> bool:
        with self.db.connection() as conn:
            row = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {REGISTRY}.api_keys WHERE revoked_at IS NULL"
                               " AND (expires_at IS NULL OR expires_at > now()))").fetchone()
        return bool(row[0])

    def principal(self, token: str) -> Principal | None:
        """The active key ``token`` is, or None. Looked up by its digest, so nothing about the stored keys
        depends on how much of the token matched."""
        if not token.startswith(KEY_PREFIX):
            return None
        with self.db.connection() as conn:
            row = conn.execute(
                f"SELECT id, workspace, role FROM {REGISTRY}.api_keys WHERE key_sha256 = %s"
                " AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())",
                (_digest(token),)).fetchone()
        return Principal(row[0], row[1], row[2]) if row else None


def env_principal(keys: Sequence[SecretStr], token: str) -> Principal | None:
    """``token`` as one of KGRAG_API__API_KEYS: an admin of every workspace, audited as ``env:N``.
    Every key is compared, each in constant time, so timing says nothing about which matched."""
    given = token.encode()
    found: int | None = None
    for i, key in enumerate(keys):
        if hmac.compare_digest(given, key.get_secret_value().encode()):
            found = i
    return Principal(f"env:{found + 1}", None, "admin") if found is not None else None


def _key(row: tuple) -> KeyInfo:  # type: ignore[type-arg]
    return KeyInfo(row[0], row[1], row[2], row[3], row[4], row[5], row[6])


@dataclass(frozen=True, slots=True)
class AuditEntry:
    at: datetime
    key_id: str
    workspace: str
    action: str
    target: str


class Audit:
    """Each write, delete, build and key or workspace change: who (a key id, never the key), where, when."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def record(self, key_id: str, workspace: str, action: str, target: str = "") -> None:
        with self.db.transaction() as conn:
            conn.execute(f"INSERT INTO {REGISTRY}.audit (key_id, workspace, action, target) VALUES (%s, %s, %s, %s)",
                         (key_id, workspace, action, target))

    def list(self, *, workspace: str | None = None, limit: int = 100) -> list[AuditEntry]:
        with self.db.connection() as conn:
            rows = conn.execute(
                f"SELECT at, key_id, workspace, action, target FROM {REGISTRY}.audit"
                " WHERE %s::text IS NULL OR workspace = %s ORDER BY at DESC, id DESC LIMIT %s",
                (workspace, workspace, limit)).fetchall()
        return [AuditEntry(*r) for r in rows]
