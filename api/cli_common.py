"""What every CLI command shares: settings, the runtime, error printing, progress bars.

Commands stay thin: parse arguments, build a Runtime, call the core, print the result.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from core.errors import KgragError
from core.runtime import Runtime
from core.settings import Settings

_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """C0/C1 controls shown as escapes (``\\x1b``): stored text must never clear the screen or retitle the window."""
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class SafeConsole(Console):
    """Every string printed, table cells included, passes through render_str: one place to make it printable.

    Rich's own styling is added after this, so colours still work; only the text's controls are escaped."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(printable(text), **kwargs)


console = SafeConsole()
err_console = SafeConsole(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


def load_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        err_console.print(f"[bold red]error:[/] invalid configuration:\n{exc}")
        err_console.print("fix: correct the KGRAG_* environment variables or .env file named above")
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
