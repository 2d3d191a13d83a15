"""`kgrag eval …`: run the three-signal ablation on a dataset and turn results into reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from kgrag.api.cli.common import CliApp, console, handle_errors, load_settings, progress_bar
from kgrag.core.errors import InvalidInputError
from kgrag.core.runtime import Runtime
from kgrag.core.settings import DEFAULT_WORKSPACE, DatabaseSettings
from rich.markup import escape

eval_app = CliApp(help="Evaluate retrieval: ablations over dense, BM25 and graph, and their reports.",
                       no_args_is_help=True)

REPO_ROOT = Path(__file__).resolve().parents[2]


def _relative_to_repo(path: Path) -> str:
    """Stamp paths relative to the repository, so a results file stays checkable from any clone."""
    import os

    return os.path.relpath(path.resolve(), REPO_ROOT)


def stamp_path(path: Path) -> str:
    """The dataset path as given when it means the same from the repository root (as `make eval` gives
    ../shared/data/scifact), else absolute: never a climb like ../../tmp/x that only held from one checkout."""
    if not path.is_absolute() and (REPO_ROOT / path).resolve() == path.resolve():
        return path.as_posix()
    return str(path.resolve())


@eval_app.command("run")
@handle_errors
def run(
    dataset: Annotated[Path, typer.Option("--dataset", "-d", exists=True, help="BEIR folder, multi-hop folder "
                                          "(corpus.json + queries.jsonl) or golden-set .json file.")],
    ablate: Annotated[bool, typer.Option("--ablate", help="Every non-empty subset of dense,bm25,graph "
                                         "(each also with rerank when a reranker loads).")] = False,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N questions (the corpus stays whole).")]
    = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Results JSON (default: "
                                                "KGRAG_HOME/eval/results/<dataset>.json, outside the repository; "
                                                "give eval/results/<dataset>.json to replace the committed "
                                                "one).")] = None,
    answers: Annotated[bool | None, typer.Option("--answers/--no-answers", help="Also gate and answer each "
                                                 "question (default: golden sets only).")] = None,
    drop_titles: Annotated[bool, typer.Option("--drop-titles", help="Load every document with no title, into "
                                              "its own data home (<dataset>-no-titles): how retrieval does on a "
                                              "corpus whose documents don't name each other by title.")] = False,
) -> None:
    """Ingest a dataset into its own data home, build its graph, and ask every question.

    The corpus lives under KGRAG_HOME/eval/<dataset> with its own embedded database, so your own
    documents are never mixed in; a second run reuses it (unchanged documents are skipped).

    Example:  kgrag eval run --dataset ../shared/data/scifact --ablate --limit 100
              kgrag eval run --dataset ../shared/data/2wikimultihopqa --ablate --drop-titles
    """
    from kgrag.eval.datasets import load_dataset
    from kgrag.eval.runner import run_eval

    ds = load_dataset(dataset, drop_titles=drop_titles).subset(limit)
    base = load_settings()
    # its own embedded database, so its own (default) workspace: an eval never reads or writes a team's corpus
    settings = base.model_copy(update={"home": base.home / "eval" / ds.name, "database": DatabaseSettings(),
                                       "workspace": DEFAULT_WORKSPACE})
    out = (output or base.home / "eval" / "results" / f"{ds.name}.json").resolve()
    with Runtime(settings) as rt, progress_bar("eval") as progress:
        tasks: dict[str, int] = {}

        def on_progress(stage: str, done: int, total: int) -> None:
            key = stage.split(" (")[0]
            if key not in tasks:
                tasks[key] = progress.add_task(stage, total=total)
            progress.update(tasks[key], completed=done, total=total, description=stage)

        results = run_eval(rt, ds, ablate=ablate, answers=answers, progress=on_progress,
                           dataset_path=stamp_path(dataset))
    for unit in ds.skipped:
        console.print(f"[yellow]skipped:[/] {escape(unit.source)}: {escape(unit.reason)}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    console.print(f"results: {out}")
    console.print(f"report:  kgrag eval report {out}")


@eval_app.command("report")
@handle_errors
def report(
    results: Annotated[Path, typer.Argument(exists=True, help="A results JSON from `kgrag eval run`.")],
    markdown_out: Annotated[Path | None, typer.Option("--markdown", "-m", help="Write the table here.")] = None,
    chart_out: Annotated[Path | None, typer.Option("--chart", "-c", help="Write a PNG bar chart here.")] = None,
    readme: Annotated[Path | None, typer.Option("--update", help="Replace the <!-- eval:NAME --> block of this "
                                                "Markdown file (e.g. README.md) with the table.")] = None,
    split: Annotated[str | None, typer.Option(help="Also report the tuned questions and the held-out rest apart, "
                                              "with R@5 per question type: N for questions [1, N] tuned on, or "
                                              "'field' for each golden question's own split (tune or heldout); "
                                              "--update writes it to the <!-- eval:NAME:split --> block.")] = None,
    answers: Annotated[bool, typer.Option("--answers", help="Report the answer stage instead (a run made with "
                                          "--answers): short-answer precision and coverage, EM/F1, false "
                                          "refusals per question kind, refusal precision and recall; with "
                                          "--split N, the held-out questions only. A golden set whose questions "
                                          "say their split is reported per kind, tune and heldout apart. "
                                          "--update writes the <!-- eval:NAME:answers --> block.")] = False,
) -> None:
    """Print the ablation table (recomputed from the raw rows) and optionally write it and a chart.

    Example:  kgrag eval report eval/results/scifact.json --chart docs/scifact.png --update README.md
              kgrag eval report eval/results/harbour_agency.json --answers
    """
    from kgrag.eval.report import (
        chart,
        load_results,
        markdown,
        parse_split,
        split_block_name,
        split_markdown,
        update_block,
    )

    data = load_results(results)
    parts = parse_split(split)
    if answers:
        _answers_report(data, results, readme, parts)
        return
    table = markdown(data, source=_relative_to_repo(results))
    console.print(table, markup=False, highlight=False, soft_wrap=True)
    if markdown_out:
        markdown_out.write_text(table)
    if chart_out:
        chart(data, chart_out)
        console.print(f"chart: {chart_out}")
    name = data["stamp"]["dataset"]["name"]
    split_table = split_markdown(data, split=parts, source=_relative_to_repo(results)) if parts else None
    if split_table:
        console.print(split_table, markup=False, highlight=False, soft_wrap=True)
    if readme:
        text = update_block(readme.read_text(), name, table)
        if split_table:
            text = update_block(text, split_block_name(name), split_table)
        readme.write_text(text)
        console.print(f"updated the {name} table{'s' if split_table else ''} in {readme}")


def _answers_report(data: dict[str, Any], results: Path, readme: Path | None, split: int | str | None) -> None:
    from kgrag.eval.report import answers_block_name, answers_markdown, update_block

    if not any("refused" in r for run in data["runs"] for r in run["questions"]):
        raise InvalidInputError(f"{results} has no answers", fix="run `kgrag eval run --answers` first")
    table = answers_markdown(data, source=_relative_to_repo(results), split=split)
    console.print(table, markup=False, highlight=False, soft_wrap=True)
    if readme:
        name = answers_block_name(data["stamp"]["dataset"]["name"])
        readme.write_text(update_block(readme.read_text(), name, table))
        console.print(f"updated the {name} table in {readme}")


@eval_app.command("check")
@handle_errors
def check(
    results: Annotated[list[Path], typer.Argument(exists=True, help="Results files to check.")],
) -> None:
    """Fail when a results file's stamp disagrees with the current default config or its data.

    Example:  kgrag eval check eval/results/*.json
    """
    from kgrag.core.settings import Settings
    from kgrag.eval.report import check_stamp, load_results

    stale = False
    for path in results:
        problems = check_stamp(load_results(path), settings=Settings(_env_file=None), repo_root=REPO_ROOT)
        for p in problems:
            console.print(f"[red]stale:[/] {path}: {p}")
        stale |= bool(problems)
        if not problems:
            console.print(f"[green]ok[/] {path}")
    if stale:
        console.print("fix: rerun `kgrag eval run` for it and regenerate its tables with `kgrag eval report`")
        raise typer.Exit(1)
