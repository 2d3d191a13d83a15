"""`kgrag query`: the ranked passages for a question, and with --explain why each one is there."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import typer
from kgrag.api.cli.common import WorkspaceOption, console, handle_errors, runtime
from kgrag.api.cli.questions import (
    FILTER_HELP,
    exit_if_store_empty,
    follow_up,
    parse_filters,
    parse_signals,
    print_standalone,
    print_warnings,
)
from kgrag.retrieval.pipeline import build_pipeline
from kgrag.retrieval.results import PassageHit, PipelineResult
from kgrag.retrieval.sync import sync_for
from rich.markup import escape
from rich.table import Table

SNIPPET_CHARS = 320


@handle_errors
def query(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    signals: Annotated[str | None, typer.Option(
        "--signals", help="Comma-separated subset of dense,bm25,graph. "
        "Default: KGRAG_RETRIEVAL__SIGNALS (all three).")] = None,
    top_k: Annotated[int | None, typer.Option(
        "--top-k", min=1, help="How many passages to show. Default: KGRAG_RETRIEVAL__TOP_K (5).")] = None,
    no_rerank: Annotated[bool, typer.Option(
        "--no-rerank", help="Skip the cross-encoder; passages stay in fused order.")] = False,
    explain: Annotated[bool, typer.Option(
        "--explain", help="Also show each signal's rank and score, the fused and rerank scores, "
        "and the time each stage took.")] = False,
    filters: Annotated[list[str] | None, typer.Option("--filter", help=FILTER_HELP)] = None,
    previous: Annotated[list[str] | None, typer.Option("--previous", help=(
        "An earlier question of the conversation, oldest first (repeat for more): QUESTION is then a follow-up, "
        "rewritten to stand alone; --explain shows the question that ran."))] = None,
    workspace: WorkspaceOption = None,
) -> None:
    """Find the passages that best answer QUESTION.

    Dense, BM25 and graph retrievers run in parallel; their rankings are fused, then a cross-encoder reranks.

    A stage that cannot run (no graph built yet, no reranker model) is printed as a warning.

    Example:  kgrag query "Who founded Lumen Robotics?" --signals dense,bm25 --top-k 3 --explain

    Example:  kgrag query "revenue growth" --filter ticker=2330
    """
    wanted = parse_signals(signals)
    where = parse_filters(filters)
    with runtime(light=True, workspace=workspace) as rt, build_pipeline(rt, signals=wanted, builder=True) as pipe:
        sync_for(rt, pipe, start=False).sync_once()  # the graph and BM25 index the database publishes
        if previous:
            from kgrag.retrieval.answer.factory import answerer_for

            answerer = answerer_for(rt.settings.answer, embedder=rt.embedder, spacy=rt.spacy)
            standalone = follow_up(rt, pipe, answerer, question, previous, signals=wanted, filters=where)
            if explain:
                print_standalone(standalone)
            question = standalone.question
        result = pipe.run(question, signals=wanted, top_k=top_k, rerank=not no_rerank, filters=where)
    exit_if_store_empty(result, rt.settings.home)
    print_result(result, home=rt.settings.home, explain=explain)


def print_result(result: PipelineResult, *, home: Path, explain: bool) -> None:
    print_warnings(result, home)
    if not result.hits:
        console.print("no passages found: try other words, more --signals, or check `kgrag documents list`")
    for hit in result.hits:
        _print_hit(hit, explain=explain)
    if explain:
        _print_explain(result)


def _print_hit(hit: PassageHit, *, explain: bool) -> None:
    page = f", page {hit.page}" if hit.page is not None else ""
    console.print(f"[bold]{hit.rank}. {escape(hit.title)}[/]  [dim]{escape(hit.source)}{page}[/]")
    console.print(f"   {escape(_snippet(hit.text))}", highlight=False)
    if explain:
        parts = [f"{signal} #{hit.ranks[signal]} ({hit.scores[signal]:.4g})" for signal in sorted(hit.ranks)]
        parts.append(f"fused {hit.fused_score:.4f}")
        if hit.rerank_score is not None:
            parts.append(f"rerank {hit.rerank_score:.4f}")
        console.print(f"   [cyan]{escape(' · '.join(parts))}[/]")
        graph = hit.explanations.get("graph", {})
        if graph.get("chain"):
            console.print(f"   [magenta]graph: {escape(graph['chain'])}[/]", highlight=False)
            for sentence in filter(None, graph.get("evidence", [])):
                console.print(f"   [dim]  “{escape(_snippet(sentence))}”[/]", highlight=False)


def _print_explain(result: PipelineResult) -> None:
    table = Table(title="time per stage")
    table.add_column("stage")
    table.add_column("status")
    table.add_column("ms", justify="right")
    for stage, seconds in result.timings.items():
        top = stage.split(".", 1)[0]
        status = result.statuses.get(top)
        state = status.state if status is not None and "." not in stage else ""
        if stage.endswith(".load"):
            state = "one-off load"
        table.add_row(stage, state, f"{seconds * 1000:.1f}")
    console.print(table)
    total, load = result.timings.get("total", 0.0), result.load_seconds
    console.print(f"query time {(total - load) * 1000:.1f} ms; model and index loading {load * 1000:.1f} ms "
                  "(a one-off cost of this process, not of the query)", highlight=False)
    if result.fusion_weights:
        graph_fusion = result.explanations.get("graph", {}).get("fusion_weight", {})
        basis, leads = graph_fusion.get("basis"), graph_fusion.get("leads", 0)
        weights = ", ".join(f"{s} {w:.3g}" + (f" ({basis} link)" if s == "graph" and basis else "")
                            for s, w in result.fusion_weights.items())
        if leads and graph_fusion.get("shared_with_agreement"):
            weights += (f"; the graph's first {leads} hits lead, sharing the first places with what dense and BM25 "
                        "agree on (the question names a document several others also write)")
        elif leads:
            weights += f"; the graph's first {leads} hits lead (the question names a document precisely)"
        console.print(f"[bold]fusion weights:[/] {escape(weights)}", highlight=False)
    for signal, details in result.explanations.items():
        shown = json.dumps(details, default=str, ensure_ascii=False)[:600]  # CJK tokens readable, not \uXXXX
        console.print(f"[bold]{signal}:[/] {escape(shown)}", highlight=False)


def _snippet(text: str) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"
