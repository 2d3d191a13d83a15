"""The `kgrag` command line: a thin layer over the core. `kgrag COMMAND --help` explains each command."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from kgrag.api.cli.access import audit as audit_command
from kgrag.api.cli.access import keys_app, workspace_app
from kgrag.api.cli.ask import ask as ask_command
from kgrag.api.cli.common import (
    CliApp,
    ExecutorKind,
    ExecutorOption,
    RayAddressOption,
    WorkspaceOption,
    console,
    err_console,
    executor_settings,
    handle_errors,
    load_settings,
    progress_bar,
    runtime,
)
from kgrag.api.cli.eval import eval_app
from kgrag.api.cli.graph import graph_app
from kgrag.api.cli.mcp_command import mcp as mcp_command
from kgrag.api.cli.query import query as query_command
from kgrag.api.cli.serve import serve as serve_command
from kgrag.api.doctor import run_checks
from kgrag.core.access import CLI, Audit
from kgrag.ingest.pipeline import Ingestor, IngestReport
from kgrag.retrieval.maintenance import delete_document_everywhere, describe_index, publish_bm25
from rich.markup import escape
from rich.table import Table

app = CliApp(
    name="kgrag",
    help="Knowledge-graph-augmented RAG over your own documents.\n\n"
    "Typical session:  kgrag ingest examples/  →  kgrag graph build  →  kgrag ask \"…\"\n\n"
    "Configuration comes from KGRAG_* environment variables or a .env file "
    "(e.g. KGRAG_HOME=./.kgrag, KGRAG_DATABASE__URL=postgresql://…).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
documents_app = CliApp(help="List or delete stored documents.", no_args_is_help=True)
app.add_typer(documents_app, name="documents")
index_app = CliApp(help="The BM25 index every replica serves (built here, published in the database).",
                        no_args_is_help=True)
app.add_typer(index_app, name="index")
app.add_typer(graph_app, name="graph")
app.add_typer(eval_app, name="eval")
app.add_typer(workspace_app, name="workspace")
app.add_typer(keys_app, name="keys")
app.command("serve")(serve_command)
app.command("mcp")(mcp_command)
app.command("query")(query_command)
app.command("ask")(ask_command)


@app.command()
@handle_errors
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or folders (searched recursively).")],
    allow_duplicates: Annotated[bool, typer.Option(
        "--allow-duplicates", help="Store a file even when another stored file has the same bytes.")] = False,
    follow_outside_links: Annotated[bool, typer.Option(
        "--follow-outside-links",
        help="Also ingest what links inside a folder point to outside it (skipped by default, with a message).",
    )] = False,
    executor: ExecutorOption = None,
    ray_address: RayAddressOption = None,
    workspace: WorkspaceOption = None,
) -> None:
    """Ingest PDF, Word (.docx), Markdown, text, HTML and CSV files into the store.

    Unchanged files are skipped, changed files replace their old version atomically, and a file
    that cannot be read is reported (and listed as failed by `kgrag documents list`) while the rest
    of the batch goes in. A file with the same bytes as one already stored under another name is
    reported as a duplicate and not stored twice, unless --allow-duplicates. Files of other types in
    a folder are counted and listed as skipped.

    With --executor ray the embedding step runs on Ray actors (loading, chunking and writing stay here).

    Example:  kgrag ingest examples/ notes/report.pdf
              kgrag ingest corpus/ --ray-address ray://head:10001   (embed on a Ray cluster; needs kgrag\\[ray])
    """
    load_settings()  # a misspelt setting is refused even when there is nothing to read
    report = Ingestor.nothing_to_read(paths, follow_outside_links=follow_outside_links)
    if report is None:
        report = _ingest(paths, allow_duplicates=allow_duplicates, follow_outside_links=follow_outside_links,
                         executor=executor, ray_address=ray_address, workspace=workspace)
    table = Table(title="ingest summary")
    for col in ("outcome", "files"):
        table.add_column(col)
    table.add_row("added", str(len(report.added)))
    table.add_row("replaced", str(len(report.replaced)))
    table.add_row("unchanged (skipped)", str(len(report.unchanged)))
    table.add_row("duplicate (skipped)", str(len(report.duplicates)))
    table.add_row("other type or outside link (skipped)", str(len(report.skipped)))
    table.add_row("failed", str(len(report.failed)))
    console.print(table)
    console.print(f"{report.chunks_written} chunks written")
    for source, twin in report.duplicates:
        err_console.print(f"[yellow]duplicate:[/] {escape(source)} has the same bytes as {escape(twin)}; "
                          "not stored again (pass --allow-duplicates to store it anyway)")
    for source, reason in report.skipped:
        err_console.print(f"[yellow]skipped:[/] {escape(source)}: {escape(reason)}")
    for source, reason in report.failed:
        err_console.print(f"[red]failed:[/] {escape(source)}: {escape(reason)}")
    if report.failed and not (report.added or report.replaced or report.unchanged or report.duplicates):
        raise typer.Exit(1)


def _ingest(paths: list[Path], *, allow_duplicates: bool, follow_outside_links: bool,
            executor: ExecutorKind | None, ray_address: str | None, workspace: str | None = None) -> IngestReport:
    with runtime(workspace=workspace) as rt:
        ingestor = Ingestor.from_runtime(rt, allow_duplicates=allow_duplicates,
                                         executor=executor_settings(rt.settings, executor, ray_address))
        with progress_bar("ingesting") as progress:
            task = progress.add_task("ingesting", total=None)
            report = ingestor.ingest_paths(
                paths,
                on_total=lambda n: progress.update(task, total=n),
                on_file=lambda _src: progress.advance(task),
                follow_outside_links=follow_outside_links,
            )
        audit = Audit(rt.database)
        for action, sources in (("document.added", report.added), ("document.replaced", report.replaced)):
            for source in sources:
                audit.record(CLI, rt.settings.workspace, action, str(report.document_ids.get(source, "")))
        if report.added or report.replaced:
            with console.status("publishing the BM25 index"):
                index = publish_bm25(rt)
            console.print(f"BM25 index published at corpus version {index.serving_version} ({describe_index(index)})")
    return report


@documents_app.command("list")
@handle_errors
def documents_list(
    limit: Annotated[int, typer.Option(min=1, help="At most this many rows.")] = 100,
    offset: Annotated[int, typer.Option(min=0, help="Skip this many rows first.")] = 0,
    workspace: WorkspaceOption = None,
) -> None:
    """List stored documents with their ids (for `kgrag documents delete ID`).

    Example:  kgrag documents list --limit 20
    """
    with runtime(workspace=workspace) as rt:
        docs = rt.store.list_documents(limit=limit, offset=offset)
    table = Table()
    for col in ("id", "status", "title", "source", "type", "chunks"):
        table.add_column(col)
    for d in docs:
        table.add_row(str(d.id), d.status, escape(d.title), escape(d.source), d.mime_type, str(d.chunk_count))
    console.print(table)
    if not docs:
        console.print("no documents yet: run `kgrag ingest PATH`")
    for d in docs:
        if d.status_reason:
            style = "red" if d.status == "failed" else "yellow"
            console.print(f"[{style}]{d.status} {d.id}:[/] {escape(d.source)}: {escape(d.status_reason)}")
    if any(d.status == "pending" for d in docs):
        console.print("pending: accepted but not stored whole (an ingest was stopped); run `kgrag ingest` on "
                      "them again")


@documents_app.command("delete")
@handle_errors
def documents_delete(
    document_id: Annotated[int, typer.Argument(help="The id shown by `kgrag documents list`.")],
    workspace: WorkspaceOption = None,
) -> None:
    """Delete a document and everything derived from it (chunks, graph evidence, its words in the BM25 index).

    Example:  kgrag documents delete 3
    """
    with runtime(workspace=workspace) as rt:
        record = delete_document_everywhere(rt, document_id)
        Audit(rt.database).record(CLI, rt.settings.workspace, "document.delete", str(record.id))
    console.print(f"deleted document {record.id} ({record.source}, {record.chunk_count} chunks)")


@index_app.command("build")
@handle_errors
def index_build(
    force: Annotated[bool, typer.Option("--force", help=(
        "Rebuild the whole index even when the published one is current (folds a large corpus's delta into "
        "a new base)."))] = False,
    workspace: WorkspaceOption = None,
) -> None:
    """Build the BM25 index from the database and publish it to every replica.

    `kgrag ingest` and `kgrag documents delete` do this themselves, and a running `kgrag serve`
    rebuilds in the background after uploads, so this is for a database written by other means, an
    upgrade, or a change of BM25 parameters. Replicas swap to the new index without a restart.
    Past 50,000 chunks a change is published as a delta beside the index (seconds); --force folds
    it into a whole new index at once.

    Example:  kgrag index build
    """
    t0 = time.perf_counter()
    with runtime(workspace=workspace) as rt, console.status("building the BM25 index"):
        index = publish_bm25(rt, force=force)
        Audit(rt.database).record(CLI, rt.settings.workspace, "index.build", f"v{index.serving_version}")
    console.print(f"BM25 index published at corpus version {index.serving_version} ({describe_index(index)}) in "
                  f"{time.perf_counter() - t0:.1f} s")


@app.command()
@handle_errors
def doctor() -> None:
    """Check the data home, the database, what it stores, pgvector and the models; say how to fix what fails.

    It names the data home and database it checked and warns when the store is empty (a second home,
    another folder or a missing KGRAG_HOME, is the usual reason a query finds nothing). It loads no model.

    Example:  kgrag doctor
    """
    with runtime() as rt:
        checks = run_checks(rt)
    failed = False
    for check in checks:
        mark = "[green]ok[/]" if check.ok else ("[red]FAIL[/]" if check.required else "[yellow]warn[/]")
        console.print(f"{mark}  {check.name}: {check.detail}")
        if not check.ok and check.fix:
            console.print(f"      fix: {check.fix}")
        failed |= check.required and not check.ok
    if failed:
        raise typer.Exit(1)


app.command("audit")(audit_command)  # after the corpus commands in `kgrag --help`


def main() -> None:
    app()

