"""What `kgrag query` and `kgrag ask` share: reading their options, an empty store's exit, warnings, and a
follow-up question made standalone. Both commands import it; neither imports the other."""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from kgrag.api.cli.common import err_console
from kgrag.core.types import Filters
from kgrag.retrieval.pipeline import KNOWN_SIGNALS
from kgrag.retrieval.results import PipelineResult
from rich.markup import escape

if TYPE_CHECKING:
    from kgrag.core.runtime import Runtime
    from kgrag.retrieval.answer.base import Answerer
    from kgrag.retrieval.conversation import Standalone
    from kgrag.retrieval.pipeline import QueryPipeline


def parse_signals(value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    signals = tuple(dict.fromkeys(s.strip() for s in value.split(",") if s.strip()))
    unknown = [s for s in signals if s not in KNOWN_SIGNALS]
    if unknown or not signals:
        raise typer.BadParameter(f"{value!r}: use a comma-separated subset of {','.join(KNOWN_SIGNALS)}")
    return signals


def parse_filters(values: list[str] | None) -> Filters | None:
    """``key=value`` pairs, ANDed: exact matches on document metadata (e.g. Markdown front matter)."""
    if not values:
        return None
    pairs: dict[str, str] = {}
    for item in values:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise typer.BadParameter(f"{item!r}: write a metadata filter as key=value, e.g. --filter ticker=2330")
        pairs[key.strip()] = value.strip()
    return Filters(metadata=tuple(sorted(pairs.items())))


FILTER_HELP = ("Only documents whose metadata has key=value (Markdown front matter, API metadata); "
               "repeat to require several, e.g. --filter ticker=2330 --filter year=2024.")


EMPTY_STORE_EXIT = 3
"""Distinct from 1 (an error) and 0 (an answer): a script can tell "nothing ingested" apart."""


def exit_if_store_empty(result: PipelineResult, home: Path) -> None:
    """An empty store is not "no passage matched": say so, naming the data home (a second home is the usual
    cause, e.g. another folder or a missing KGRAG_HOME), with the fix, and exit non-zero."""
    if result.corpus_empty:
        err_console.print(f"[bold red]error:[/] the store is empty: no documents have been ingested into the data "
                          f"home {escape(str(home.resolve()))} yet")
        err_console.print("[bold]fix:[/] run `kgrag ingest PATH` (files or folders), then ask again; or set "
                          "KGRAG_HOME to the home you ingested into (`kgrag doctor` shows which one it uses)")
        raise typer.Exit(EMPTY_STORE_EXIT)


NOTES_SAID = "notes-said"
"""Folder under the data home holding one empty file per note already said there (see ``say_once``)."""


def say_once(home: Path, stage: str, reason: str) -> bool:
    """Whether a condition of the whole setup (no reranker weights) is still to be said in this data home, marking
    it said. A newcomer's every `kgrag query` and `ask` printed the same 430-character rerank note (issue 46):
    now it is one line on the first run in a home, and again only when the reason changes (another model);
    `kgrag doctor` says it every time, with the fix. A home that cannot be written says it every time."""
    digest = hashlib.sha256(f"{stage}\0{reason}".encode()).hexdigest()[:16]
    marker = home / NOTES_SAID / f"{stage}-{digest}"
    if marker.exists():
        return False
    with contextlib.suppress(OSError):
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    return True


def print_warnings(result: PipelineResult, home: Path) -> None:
    """A condition of the setup (no reranker weights) as one short line, the first time in this data home;
    then this query's warnings, every time."""
    for stage, status in result.statuses.items():
        if status.permanent and status.state != "ran" and say_once(home, stage, status.reason):
            err_console.print(f"[yellow]note:[/] {stage} is off: its model cannot load here (`kgrag doctor` says "
                              "why and how to fix it); said once per data home", soft_wrap=True, highlight=False)
    for line in result.warnings:
        err_console.print(f"[bold yellow]warning:[/] {escape(line)}")


PREVIOUS_HELP = ("An earlier question of the conversation, oldest first (repeat for more): QUESTION is then a "
                 "follow-up, rewritten to stand alone (\"Where does he work?\" after \"Who leads Project Heron?\").")


def follow_up(rt: Runtime, pipe: QueryPipeline, answerer: Answerer, question: str, previous: list[str], *,
              signals: tuple[str, ...] | None, filters: Filters | None) -> Standalone:
    """QUESTION as a standalone question after the ``previous`` ones: each earlier question is answered in
    turn (quietly), so its answer's names can resolve what follows, as in a chat."""
    # Imported here, not above: `kgrag query` loads this module and needs the answer stage only with --previous.
    from kgrag.retrieval.answer.base import TextModel
    from kgrag.retrieval.answer.grounded import gate, grounded_answer
    from kgrag.retrieval.answer.hop import follow_bridge
    from kgrag.retrieval.conversation import Turn, standalone_question

    llm = answerer if isinstance(answerer, TextModel) else None
    turns: list[Turn] = []
    for earlier in previous:
        turns.append(Turn("user", earlier))
        asked = standalone_question(turns, nlp=rt.spacy(), llm=llm).question
        result = follow_bridge(pipe.run(asked, signals=signals, filters=filters),
                               lambda q: pipe.run(q, signals=signals, filters=filters), rt.spacy(), rt.settings)
        turns.append(Turn("assistant", grounded_answer(result, gate(result, rt.settings, rt.spacy()), answerer,
                                                       rt.settings).text))
    turns.append(Turn("user", question))
    return standalone_question(turns, nlp=rt.spacy(), llm=llm)


def print_standalone(standalone: Standalone) -> None:
    """The question that actually ran, when the conversation changed it (and how)."""
    how = {"llm": "rewritten by the answer model", "entities": "resolved from the earlier turns",
           "as-is": "as written"}[standalone.method]
    err_console.print(f"[dim]standalone question ({how}):[/] {escape(standalone.question)}")
    if standalone.note:
        err_console.print(f"[yellow]note:[/] {escape(standalone.note)}")
