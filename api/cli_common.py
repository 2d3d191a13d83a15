"""What every CLI command shares: settings, the runtime, error printing, progress bars.

Commands stay thin: parse arguments, build a Runtime, call the core, print the result.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

import typer
from pydantic import ValidationError
from pydantic_settings import SettingsError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from core.errors import KgragError
from core.runtime import Runtime
from core.settings import Settings

console = Console()
err_console = Console(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def load_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        err_console.print(f"[bold red]error:[/] invalid configuration:\n{escape(str(exc))}")
        err_console.print("fix: correct the KGRAG_* environment variables or .env file named above")
        raise typer.Exit(2) from exc
    except SettingsError as exc:  # a KGRAG_* value that should be JSON and is not: one line, not a traceback
        cause = f" ({exc.__cause__})" if exc.__cause__ else ""
        err_console.print(f"[bold red]error:[/] invalid configuration: {escape(str(exc))}{escape(cause)}")
        err_console.print('fix: write list and object settings as JSON, e.g. KGRAG_API__API_KEYS=\'["key1"]\'')
        raise typer.Exit(2) from exc


def handle_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Print a KgragError as 'error: … / fix: …' with exit code 1, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except KgragError as exc:
            err_console.print(f"[bold red]error:[/] {exc.message}")
            if exc.fix:
                err_console.print(f"[bold]fix:[/] {exc.fix}")
            raise typer.Exit(1) from exc

    return wrapper


@contextmanager
def runtime() -> Iterator[Runtime]:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    rt = Runtime(load_settings())
    try:
        yield rt
    finally:
        rt.close()


@contextmanager
def progress_bar(description: str) -> Iterator[Progress]:
    """A Rich progress bar, silent when stderr is not a terminal (CI logs, pipes)."""
    progress = Progress(
        TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TimeElapsedColumn(), console=err_console, disable=not sys.stderr.isatty(), transient=False,
    )
    with progress:
        yield progress
