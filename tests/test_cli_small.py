"""Small things a new user meets first: help text, list settings written the CLI's way, packaging."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from api.cli import app
from core.settings import Settings
from tests.conftest import REPO_ROOT


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Typer's command tree (its own click fork: walked by attribute, not by click's classes)."""
    yield path, group
    if isinstance(getattr(group, "commands", None), dict):
        for name, sub in group.commands.items():
            yield from _commands(sub, (*path, name))


def test_every_bracketed_word_in_help_text_reaches_the_screen() -> None:
    """Help is rendered as Rich markup, where an unescaped [n] is a tag and vanishes ("citing … as .")."""
    runner = CliRunner()
    checked = 0
    for path, cmd in _commands(typer.main.get_command(app)):
        texts = [cmd.help or ""] + [getattr(p, "help", None) or "" for p in cmd.params]
        expected = {f"[{m}]" for t in texts for m in re.findall(r"\\?\[([^\]\s/]+)\]", t)}
        if not expected:
            continue
        out = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
        assert out.exit_code == 0, out.output
        for token in expected:
            assert token in out.output, f"`kgrag {' '.join(path)} --help` lost {token}"
        checked += 1
    assert checked >= 1  # `kgrag ask` explains its [n] citations


def test_ask_help_shows_the_citation_marker() -> None:
    out = CliRunner().invoke(app, ["ask", "--help"], env={"COLUMNS": "200"})
    assert "citing the passages it rests on as [n]." in out.output


@pytest.mark.parametrize(("raw", "expected"), [
    ("dense,bm25", ("dense", "bm25")),
    (" bm25 , graph ", ("bm25", "graph")),
    ('["dense","graph"]', ("dense", "graph")),
    ("dense", ("dense",)),
])
def test_signals_setting_takes_the_clis_comma_syntax_and_json(
        raw: str, expected: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRAG_RETRIEVAL__SIGNALS", raw)
    assert Settings(_env_file=None).retrieval.signals == expected


def test_a_bad_list_setting_is_one_error_line_with_the_fix(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"KGRAG_HOME": str(tmp_path), "COLUMNS": "200"}
    bad_signal = runner.invoke(app, ["documents", "list"], env={**env, "KGRAG_RETRIEVAL__SIGNALS": "dense,vector"})
    assert bad_signal.exit_code == 2
    assert "subset of dense,bm25,graph" in bad_signal.output and "Traceback" not in bad_signal.output
    bad_json = runner.invoke(app, ["documents", "list"], env={**env, "KGRAG_API__API_KEYS": "abc"})
    assert bad_json.exit_code == 2, bad_json.output
    assert bad_json.exception is None or isinstance(bad_json.exception, SystemExit)
    assert "invalid configuration" in bad_json.output and "fix:" in bad_json.output


def test_the_wheel_builds_without_setuptools_warnings_and_carries_every_package(tmp_path: Path) -> None:
    """A wheel missing retrieval/answer or the graph view's HTML installs, then fails at run time."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO_ROOT / name, src / name)
    for pkg in ("core", "ingest", "kg", "retrieval", "api", "eval"):
        shutil.copytree(REPO_ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "results"))
    build = subprocess.run(
        [sys.executable, "-W", "always", "-c",
         "import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))", str(tmp_path)],
        cwd=src, capture_output=True, text=True, timeout=120,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    log = build.stdout + build.stderr
    for warning in ("SetuptoolsDeprecationWarning", "is absent from the `packages` configuration"):
        assert warning not in log, log[-3000:]
    with zipfile.ZipFile(tmp_path / build.stdout.strip().splitlines()[-1]) as wheel:
        names = set(wheel.namelist())
        meta = wheel.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert {"api/static/app.js", "retrieval/answer/base.py", "api/cli.py"} <= names
    assert "License-Expression: MIT" in meta
