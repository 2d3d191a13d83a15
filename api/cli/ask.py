"""`kgrag ask`: a cited answer to a question, streamed to the terminal, with its sources."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from kgrag.api.cli.common import WorkspaceOption, console, err_console, handle_errors, runtime
from kgrag.api.cli.questions import (
    FILTER_HELP,
    PREVIOUS_HELP,
    exit_if_store_empty,
    follow_up,
    parse_filters,
    parse_signals,
    print_standalone,
    print_warnings,
)
from kgrag.retrieval.answer.base import Answer
from kgrag.retrieval.answer.factory import answerer_for, make_answerer, resolve_backend
from kgrag.retrieval.answer.grounded import answer_stream, gate
from kgrag.retrieval.answer.hop import follow_bridge
from kgrag.retrieval.pipeline import build_pipeline
from kgrag.retrieval.sync import sync_for
from rich.markup import escape


@handle_errors
def ask(
    question: Annotated[str, typer.Argument(help="The question, in quotes.")],
    signals: Annotated[str | None, typer.Option(
        "--signals", help="Comma-separated subset of dense,bm25,graph (default: all three).")] = None,
    no_rerank: Annotated[bool, typer.Option("--no-rerank", help="Skip the cross-encoder.")] = False,
    filters: Annotated[list[str] | None, typer.Option("--filter", help=FILTER_HELP)] = None,
    previous: Annotated[list[str] | None, typer.Option("--previous", help=PREVIOUS_HELP)] = None,
    workspace: WorkspaceOption = None,
) -> None:
    """Answer QUESTION from your documents, citing the passages it rests on as \\[n].

    Uses Gemini when GEMINI_API_KEY (or Vertex AI settings) is configured, or any OpenAI-compatible
    server (Ollama, vLLM, llama.cpp) named by KGRAG_ANSWER__OPENAI_MODEL and KGRAG_ANSWER__OPENAI_BASE_URL,
    else an offline extractive answerer that says the short answer when it finds one, then quotes the
    sentences it rests on. When the evidence is too weak, or the passages lack what the question asks
    for (a salary, a date, the person it names), the answer is a refusal that says what was missing
    ("The documents don't say. No passage gives a salary for Marta Kask."), never a guess.

    Example:  kgrag ask "Who founded the company that acquired Lumen Robotics?"

    Example:  kgrag ask "What was the revenue?" --filter ticker=2330

    Example:  kgrag ask "Where does he work?" --previous "Who leads Project Heron?"
    """
    wanted = parse_signals(signals)
    where = parse_filters(filters)
    with runtime(light=True, workspace=workspace) as rt:
        # A generative backend missing its key or model fails here, before seconds of retrieval, with the fix.
        answerer = (make_answerer(rt.settings.answer) if resolve_backend(rt.settings.answer) != "extractive"
                    else None)
        with build_pipeline(rt, signals=wanted, builder=True) as pipe:
            sync_for(rt, pipe, start=False).sync_once()  # the graph and BM25 index the database publishes
            answerer = answerer or answerer_for(rt.settings.answer, embedder=rt.embedder, spacy=rt.spacy)
            if previous:
                standalone = follow_up(rt, pipe, answerer, question, previous, signals=wanted, filters=where)
                print_standalone(standalone)
                question = standalone.question
            result = follow_bridge(pipe.run(question, signals=wanted, rerank=not no_rerank, filters=where),
                                   lambda q: pipe.run(q, signals=wanted, rerank=not no_rerank, filters=where),
                                   rt.spacy(), rt.settings)
        exit_if_store_empty(result, rt.settings.home)
        print_warnings(result, rt.settings.home)
        final: Answer | None = None
        for event in answer_stream(result, gate(result, rt.settings, rt.spacy()), answerer, rt.settings):
            if isinstance(event, Answer):
                final = event
            else:
                sys.stdout.write(event)
                sys.stdout.flush()
    sys.stdout.write("\n")
    if final is None:  # pragma: no cover - every answer stream ends with an Answer
        raise typer.Exit(1)
    print_sources(final)


def print_sources(answer: Answer) -> None:
    if answer.warning:
        err_console.print(f"[bold yellow]warning:[/] {escape(answer.warning)}")
    if answer.refused:
        return
    if answer.mode == "extractive":
        console.print("[dim](extractive answer: no answer model is configured, so these are the passages' own "
                      "sentences)[/]")
    else:
        model = f", {answer.model}" if answer.model and answer.model != answer.mode else ""
        console.print(f"[dim]({answer.mode} answer{escape(model)})[/]")
    for c in answer.citations:
        page = f", page {c.page}" if c.page is not None else ""
        # the chunk's place in its document (1-based), not its database id: "chunk 26" of a 3-chunk file misleads
        part = f" (chunk {c.position + 1})" if c.position is not None else ""
        console.print(f"[bold][{c.number}][/] {escape(c.title)} — {escape(c.source)}{page}{part}")
    if answer.unresolved:
        err_console.print(f"[yellow]note:[/] {escape(answer.unresolved_note)}")
    if answer.unsupported:
        err_console.print(f"[yellow]note:[/] {escape(answer.unsupported_note)}")
