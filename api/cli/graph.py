"""`kgrag graph …`: build the knowledge graph offline, show its size, export it."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from kgrag.api.cli.common import (
    CliApp,
    ExecutorOption,
    RayAddressOption,
    WorkspaceOption,
    console,
    executor_settings,
    handle_errors,
    progress_bar,
    runtime,
)
from kgrag.core.access import CLI, Audit
from kgrag.core.errors import GraphMissingError
from kgrag.core.runtime import Runtime
from kgrag.core.settings import ExecutorSettings
from rich.table import Table

if TYPE_CHECKING:
    from kgrag.kg.build import BuildReport

graph_app = CliApp(help="Build, inspect and export the knowledge graph.", no_args_is_help=True)


class ExportFormat(StrEnum):
    graphml = "graphml"
    json = "json"
    html = "html"


class RankBy(StrEnum):
    pagerank = "pagerank"
    degree = "degree"


def run_build(rt: Runtime, *, rebuild: bool, processes: int | None = None,
              executor: ExecutorSettings | None = None, full: bool = False) -> BuildReport:
    """The build as the CLI runs it (tests call this too): spaCy loaded once, progress on a terminal."""
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore

    nlp = rt.spacy()
    graph_settings = rt.settings.graph
    if processes is not None:
        graph_settings = graph_settings.model_copy(update={"processes": processes})
    with progress_bar("extracting entities") as progress:
        task = progress.add_task("extracting entities", total=None)
        return build_graph(
            GraphStore(rt.db), graph_settings, rt.settings.graph_path, nlp, rebuild=rebuild,
            on_total=lambda n: progress.update(task, total=n), on_progress=lambda n: progress.advance(task, n),
            executor=executor or rt.settings.executor,
            on_stage=lambda name: progress.update(task, description=name), embedder=rt.embedder, full=full,
        )


def build_mode(report: BuildReport) -> str:
    """What kind of build ran, in words. The first build of a store read "incremental, delta 0, processed 12"
    (issue 46): it extracted every chunk, so it is whole; a build that found nothing new is "up to date"."""
    if report.rebuilt:
        return "rebuild (every chunk again)"
    if report.delta_chunks:
        return "delta"
    if not report.chunks_processed:
        return "up to date (nothing new)"
    if report.chunks_processed >= report.chunks_covered:
        return "whole (every chunk)"
    return "incremental (new chunks only)"


@graph_app.command("build")
@handle_errors
def build(
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Re-extract every chunk, not only new ones.")] = False,
    full: Annotated[bool, typer.Option(
        "--full", help="Write the whole graph even where additions would go out as a delta (a graph of "
                       "KGRAG_GRAPH__DELTA_MIN_CHUNKS or more): folds the delta in and drops deleted documents' "
                       "words from the published graph.")] = False,
    processes: Annotated[int | None, typer.Option(
        "--processes", "-p", min=0, max=32,
        help="spaCy worker processes; 0 (the default, KGRAG_GRAPH__PROCESSES) is one per core, at most 4. "
             "1 parses in this process. Ignored with --executor ray.")] = None,
    executor: ExecutorOption = None,
    ray_address: RayAddressOption = None,
    workspace: WorkspaceOption = None,
) -> None:
    """Extract entities and relations from chunks not yet processed and write the graph file.

    Runs offline (spaCy, no LLM). Only one build runs at a time per database; a second is refused.
    Interrupting a build is safe: the previous graph file keeps serving and the next build resumes.

    On a graph of KGRAG_GRAPH__DELTA_MIN_CHUNKS chunks or more (50,000 by default), what was added since the
    last whole build is published as a delta beside it in seconds, until it passes KGRAG_GRAPH__DELTA_MAX_SHARE
    of the graph; then the build is whole again.

    Example:  kgrag graph build            (incremental)
              kgrag graph build --full     (whole: folds a delta in)
              kgrag graph build --rebuild  (everything again)
              kgrag graph build -p 1       (one process: less memory, slower on a multi-core machine)
              KGRAG_GRAPH__EXTRACTION=syntax kgrag graph build   (adds verb-labelled relations; ~2x slower)
              kgrag graph build --executor ray                  (spaCy on a local Ray, one actor per core)
              kgrag graph build --ray-address ray://head:10001  (spaCy on a Ray cluster; needs kgrag\\[ray])
    """
    with runtime(workspace=workspace) as rt:
        report = run_build(rt, rebuild=rebuild, processes=processes,
                           executor=executor_settings(rt.settings, executor, ray_address), full=full)
        Audit(rt.database).record(CLI, rt.settings.workspace, "graph.build", "rebuild" if rebuild else "incremental")
    table = Table(title="graph build")
    table.add_column("")
    table.add_column("value", justify="right")
    for name, value in (
        ("mode", build_mode(report)), *((("chunks in the delta", report.delta_chunks),) if report.delta_chunks else ()),
        ("chunks processed now", report.chunks_processed), ("chunks covered", report.chunks_covered),
        ("entities", report.entities), ("relations", report.relations), ("edges", report.edges),
        ("entities pruned", report.pruned_entities), ("corpus version", report.corpus_version),
        ("file bytes", report.file_bytes), ("link sentences embedded", report.link_sentences_embedded),
        ("seconds", f"{report.seconds:.1f}"),
    ):
        table.add_row(name, str(value))
    console.print(table)
    if report.delta_chunks:
        console.print(f"published a delta over the graph file {report.path} (`kgrag graph build --full` folds it in)")
    elif not report.chunks_processed and not report.rebuilt:
        console.print(f"graph up to date: no chunk is new since the last build ({report.path})")
    else:
        console.print(f"graph file: {report.path}")


@graph_app.command("stats")
@handle_errors
def stats(
    top: Annotated[int, typer.Option(min=0, help="Also list this many entities by PageRank.")] = 10,
    workspace: WorkspaceOption = None,
) -> None:
    """Show what the graph file holds, whether it is stale, and the stored extraction counts.

    Example:  kgrag graph stats --top 20
    """
    from kgrag.kg.holder import read_served_networkx
    from kgrag.kg.store import GraphStore
    from kgrag.retrieval.sync import fetch_published_graph

    with runtime(workspace=workspace) as rt:
        fetch_published_graph(rt)
        path = rt.settings.graph_path
        counts = GraphStore(rt.db).counts()
        version = rt.store.corpus_version()
        g = read_served_networkx(path) if path.exists() else None
    console.print(f"database: {counts['entities']} entities, {counts['mentions']} mentions, "
                  f"{counts['relations']} relations; "
                  f"{counts['processed_chunks']} of {counts['chunks']} chunks processed")
    if g is None:
        console.print(f"no graph file at {path}: run `kgrag graph build`")
        return
    manifest = g.graph.get("manifest", {})
    built = manifest.get("corpus_version")
    freshness = "current" if built == version else f"STALE (corpus is at version {version}): run `kgrag graph build`"
    delta = manifest.get("delta")
    laid = (f"base built at corpus version {delta['base_version']} with a delta of {delta['chunks']} chunks to "
            f"version {built}" if delta else f"built at corpus version {built}")
    console.print(f"graph file {path}: {g.number_of_nodes()} entities, {g.number_of_edges()} edges, "
                  f"{laid} — {freshness}")
    console.print(f"spaCy model {manifest.get('params', {}).get('spacy_model_version')}")
    if top:
        table = Table(title=f"top {top} entities by PageRank")
        for col in ("entity", "type", "mentions", "degree", "pagerank"):
            table.add_column(col)
        ranked = sorted(g.nodes(data=True), key=lambda nd: (-nd[1].get("pagerank", 0.0), nd[0]))[:top]
        for node, data in ranked:
            table.add_row(data.get("name", node), data.get("label", ""), str(data.get("mentions", 0)),
                          str(g.degree(node)), f"{data.get('pagerank', 0.0):.5f}")
        console.print(table)


@graph_app.command("export")
@handle_errors
def export(
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="graphml, json (node-link) or html.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="File to write.")],
    entity: Annotated[str | None, typer.Option(help="Only this entity's neighbourhood.")] = None,
    hops: Annotated[int, typer.Option(min=1, max=4, help="Neighbourhood depth with --entity.")] = 1,
    top: Annotated[int | None, typer.Option(min=1, help="Only the N most important entities.")] = None,
    by: Annotated[RankBy, typer.Option(help="Importance for --top: pagerank or degree.")] = RankBy.pagerank,
    workspace: WorkspaceOption = None,
) -> None:
    """Export the graph (or a subgraph) for other tools or as a self-contained HTML view.

    The HTML file is the web UI's Graph page with its views inlined, and works offline: an overview
    of the most useful entities (or --entity's surroundings), search, and each exported entity's
    neighbourhood with the sentences behind its links. --top bounds how many entities get one
    (default 300); --by applies to graphml and json.

    Example:  kgrag graph export -f html -o graph.html --entity "Lumen Robotics" --hops 2
              kgrag graph export -f graphml -o graph.graphml --top 500 --by degree
    """
    from kgrag.kg import export as ex
    from kgrag.kg.holder import read_served_networkx
    from kgrag.kg.store import GraphStore
    from kgrag.retrieval.sync import fetch_published_graph

    with runtime(workspace=workspace) as rt:
        fetch_published_graph(rt)
        path = rt.settings.graph_path
        if not path.exists():
            raise GraphMissingError(f"no graph file at {path}", fix="run `kgrag graph build` first")
        g = ex.live_view(read_served_networkx(path), rt.store)  # nothing from a document deleted since the build
        if fmt is ExportFormat.html:
            from kgrag.api.ui_export import live_page

            page, payload = live_page(g, path, GraphStore(rt.db).chunk_texts, entity=entity, hops=hops, top=top,
                                      document_edge_weight=rt.settings.graph.document_edge_weight)
            output.write_text(page, encoding="utf-8")
            console.print(f"wrote {output} (an overview of {len(payload['overview']['nodes'])} entities; "
                          f"neighbourhoods of {len(payload['entities'])})")
            return
        sub = ex.subgraph(g, entity=entity, hops=hops, top=top, by=by.value)
        if fmt is ExportFormat.graphml:
            ex.write_graphml(sub, output)
        else:
            ex.write_json(sub, output)
    console.print(f"wrote {output} ({sub.number_of_nodes()} entities, {sub.number_of_edges()} edges)")
