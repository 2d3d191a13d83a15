"""`kgrag workspace …`, `kgrag keys …` and `kgrag audit`: who may read what (core/workspaces.py, core/access.py).

These act on the database directly, as whoever can reach it: run them where the database's
credentials are (an admin's shell). Every change is written to the audit log under the key id ``cli``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer
from kgrag.api.cli.common import CliApp, console, handle_errors, load_settings
from kgrag.core.access import CLI, Audit, Keys, role_of
from kgrag.core.errors import InvalidInputError
from kgrag.core.runtime import Runtime
from kgrag.core.workspaces import check_name
from rich.markup import escape
from rich.table import Table

workspace_app = CliApp(help="Create, list and delete workspaces: separate corpora (documents, graph, indexes) "
                            "in one database.", no_args_is_help=True)
keys_app = CliApp(help="Create, list and revoke API keys, each for one workspace with one role.",
                  no_args_is_help=True)

_DURATION = re.compile(r"(\d+)([dhm])")


def parse_expiry(text: str, now: datetime | None = None) -> datetime:
    """``30d``, ``12h``, ``90m`` from now, or an ISO date/time (UTC unless it says otherwise)."""
    now = now or datetime.now(UTC)
    if m := _DURATION.fullmatch(text.strip()):
        unit = {"d": "days", "h": "hours", "m": "minutes"}[m.group(2)]
        return now + timedelta(**{unit: int(m.group(1))})
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InvalidInputError(f"--expires {text!r} is neither a duration nor a date",
                                fix="write e.g. 30d, 12h, 90m, or 2027-01-31 (or 2027-01-31T18:00+01:00)") from None
    when = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    if when <= now:
        raise InvalidInputError(f"--expires {text!r} is in the past", fix="give a time in the future")
    return when


def _stamp(when: datetime | None) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC") if when is not None else ""


@workspace_app.command("create")
@handle_errors
def workspace_create(name: Annotated[str, typer.Argument(help="Lowercase letters, digits and _, from a letter.")]
                     ) -> None:
    """Create an empty workspace: its own documents, chunks, graph, indexes and jobs.

    Example:  kgrag workspace create legal
              kgrag ingest contracts/ --workspace legal
    """
    check_name(name)
    with Runtime(load_settings()) as rt:
        rt.workspaces.create(name)
        Audit(rt.database).record(CLI, name, "workspace.create", name)
    console.print(f"workspace {name} created; make a key for it with "
                  f"`kgrag keys create --workspace {name} --role reader`")


@workspace_app.command("list")
@handle_errors
def workspace_list() -> None:
    """List the workspaces with their document counts.

    Example:  kgrag workspace list
    """
    with Runtime(load_settings()) as rt:
        spaces = rt.workspaces.list()
    table = Table()
    for col in ("name", "documents", "created"):
        table.add_column(col)
    for w in spaces:
        table.add_row(w.name, "" if w.documents is None else str(w.documents), _stamp(w.created_at))
    console.print(table)


@workspace_app.command("delete")
@handle_errors
def workspace_delete(
    name: Annotated[str, typer.Argument(help="The workspace to delete, with everything in it.")],
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete a workspace: its documents, chunks, graph, indexes, jobs and keys, and its files in this
    data home (its audit rows are kept). Other replicas refuse its keys at once. It cannot be undone.

    Example:  kgrag workspace delete legal --yes
    """
    check_name(name)
    if not yes:
        typer.confirm(f"delete workspace {name} and everything in it?", abort=True)
    with Runtime(load_settings()) as rt:
        rt.workspaces.delete(name, folder=rt.settings.for_workspace(name).workspace_home)
        Audit(rt.database).record(CLI, name, "workspace.delete", name)
    console.print(f"workspace {name} deleted")


@keys_app.command("create")
@handle_errors
def keys_create(
    workspace: Annotated[str, typer.Option("--workspace", "-w", help="The workspace the key may use.")],
    role: Annotated[str, typer.Option(
        "--role", help="reader: query, ask, chat, browse, export. writer: also upload and delete documents. "
                       "admin: also start builds.")] = "reader",
    expires: Annotated[str | None, typer.Option(
        "--expires", metavar="WHEN", help="30d, 12h, 90m from now, or a date (2027-01-31). Default: never.")] = None,
    label: Annotated[str, typer.Option("--label", help="A note for `kgrag keys list` (whose key it is).")] = "",
) -> None:
    """Create an API key for one workspace. The key is printed once: only its hash is stored.

    Example:  kgrag keys create --workspace legal --role reader --expires 90d --label "legal bot"
    """
    check_name(workspace)
    chosen = role_of(role)
    when = parse_expiry(expires) if expires else None
    with Runtime(load_settings()) as rt:
        plain, info = Keys(rt.database).create(workspace, chosen, expires_at=when, label=label)
        Audit(rt.database).record(CLI, workspace, "key.create", info.id)
    console.print(f"key {info.id} ({info.role} of {info.workspace}"
                  + (f", expires {_stamp(info.expires_at)}" if info.expires_at else "") + "):")
    print(plain)
    console.print("store it now: it is not shown again (send it as `Authorization: Bearer <key>`)")


@keys_app.command("list")
@handle_errors
def keys_list(
    workspace: Annotated[str | None, typer.Option("--workspace", "-w", help="Only this workspace's keys.")] = None,
) -> None:
    """List the keys (ids, never the keys themselves), their workspaces, roles and states.

    Example:  kgrag keys list --workspace legal
    """
    with Runtime(load_settings()) as rt:
        keys = Keys(rt.database).list(check_name(workspace) if workspace else None)
    table = Table()
    for col in ("id", "workspace", "role", "state", "label", "created", "expires"):
        table.add_column(col, no_wrap=col == "id")
    for k in keys:
        table.add_row(k.id, k.workspace, k.role, k.state, escape(k.label), _stamp(k.created_at), _stamp(k.expires_at))
    console.print(table)


@keys_app.command("revoke")
@handle_errors
def keys_revoke(key_id: Annotated[str, typer.Argument(help="The id shown by `kgrag keys list`.")]) -> None:
    """Revoke a key: every replica refuses it from its next request on.

    Example:  kgrag keys revoke 3f9a0c1b2d4e
    """
    with Runtime(load_settings()) as rt:
        info = Keys(rt.database).revoke(key_id)
        Audit(rt.database).record(CLI, info.workspace, "key.revoke", info.id)
    console.print(f"key {info.id} ({info.role} of {info.workspace}) revoked")


@handle_errors
def audit(
    workspace: Annotated[str | None, typer.Option("--workspace", "-w", help="Only this workspace's entries.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many entries, newest first.")] = 100,
) -> None:
    """List the audit log: each upload, delete, build, key and workspace change, with the key id that made
    it (`cli` for this command line, `env:N` for the N-th KGRAG_API__API_KEYS key), newest first.

    Example:  kgrag audit --workspace legal --limit 20
    """
    with Runtime(load_settings()) as rt:
        entries = Audit(rt.database).list(workspace=check_name(workspace) if workspace else None, limit=limit)
    table = Table()
    for col in ("time", "workspace", "key", "action", "target"):
        table.add_column(col)
    for e in entries:
        table.add_row(_stamp(e.at), e.workspace, e.key_id, e.action, escape(e.target))
    console.print(table)
    if not entries:
        console.print("no audit entries yet")
