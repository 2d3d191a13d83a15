"""What every CLI command shares: settings, the runtime, error printing, progress bars.

Commands stay thin: parse arguments, build a Runtime, call the core, print the result.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.runtime import Runtime
from kgrag.core.settings import ExecutorSettings, Settings, check_known_settings
from pydantic import ValidationError
from pydantic_settings import SettingsError
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.text import Text
from typer.core import TyperCommand, TyperGroup

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


def reflow(help_text: str | None) -> str | None:
    """Prose paragraphs of a docstring joined into one line each, so the terminal wraps them once, at its own
    width: Typer keeps the docstring's line breaks *and* wraps, which left ragged half lines ("…atomically, and
    a file" / "that cannot be read…") at 80 columns. Example paragraphs and indented lines stay as written."""
    if not help_text:
        return help_text
    paragraphs = inspect.cleandoc(help_text).split("\n\n")
    return "\n\n".join(
        p if p.lstrip().startswith(("Example", "\b")) or any(line.startswith(" ") for line in p.splitlines())
        else " ".join(line.strip() for line in p.splitlines())
        for p in paragraphs)


def _no_flag_metavar(params: list[Any]) -> list[Any]:
    """An on/off flag takes no value: Typer's `<bool>` beside it reads as if one were expected. (Typer ships its
    own click, so parameters are recognised by attribute, not class.)"""
    for param in params:
        if getattr(param, "is_flag", False) and getattr(param, "metavar", "") is None:
            param.metavar = ""
    return params


class _KgragHelp:
    """Help reflowed (``reflow``) and no `<bool>` beside flags, for commands and groups alike."""

    help: str | None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = reflow(self.help)

    def get_params(self, ctx: Any) -> list[Any]:
        return _no_flag_metavar(super().get_params(ctx))  # type: ignore[misc]


class HelpCommand(_KgragHelp, TyperCommand):
    """Every kgrag command."""


class HelpGroup(_KgragHelp, TyperGroup):
    """Every kgrag command group."""


class CliApp(typer.Typer):
    """typer.Typer whose groups and commands are HelpGroup and HelpCommand unless told otherwise."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", HelpGroup)
        super().__init__(**kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", HelpCommand)
        return super().command(*args, **kwargs)


class ExecutorKind(StrEnum):
    local = "local"
    ray = "ray"


ExecutorOption = Annotated[ExecutorKind | None, typer.Option(
    "--executor", case_sensitive=False,
    help="local (default, KGRAG_EXECUTOR__KIND): work on this machine. ray: fan the work out over Ray actors, "
         "one per CPU of the cluster, each loading the model once; results are written here in order, so they "
         "are the same as local. Needs the optional extra: pip install 'kgrag\\[ray]'.")]
RayAddressOption = Annotated[str | None, typer.Option(
    "--ray-address", metavar="ADDR",
    help="A running Ray cluster for --executor ray (implies it): ray://HEAD:10001, or auto on a cluster node "
         "(KGRAG_EXECUTOR__RAY_ADDRESS). Without it, a local Ray is started on this machine for the command.")]


def executor_settings(settings: Settings, kind: ExecutorKind | None, ray_address: str | None) -> ExecutorSettings:
    """The settings' executor with the command line's choices on top; --ray-address alone means ray."""
    current = settings.executor
    if ray_address and kind is ExecutorKind.local:
        raise KgragError("--ray-address was given with --executor local",
                         fix="drop --ray-address, or use --executor ray")
    update: dict[str, Any] = {}
    if ray_address:
        update = {"kind": "ray", "ray_address": ray_address}
    if kind is not None:
        update["kind"] = kind.value
    return current.model_copy(update=update) if update else current


def load_settings() -> Settings:
    try:
        check_known_settings(os.environ)
        return Settings()
    except ConfigError as exc:  # a misspelt KGRAG_* name: refused before anything starts
        err_console.print(f"[bold red]error:[/] invalid configuration: {escape(exc.message)}")
        err_console.print(f"[bold]fix:[/] {escape(exc.fix or '')}")
        raise typer.Exit(2) from exc
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


WorkspaceOption = Annotated[str | None, typer.Option(
    "--workspace", "-w", metavar="NAME",
    help="Work in this workspace (its own documents, graph and indexes; KGRAG_WORKSPACE, default: default). "
         "Make one with `kgrag workspace create NAME`.")]


def in_workspace(settings: Settings, workspace: str | None) -> Settings:
    """The settings with the command line's --workspace on top (its name checked before anything starts)."""
    if workspace is None:
        return settings
    from kgrag.core.workspaces import check_name

    return settings.for_workspace(check_name(workspace))


@contextmanager
def runtime(*, light: bool = False, workspace: str | None = None) -> Iterator[Runtime]:
    """``light`` for the one-shot query commands: models are computed the cheapest way to start (core.runtime).
    ``workspace``: the command's --workspace (else KGRAG_WORKSPACE)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    rt = Runtime(in_workspace(load_settings(), workspace), light=light)
    try:
        yield rt
    finally:
        rt.close()


class LineProgress(Progress):
    """Where a bar cannot be drawn (CI logs, pipes) a long run still says it is alive: a plain line when a
    task starts, at each tenth of the way, at least every ``interval_s`` seconds, and when it completes."""

    def __init__(self, *, interval_s: float = 30.0) -> None:
        super().__init__(console=err_console, disable=True)
        self.interval_s = interval_s
        self._said: dict[TaskID, tuple[int, float]] = {}  # task → (last tenth reported, when)

    def update(self, task_id: TaskID, **kwargs: Any) -> None:  # type: ignore[override]
        super().update(task_id, **kwargs)
        self._line(task_id)

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        super().advance(task_id, advance)
        self._line(task_id)

    def _line(self, task_id: TaskID) -> None:
        task = self._tasks[task_id]
        if task.total is None:
            return
        tenth = int(10 * task.completed / task.total) if task.total else 10
        now = time.monotonic()
        last = self._said.get(task_id)
        if last is not None and tenth <= last[0] and now - last[1] < self.interval_s:
            return
        self._said[task_id] = (tenth, now)
        pct = 100 * task.completed / task.total if task.total else 100.0
        elapsed = task.elapsed or 0.0
        err_console.print(f"{task.description}: {task.completed:.0f}/{task.total:.0f} ({pct:.0f}%) "
                          f"{elapsed:.0f} s", markup=False, highlight=False, soft_wrap=True)


@contextmanager
def progress_bar(description: str) -> Iterator[Progress]:
    """A Rich progress bar on a terminal; plain progress lines otherwise (CI logs, pipes)."""
    progress: Progress
    if sys.stderr.isatty():
        progress = Progress(
            TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), console=err_console, transient=False,
        )
    else:
        progress = LineProgress()
    with progress:
        yield progress
