"""`kgrag query`: the ranked passages for a question, and with --explain why each one is there."""

from __future__ import annotations

import json
import re
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from api.cli_common import console, err_console, handle_errors, runtime
from retrieval.pipeline import KNOWN_SIGNALS, PassageHit, PipelineResult, build_pipeline

SNIPPET_CHARS = 320


def parse_signals(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    signals = tuple(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))
    unknown = [s for s in signals if s not in KNOWN_SIGNALS]
    if unknown or not signals:
        raise typer.BadParameter(f"{value!r}: use a comma-separated subset of {','.join(KNOWN_SIGNALS)}")
    return signals


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
) -> None:
    """Find the passages that best answer QUESTION.

    Dense, BM25 and graph retrievers run in parallel; their rankings are fused, then a cross-encoder reranks.

    A stage that cannot run (no graph built yet, no reranker model) is printed as a warning.

    Example:  kgrag query "Who founded Lumen Robotics?" --signals dense,bm25 --top-k 3 --explain
    """
    wanted = parse_signals(signals)
    with runtime() as rt, build_pipeline(rt, signals=wanted) as pipe:
        result = pipe.run(question, signals=wanted, top_k=top_k, rerank=not no_rerank)
    print_result(result, explain=explain)


def print_result(result: PipelineResult, *, explain: bool) -> None:
    for line in result.warnings:
        err_console.print(f"[bold yellow]warning:[/] {escape(line)}")
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


def _print_explain(result: PipelineResult) -> None:
    table = Table(title="time per stage")
    table.add_column("stage")
    table.add_column("status")
    table.add_column("ms", justify="right")
    for stage, seconds in result.timings.items():
        top = stage.split(".", 1)[0]
        status = result.statuses.get(top)
        state = status.state if status is not None and "." not in stage else ""
        table.add_row(stage, state, f"{seconds * 1000:.1f}")
    console.print(table)
    for signal, details in result.explanations.items():
        shown = json.dumps(details, default=str, ensure_ascii=False)[:600]  # CJK tokens readable, not \uXXXX
        console.print(f"[bold]{signal}:[/] {escape(shown)}", highlight=False)


def _snippet(text: str) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= SNIPPET_CHARS else flat[: SNIPPET_CHARS - 1].rstrip() + "…"
